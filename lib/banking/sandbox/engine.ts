/**
 * The sandbox bank's simulation engine. A profile (profiles.ts) describes an institution's
 * accounts and what happens on each day; the engine runs it day by day from the profile's fixed
 * epoch with one seeded PRNG, so whatever happened on a day depends only on the seed and the
 * days before it, never on the day the simulation stops. That is what makes the bank
 * deterministic AND lets a later sync see exactly the same past plus the new days.
 *
 * Each transaction is kept as a lifecycle: an optional pending phase (its own id) from the
 * authorization day until the posting day, then the posted transaction (a NEW id whose
 * `pendingTransactionId` points at the pending id, possibly with another amount, e.g. a tip),
 * and optionally a later revision of the posted one (same id, e.g. the merchant name cleaned up).
 */
import type { AccountType } from "@/db/schema";
import type { CategoryId } from "@/lib/finance/categories";
import type { ProviderRecurringStream, RecurringFrequency } from "../provider";
import { addMonths, dayInSameMonth, Rng } from "./calendar";

export interface AccountSpec {
  id: string;
  name: string;
  officialName: string;
  mask: string;
  type: AccountType;
  subtype: string;
  limitMinor: number | null;
  /** Balance at the epoch: money held (depository), amount owed (credit). Unused for loans and investments. */
  openingMinor: number;
  /**
   * ISO 4217 code of the account; every amount on it is in minor units of this currency (whole
   * yen for JPY). USD when absent.
   */
  currency?: string;
}

export interface TransactionLifecycle {
  /** Id of the posted transaction. */
  id: string;
  /** Id of the pending phase; null when the transaction posts at once (ACH, fees, interest). */
  pendingId: string | null;
  accountId: string;
  authorizedDay: number;
  postedDay: number;
  /** Amount while pending (a restaurant bill before the tip); null = same as posted. */
  pendingAmountMinor: number | null;
  amountMinor: number;
  name: string;
  merchantName: string | null;
  category: CategoryId;
  isTransfer: boolean;
  paymentChannel: "online" | "in store" | "other";
  /** A correction of the posted transaction visible from `day` on (same id). */
  revision: { day: number; name: string; merchantName: string | null; amountMinor: number } | null;
  streamId: string | null;
}

export interface StreamSpec {
  id: string;
  accountId: string;
  direction: "inflow" | "outflow";
  merchantName: string;
  description: string;
  category: CategoryId;
  frequency: RecurringFrequency;
}

export interface CardSpec {
  accountId: string;
  aprPercentage: string;
  closeDayOfMonth: number;
  dueDaysAfterClose: number;
  payFromAccountId: string;
  /** Days after the statement closes that the payment is sent. */
  paymentDelayDays: number;
  /**
   * `full` pays the statement balance; a number pays that much; `{ fraction }` pays that share
   * of the statement (a card that carries a balance); never less than the minimum.
   */
  pays: "full" | number | { fraction: number };
  /** Chance that a month's payment is forgotten (a late fee follows the due date). */
  missChance: number;
  paymentName: string;
  cardPaymentName: string;
}

export interface Statement {
  accountId: string;
  closeDay: number;
  dueDay: number;
  balanceMinor: number;
  minimumMinor: number;
  interestMinor: number;
}

export interface CardPayment {
  accountId: string;
  day: number;
  amountMinor: number;
}

export interface LoanSpec {
  accountId: string;
  kind: "mortgage" | "student";
  principalMinor: number;
  aprPercentage: string;
  termMonths: number;
  originationDay: number;
  /** Day of month payments are due and sent. */
  paymentDayOfMonth: number;
  escrowMinor: number;
  payFromAccountId: string;
  name: string;
  merchantName: string;
  category: CategoryId;
  streamId: string;
  servicer: string;
}

export interface LoanPayment {
  day: number;
  totalMinor: number;
  principalMinor: number;
  interestMinor: number;
  balanceAfterMinor: number;
}

export interface SecuritySpec {
  id: string;
  name: string;
  ticker: string | null;
  type: string;
  /** Price in cents at the epoch. */
  basePriceCents: number;
  /** Yearly growth, e.g. 0.07. */
  growth: number;
  /** Dividend per share per quarter in cents (0 for none). */
  quarterlyDividendCents: number;
  phase: number;
}

export interface InvestmentEvent {
  id: string;
  accountId: string;
  securityId: string | null;
  day: number;
  name: string;
  type: "buy" | "sell" | "dividend" | "cash" | "fee";
  subtype: string;
  /** Ten-thousandths of a share. */
  quantity4: number | null;
  priceCents: number | null;
  amountMinor: number;
  feesMinor: number;
}

export const CASH_SECURITY_ID = "sec_cash_usd";

/** One running simulation of an institution for one seed. */
export class Simulation {
  readonly rng: Rng;
  readonly lifecycles: TransactionLifecycle[] = [];
  readonly statements: Statement[] = [];
  readonly cardPayments: CardPayment[] = [];
  readonly investmentEvents: InvestmentEvent[] = [];
  readonly streams = new Map<string, StreamSpec>();
  readonly accounts = new Map<string, AccountSpec>();
  /** Signed sum of every amount emitted per account (by authorization day): drives adaptive rules. */
  private readonly flow = new Map<string, number>();
  /** Positions per investment account: security → { quantity4, costMinor }; and cash. */
  readonly positions = new Map<string, Map<string, { quantity4: number; costMinor: number }>>();
  readonly investmentCash = new Map<string, number>();
  private counter = 0;
  private investmentCounter = 0;

  constructor(
    readonly idPrefix: string,
    seed: string,
    accounts: AccountSpec[],
    readonly securities: Map<string, SecuritySpec>,
  ) {
    this.rng = new Rng(seed);
    for (const account of accounts) this.accounts.set(account.id, account);
  }

  addStream(stream: StreamSpec): void {
    this.streams.set(stream.id, stream);
  }

  /** Balance as the simulation sees it: money held (depository) or owed (credit). */
  approxBalance(accountId: string): number {
    const account = this.accounts.get(accountId);
    const flow = this.flow.get(accountId) ?? 0;
    if (!account) return flow;
    return account.type === "credit" ? account.openingMinor - flow : account.openingMinor + flow;
  }

  emit(input: {
    accountId: string;
    day: number;
    amountMinor: number;
    name: string;
    merchantName?: string | null;
    category: CategoryId;
    isTransfer?: boolean;
    channel?: TransactionLifecycle["paymentChannel"];
    /** Days spent pending before posting (0 = posts at once). */
    pendingDays?: number;
    pendingAmountMinor?: number;
    revision?: { afterDays: number; name?: string; merchantName?: string | null; amountMinor?: number };
    streamId?: string;
  }): TransactionLifecycle {
    const n = (this.counter++).toString(36).padStart(6, "0");
    const pendingDays = input.pendingDays ?? 0;
    const postedDay = input.day + pendingDays;
    const lifecycle: TransactionLifecycle = {
      id: `${this.idPrefix}${n}`,
      pendingId: pendingDays > 0 ? `${this.idPrefix}${n}p` : null,
      accountId: input.accountId,
      authorizedDay: input.day,
      postedDay,
      pendingAmountMinor:
        pendingDays > 0 && input.pendingAmountMinor !== undefined ? input.pendingAmountMinor : null,
      amountMinor: input.amountMinor,
      name: input.name,
      merchantName: input.merchantName ?? null,
      category: input.category,
      isTransfer: input.isTransfer ?? false,
      paymentChannel: input.channel ?? "other",
      revision: input.revision
        ? {
            day: postedDay + input.revision.afterDays,
            name: input.revision.name ?? input.name,
            merchantName:
              input.revision.merchantName === undefined
                ? (input.merchantName ?? null)
                : input.revision.merchantName,
            amountMinor: input.revision.amountMinor ?? input.amountMinor,
          }
        : null,
      streamId: input.streamId ?? null,
    };
    this.lifecycles.push(lifecycle);
    const finalAmount = lifecycle.revision?.amountMinor ?? lifecycle.amountMinor;
    this.flow.set(input.accountId, (this.flow.get(input.accountId) ?? 0) + finalAmount);
    return lifecycle;
  }

  /** Both legs of a movement between two of the user's own accounts. */
  transfer(input: {
    fromAccountId: string;
    toAccountId: string;
    day: number;
    amountMinor: number;
    fromName: string;
    toName: string;
    category?: CategoryId;
  }): void {
    const category = input.category ?? "transfer";
    this.emit({
      accountId: input.fromAccountId,
      day: input.day,
      amountMinor: -input.amountMinor,
      name: input.fromName,
      category,
      isTransfer: true,
    });
    this.emit({
      accountId: input.toAccountId,
      day: input.day,
      amountMinor: input.amountMinor,
      name: input.toName,
      category,
      isTransfer: true,
    });
  }

  // ── credit cards ──

  /** Statement, interest, payment and late fee of a card, run on every day. */
  runCard(card: CardSpec, day: number): void {
    const closeDay = dayInSameMonth(day, card.closeDayOfMonth);
    if (day === closeDay) {
      const previous = this.lastStatement(card.accountId);
      let interestMinor = 0;
      const paidSincePrevious = previous
        ? this.cardPayments
            .filter((p) => p.accountId === card.accountId && p.day > previous.closeDay)
            .reduce((sum, p) => sum + p.amountMinor, 0)
        : 0;
      // Interest only when the previous statement was not paid in full (no grace period then).
      if (previous && paidSincePrevious < previous.balanceMinor && this.approxBalance(card.accountId) > 0) {
        interestMinor = Math.round(
          (this.approxBalance(card.accountId) * Number(card.aprPercentage)) / 100 / 12,
        );
        if (interestMinor > 0) {
          this.emit({
            accountId: card.accountId,
            day,
            amountMinor: -interestMinor,
            name: "INTEREST CHARGE ON PURCHASES",
            category: "interest_charged",
          });
        }
      }
      const balanceMinor = Math.max(0, this.approxBalance(card.accountId));
      const minimumMinor =
        balanceMinor <= 2_500
          ? balanceMinor
          : Math.max(2_500, Math.round(balanceMinor * 0.01) + interestMinor);
      this.statements.push({
        accountId: card.accountId,
        closeDay: day,
        dueDay: day + card.dueDaysAfterClose,
        balanceMinor,
        minimumMinor,
        interestMinor,
      });
      return;
    }
    const statement = this.lastStatement(card.accountId);
    if (!statement) return;
    if (day === statement.closeDay + card.paymentDelayDays && statement.balanceMinor > 0) {
      if (this.rng.chance(card.missChance)) return;
      const planned =
        card.pays === "full"
          ? statement.balanceMinor
          : typeof card.pays === "number"
            ? card.pays
            : Math.round((statement.balanceMinor * card.pays.fraction) / 100) * 100;
      const amountMinor = Math.min(statement.balanceMinor, Math.max(planned, statement.minimumMinor));
      this.cardPayments.push({ accountId: card.accountId, day, amountMinor });
      this.transfer({
        fromAccountId: card.payFromAccountId,
        toAccountId: card.accountId,
        day,
        amountMinor,
        fromName: card.paymentName,
        toName: card.cardPaymentName,
        category: "credit_card_payment",
      });
    }
    if (day === statement.dueDay + 1 && statement.minimumMinor > 0) {
      const paid = this.cardPayments
        .filter(
          (p) => p.accountId === card.accountId && p.day > statement.closeDay && p.day <= statement.dueDay,
        )
        .reduce((sum, p) => sum + p.amountMinor, 0);
      if (paid < statement.minimumMinor) {
        this.emit({
          accountId: card.accountId,
          day,
          amountMinor: -2_900,
          name: "LATE FEE",
          category: "fees",
        });
      }
    }
  }

  lastStatement(accountId: string): Statement | undefined {
    for (let i = this.statements.length - 1; i >= 0; i--) {
      if (this.statements[i]!.accountId === accountId) return this.statements[i];
    }
    return undefined;
  }

  // ── loans ──

  /** Sends the loan payment due on `day`, if any. */
  runLoan(loan: LoanSpec, schedule: LoanPayment[], day: number): void {
    const payment = schedule.find((p) => p.day === day);
    if (!payment) return;
    this.emit({
      accountId: loan.payFromAccountId,
      day,
      amountMinor: -payment.totalMinor,
      name: loan.name,
      merchantName: loan.merchantName,
      category: loan.category,
      streamId: loan.streamId,
    });
  }

  // ── investments ──

  private position(accountId: string, securityId: string) {
    let account = this.positions.get(accountId);
    if (!account) {
      account = new Map();
      this.positions.set(accountId, account);
    }
    let position = account.get(securityId);
    if (!position) {
      position = { quantity4: 0, costMinor: 0 };
      account.set(securityId, position);
    }
    return position;
  }

  private investmentId(): string {
    return `${this.idPrefix}i${(this.investmentCounter++).toString(36).padStart(5, "0")}`;
  }

  private addCash(accountId: string, amountMinor: number) {
    this.investmentCash.set(accountId, (this.investmentCash.get(accountId) ?? 0) + amountMinor);
  }

  /** Cash deposited into an investment account (a contribution). */
  contribute(accountId: string, day: number, amountMinor: number, name: string): void {
    this.addCash(accountId, amountMinor);
    this.investmentEvents.push({
      id: this.investmentId(),
      accountId,
      securityId: CASH_SECURITY_ID,
      day,
      name,
      type: "cash",
      subtype: "contribution",
      quantity4: null,
      priceCents: null,
      amountMinor,
      feesMinor: 0,
    });
  }

  /** Buys about `amountMinor` worth of a security at the day's price (fractional shares). */
  buy(accountId: string, securityId: string, day: number, amountMinor: number): void {
    const security = this.securities.get(securityId)!;
    const priceCents = priceOf(security, day);
    const quantity4 = Math.floor((amountMinor * 10_000) / priceCents);
    if (quantity4 <= 0) return;
    const cost = Math.round((quantity4 * priceCents) / 10_000);
    const position = this.position(accountId, securityId);
    position.quantity4 += quantity4;
    position.costMinor += cost;
    this.addCash(accountId, -cost);
    this.investmentEvents.push({
      id: this.investmentId(),
      accountId,
      securityId,
      day,
      name: `BUY ${security.ticker ?? security.name}`,
      type: "buy",
      subtype: "buy",
      quantity4,
      priceCents,
      amountMinor: -cost,
      feesMinor: 0,
    });
  }

  /** Sells a number of shares (ten-thousandths); cost basis leaves at average cost. */
  sell(accountId: string, securityId: string, day: number, quantity4: number): void {
    const security = this.securities.get(securityId)!;
    const position = this.position(accountId, securityId);
    const sold = Math.min(quantity4, position.quantity4);
    if (sold <= 0) return;
    const priceCents = priceOf(security, day);
    const proceeds = Math.round((sold * priceCents) / 10_000);
    const basisOut = Math.round((position.costMinor * sold) / position.quantity4);
    position.quantity4 -= sold;
    position.costMinor -= basisOut;
    this.addCash(accountId, proceeds);
    this.investmentEvents.push({
      id: this.investmentId(),
      accountId,
      securityId,
      day,
      name: `SELL ${security.ticker ?? security.name}`,
      type: "sell",
      subtype: "sell",
      quantity4: -sold,
      priceCents,
      amountMinor: proceeds,
      feesMinor: 0,
    });
  }

  /** Pays the quarterly dividends of every position in the account (to cash). */
  payDividends(accountId: string, day: number): void {
    const account = this.positions.get(accountId);
    if (!account) return;
    for (const [securityId, position] of account) {
      const security = this.securities.get(securityId)!;
      if (security.quarterlyDividendCents <= 0 || position.quantity4 <= 0) continue;
      const amountMinor = Math.round((position.quantity4 * security.quarterlyDividendCents) / 10_000);
      if (amountMinor <= 0) continue;
      this.addCash(accountId, amountMinor);
      this.investmentEvents.push({
        id: this.investmentId(),
        accountId,
        securityId,
        day,
        name: `DIVIDEND ${security.ticker ?? security.name}`,
        type: "dividend",
        subtype: "dividend",
        quantity4: null,
        priceCents: null,
        amountMinor,
        feesMinor: 0,
      });
    }
  }
}

/**
 * Deterministic price path of a security (cents): exponential growth with two slow waves, no
 * PRNG involved, so any day's price is known without running the simulation.
 */
export function priceOf(security: SecuritySpec, day: number): number {
  if (security.id === CASH_SECURITY_ID) return 100;
  const years = (day - 17_897) / 365.25; // 2019-01-01
  const wave =
    1 +
    0.09 * Math.sin((2 * Math.PI * years) / 1.9 + security.phase) +
    0.025 * Math.sin((2 * Math.PI * years) / 0.27 + security.phase * 3);
  return Math.max(100, Math.round(security.basePriceCents * Math.exp(security.growth * years) * wave));
}

/** Fixed-rate amortization schedule, in whole cents (interest rounded each month). */
export function amortize(loan: LoanSpec): LoanPayment[] {
  const rate = Number(loan.aprPercentage) / 100 / 12;
  const payment = Math.round((loan.principalMinor * rate) / (1 - (1 + rate) ** -loan.termMonths));
  const schedule: LoanPayment[] = [];
  let balance = loan.principalMinor;
  const firstDue = dayInSameMonth(addMonths(loan.originationDay, 1), loan.paymentDayOfMonth);
  for (let k = 0; k < loan.termMonths && balance > 0; k++) {
    const interest = Math.round(balance * rate);
    const principal = k === loan.termMonths - 1 ? balance : Math.min(balance, payment - interest);
    balance -= principal;
    schedule.push({
      day: dayInSameMonth(addMonths(firstDue, k), loan.paymentDayOfMonth),
      totalMinor: principal + interest + loan.escrowMinor,
      principalMinor: principal,
      interestMinor: interest,
      balanceAfterMinor: balance,
    });
  }
  return schedule;
}

/** Recurring streams of the transactions posted in [startDay, day]. */
export function buildStreams(
  streams: Iterable<StreamSpec>,
  lifecycles: readonly TransactionLifecycle[],
  startDay: number,
  day: number,
  isoOf: (d: number) => string,
): ProviderRecurringStream[] {
  const byStream = new Map<string, TransactionLifecycle[]>();
  for (const t of lifecycles) {
    if (!t.streamId || t.authorizedDay < startDay || t.postedDay > day) continue;
    const list = byStream.get(t.streamId) ?? [];
    list.push(t);
    byStream.set(t.streamId, list);
  }
  const periodDays: Record<RecurringFrequency, number> = {
    weekly: 7,
    biweekly: 14,
    semi_monthly: 15,
    monthly: 30,
    quarterly: 91,
    annually: 365,
  };
  const out: ProviderRecurringStream[] = [];
  for (const spec of streams) {
    const list = byStream.get(spec.id);
    if (!list || list.length === 0) continue;
    const amounts = list.map((t) =>
      Math.abs(t.revision && t.revision.day <= day ? t.revision.amountMinor : t.amountMinor),
    );
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const nextDay =
      spec.frequency === "monthly"
        ? addMonths(last.postedDay, 1)
        : spec.frequency === "quarterly"
          ? addMonths(last.postedDay, 3)
          : spec.frequency === "annually"
            ? addMonths(last.postedDay, 12)
            : last.postedDay + periodDays[spec.frequency];
    out.push({
      providerStreamId: spec.id,
      providerAccountId: spec.accountId,
      direction: spec.direction,
      merchantName: spec.merchantName,
      description: spec.description,
      category: spec.category,
      frequency: spec.frequency,
      averageAmountMinor: Math.round(amounts.reduce((a, b) => a + b, 0) / amounts.length),
      lastAmountMinor: amounts[amounts.length - 1]!,
      firstDate: isoOf(first.postedDay),
      lastDate: isoOf(last.postedDay),
      predictedNextDate: isoOf(nextDay),
      isActive: day - last.postedDay <= periodDays[spec.frequency] * 1.5 + 5,
      transactionIds: list.map((t) => t.id),
    });
  }
  return out;
}
