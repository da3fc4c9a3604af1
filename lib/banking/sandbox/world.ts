/**
 * The sandbox bank as data: run a profile's simulation up to a day (memoised) and read it as the
 * provider interface shapes — accounts and balances, the transactions visible on a day and the
 * difference between two days (the `/transactions/sync` cursor), holdings, investment
 * transactions, liabilities, recurring streams and daily balance history.
 *
 * `generateSandboxData(seed, institutionId, now)` returns all of it at once for tests, so other
 * tests can compute expected figures independently of the database.
 */
import type {
  ProviderAccount,
  ProviderBalancePoint,
  ProviderHolding,
  ProviderInstitution,
  ProviderInvestmentTransaction,
  ProviderLiability,
  ProviderRecurringStream,
  ProviderSecurity,
  ProviderTransaction,
  RemovedTransaction,
} from "../provider";
import { addMonths, dayInSameMonth, dayOf, hashString, isoOfDay } from "./calendar";
import {
  type AccountSpec,
  amortize,
  buildStreams,
  CASH_SECURITY_ID,
  type LoanPayment,
  priceOf,
  Simulation,
  type TransactionLifecycle,
} from "./engine";
import {
  getSandboxProfile,
  historyStartDay,
  type Person,
  personOf,
  SANDBOX_PROFILES,
  type SandboxProfile,
} from "./profiles";

export interface SandboxWorld {
  seed: string;
  profile: SandboxProfile;
  /** Last simulated day: any day up to it can be read (every reader below takes its day). */
  uptoDay: number;
  person: Person;
  accounts: AccountSpec[];
  sim: Simulation;
  schedules: Map<string, LoanPayment[]>;
  /** The last diff computed (pages of one sync read the same diff). */
  lastDiff?: { key: string; changes: TransactionChange[] };
}

/** Institutions offered in the connect screen (the heavy benchmark bank is hidden). */
export function listSandboxInstitutions(options: { includeHidden?: boolean } = {}): ProviderInstitution[] {
  return SANDBOX_PROFILES.filter((p) => options.includeHidden || !p.hidden).map((p) => ({
    id: p.institutionId,
    name: p.name,
  }));
}

/** Simulations by institution and seed, each run up to the latest day asked of it. */
const cache = new Map<string, SandboxWorld>();
const CACHE_SIZE = 6;

/** Forgets memoised simulations (tests that prove determinism rebuild from scratch). */
export function clearSandboxCache(): void {
  cache.clear();
}

/**
 * The simulation of `institutionId` for `seed`, run at least up to `uptoDay`. One simulation is
 * kept per institution and seed, and a later day continues it from where it stopped instead of
 * running every day again from the epoch (five years of the heavy bank cost a one-day sync
 * 0.2–0.4 s). A simulation run further answers an earlier day as one run to that day would:
 * every day appends only what happens on it or later (the past is never rewritten), and every
 * reader takes its day and leaves out what comes after it. A test holds each reader to this.
 */
export function buildSandboxWorld(seed: string, institutionId: string, uptoDay: number): SandboxWorld {
  const key = `${institutionId}|${seed}`;
  let world = cache.get(key);
  if (world) cache.delete(key);
  else {
    const profile = getSandboxProfile(institutionId);
    if (!profile) throw new Error(`Unknown sandbox institution ${institutionId}.`);
    const person = personOf(seed);
    const accounts = profile.accounts(person);
    const prefix = `${institutionId.replace(/^ins_/, "").slice(0, 4)}${hashString(`${seed}|${institutionId}`).toString(36)}`;
    const sim = new Simulation(
      prefix,
      `${seed}|${institutionId}`,
      accounts,
      new Map(profile.securities.map((s) => [s.id, s])),
    );
    const schedules = new Map(profile.loans.map((loan) => [loan.accountId, amortize(loan)]));
    profile.setup(sim, person);
    world = { seed, profile, uptoDay: profile.epochDay - 1, person, accounts, sim, schedules };
  }
  for (let day = world.uptoDay + 1; day <= uptoDay; day++) {
    world.profile.onDay(world.sim, day, world.person, world.schedules);
    world.uptoDay = day;
  }
  cache.set(key, world);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return world;
}

// ───────────────────────────── transactions ─────────────────────────────

type Version = { id: string; kind: "pending" | "posted" | "revised" };

/** Which version of a transaction the bank shows on `day` (null = not visible yet). */
export function versionOn(t: TransactionLifecycle, day: number): Version | null {
  if (t.pendingId && t.authorizedDay <= day && day < t.postedDay) return { id: t.pendingId, kind: "pending" };
  if (t.postedDay <= day)
    return { id: t.id, kind: t.revision && t.revision.day <= day ? "revised" : "posted" };
  return null;
}

/** The currency of one of the world's accounts (the sandbox banks default to USD). */
function currencyOf(world: SandboxWorld, accountId: string): string {
  return world.sim.accounts.get(accountId)?.currency ?? "USD";
}

export function toProviderTransaction(
  t: TransactionLifecycle,
  version: Version,
  currency: string,
): ProviderTransaction {
  const pending = version.kind === "pending";
  const revised = version.kind === "revised" && t.revision;
  return {
    providerTransactionId: version.id,
    providerAccountId: t.accountId,
    pendingTransactionId: pending ? null : t.pendingId,
    date: isoOfDay(pending ? t.authorizedDay : t.postedDay),
    authorizedDate: t.pendingId ? isoOfDay(t.authorizedDay) : null,
    name: revised ? t.revision!.name : t.name,
    merchantName: revised ? t.revision!.merchantName : t.merchantName,
    amountMinor: pending
      ? (t.pendingAmountMinor ?? t.amountMinor)
      : revised
        ? t.revision!.amountMinor
        : t.amountMinor,
    currency,
    category: t.category,
    pending,
    isTransfer: t.isTransfer,
    paymentChannel: t.paymentChannel,
  };
}

/** Every transaction visible on `day` among those authorized from `startDay` on. */
export function transactionsOn(world: SandboxWorld, startDay: number, day: number): ProviderTransaction[] {
  const out: ProviderTransaction[] = [];
  for (const t of world.sim.lifecycles) {
    if (t.authorizedDay < startDay) continue;
    const version = versionOn(t, day);
    if (version) out.push(toProviderTransaction(t, version, currencyOf(world, t.accountId)));
  }
  return out;
}

export interface TransactionChange {
  kind: "added" | "modified" | "removed";
  transaction?: ProviderTransaction;
  removed?: RemovedTransaction;
}

/**
 * The changes between what the bank showed on `fromDay` (null = nothing yet) and on `toDay`:
 * removed first, then added, then modified, each in a fixed order (so pages are stable).
 */
export function diffTransactions(
  world: SandboxWorld,
  startDay: number,
  fromDay: number | null,
  toDay: number,
): TransactionChange[] {
  const key = `${startDay}|${fromDay}|${toDay}`;
  if (world.lastDiff?.key === key) return world.lastDiff.changes;
  const changes = computeDiff(world, startDay, fromDay, toDay);
  world.lastDiff = { key, changes };
  return changes;
}

function computeDiff(
  world: SandboxWorld,
  startDay: number,
  fromDay: number | null,
  toDay: number,
): TransactionChange[] {
  const removed: TransactionChange[] = [];
  const added: TransactionChange[] = [];
  const modified: TransactionChange[] = [];
  for (const t of world.sim.lifecycles) {
    if (t.authorizedDay < startDay) continue;
    const before = fromDay === null ? null : versionOn(t, fromDay);
    const after = versionOn(t, toDay);
    if (before?.id === after?.id) {
      if (before && after && before.kind !== after.kind) {
        modified.push({
          kind: "modified",
          transaction: toProviderTransaction(t, after, currencyOf(world, t.accountId)),
        });
      }
      continue;
    }
    if (before) {
      removed.push({
        kind: "removed",
        removed: { providerTransactionId: before.id, providerAccountId: t.accountId },
      });
    }
    if (after) {
      added.push({
        kind: "added",
        transaction: toProviderTransaction(t, after, currencyOf(world, t.accountId)),
      });
    }
  }
  return [...removed, ...added, ...modified];
}

// ───────────────────────────── balances ─────────────────────────────

interface Series {
  startDay: number;
  current: number[];
  available: Array<number | null>;
}

function depositoryOrCreditSeries(
  world: SandboxWorld,
  account: AccountSpec,
  startDay: number,
  endDay: number,
): Series {
  const epoch = world.profile.epochDay;
  const length = endDay - epoch + 2;
  const flow = new Float64Array(length);
  const pendingOut = new Float64Array(length);
  for (const t of world.sim.lifecycles) {
    if (t.accountId !== account.id || t.authorizedDay > endDay) continue;
    if (t.postedDay <= endDay) flow[t.postedDay - epoch]! += t.amountMinor;
    if (t.revision && t.revision.day <= endDay)
      flow[t.revision.day - epoch]! += t.revision.amountMinor - t.amountMinor;
    if (t.pendingId) {
      const amount = t.pendingAmountMinor ?? t.amountMinor;
      if (amount < 0) {
        pendingOut[t.authorizedDay - epoch]! += amount;
        if (t.postedDay <= endDay) pendingOut[t.postedDay - epoch]! -= amount;
      }
    }
  }
  const current: number[] = [];
  const available: Array<number | null> = [];
  let cumulativeFlow = 0;
  let cumulativePending = 0;
  for (let day = epoch; day <= endDay; day++) {
    cumulativeFlow += flow[day - epoch]!;
    cumulativePending += pendingOut[day - epoch]!;
    if (day < startDay) continue;
    if (account.type === "credit") {
      const owed = account.openingMinor - cumulativeFlow;
      current.push(owed);
      available.push(account.limitMinor === null ? null : account.limitMinor - owed + cumulativePending);
    } else {
      const held = account.openingMinor + cumulativeFlow;
      current.push(held);
      available.push(held + cumulativePending);
    }
  }
  return { startDay, current, available };
}

function loanSeries(world: SandboxWorld, account: AccountSpec, startDay: number, endDay: number): Series {
  const loan = world.profile.loans.find((l) => l.accountId === account.id)!;
  const schedule = world.schedules.get(account.id)!;
  const current: number[] = [];
  const available: Array<number | null> = [];
  let index = 0;
  let balance = loan.principalMinor;
  for (let day = Math.min(startDay, schedule[0]?.day ?? startDay); day <= endDay; day++) {
    while (index < schedule.length && schedule[index]!.day <= day) {
      balance = schedule[index]!.balanceAfterMinor;
      index++;
    }
    if (day < startDay) continue;
    current.push(day < loan.originationDay ? 0 : balance);
    available.push(null);
  }
  return { startDay, current, available };
}

/** Positions and cash of an investment account after every event up to `day`. */
function investmentStateOn(world: SandboxWorld, accountId: string, day: number) {
  const positions = new Map<string, { quantity4: number; costMinor: number }>();
  let cash = 0;
  for (const e of world.sim.investmentEvents) {
    if (e.day > day) break;
    if (e.accountId !== accountId) continue;
    cash += e.amountMinor - e.feesMinor;
    if ((e.type === "buy" || e.type === "sell") && e.securityId && e.quantity4 !== null) {
      const position = positions.get(e.securityId) ?? { quantity4: 0, costMinor: 0 };
      if (e.type === "buy") {
        position.quantity4 += e.quantity4;
        position.costMinor += -e.amountMinor;
      } else {
        const sold = -e.quantity4;
        position.costMinor -= Math.round((position.costMinor * sold) / position.quantity4);
        position.quantity4 -= sold;
      }
      positions.set(e.securityId, position);
    }
  }
  return { positions, cash };
}

function investmentSeries(
  world: SandboxWorld,
  account: AccountSpec,
  startDay: number,
  endDay: number,
): Series {
  const current: number[] = [];
  const available: Array<number | null> = [];
  const positions = new Map<string, number>();
  let cash = 0;
  let index = 0;
  const events = world.sim.investmentEvents;
  for (let day = world.profile.epochDay; day <= endDay; day++) {
    while (index < events.length && events[index]!.day <= day) {
      const e = events[index]!;
      index++;
      if (e.accountId !== account.id) continue;
      cash += e.amountMinor - e.feesMinor;
      if ((e.type === "buy" || e.type === "sell") && e.securityId && e.quantity4 !== null) {
        positions.set(e.securityId, (positions.get(e.securityId) ?? 0) + e.quantity4);
      }
    }
    if (day < startDay) continue;
    let value = cash;
    for (const [securityId, quantity4] of positions) {
      value += Math.round((quantity4 * priceOf(world.sim.securities.get(securityId)!, day)) / 10_000);
    }
    current.push(value);
    available.push(cash);
  }
  return { startDay, current, available };
}

function seriesOf(world: SandboxWorld, account: AccountSpec, startDay: number, endDay: number): Series {
  if (account.type === "loan") return loanSeries(world, account, startDay, endDay);
  if (account.type === "investment") return investmentSeries(world, account, startDay, endDay);
  return depositoryOrCreditSeries(world, account, startDay, endDay);
}

/** Daily balances of every account for [startDay, endDay] (endDay ≤ world.uptoDay). */
export function balanceHistory(
  world: SandboxWorld,
  startDay: number,
  endDay: number,
): ProviderBalancePoint[] {
  const out: ProviderBalancePoint[] = [];
  for (const account of world.accounts) {
    const series = seriesOf(world, account, startDay, endDay);
    series.current.forEach((current, i) => {
      out.push({
        providerAccountId: account.id,
        date: isoOfDay(startDay + i),
        currentBalanceMinor: current,
        availableBalanceMinor: series.available[i] ?? null,
      });
    });
  }
  return out;
}

/** Accounts with their balances on `day`. */
export function accountsOn(world: SandboxWorld, day: number): ProviderAccount[] {
  return world.accounts.map((account) => {
    const series = seriesOf(world, account, day, day);
    return {
      providerAccountId: account.id,
      name: account.name,
      officialName: account.officialName,
      mask: account.mask,
      type: account.type,
      subtype: account.subtype,
      currency: account.currency ?? "USD",
      currentBalanceMinor: series.current[0] ?? 0,
      availableBalanceMinor: series.available[0] ?? null,
      limitMinor: account.limitMinor,
    };
  });
}

// ───────────────────────────── investments ─────────────────────────────

const decimal4 = (quantity4: number) => {
  const sign = quantity4 < 0 ? "-" : "";
  const abs = Math.abs(quantity4);
  return `${sign}${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, "0")}`;
};
const decimal2 = (cents: number) => {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
};

export function securitiesOn(world: SandboxWorld, day: number): ProviderSecurity[] {
  return [...world.sim.securities.values()].map((s) => ({
    providerSecurityId: s.id,
    name: s.name,
    tickerSymbol: s.ticker,
    type: s.type,
    closePrice: decimal2(priceOf(s, day)),
    closePriceAsOf: isoOfDay(day),
    currency: "USD",
  }));
}

/** Holdings on `day`: positions valued at the day's close, plus the cash position. */
export function holdingsOn(world: SandboxWorld, day: number): ProviderHolding[] {
  const out: ProviderHolding[] = [];
  for (const account of world.accounts) {
    if (account.type !== "investment") continue;
    const { positions, cash } = investmentStateOn(world, account.id, day);
    for (const [securityId, position] of positions) {
      if (position.quantity4 <= 0) continue;
      const priceCents = priceOf(world.sim.securities.get(securityId)!, day);
      out.push({
        providerAccountId: account.id,
        providerSecurityId: securityId,
        quantity: decimal4(position.quantity4),
        price: decimal2(priceCents),
        valueMinor: Math.round((position.quantity4 * priceCents) / 10_000),
        costBasisMinor: position.costMinor,
        currency: currencyOf(world, account.id),
      });
    }
    if (cash !== 0) {
      out.push({
        providerAccountId: account.id,
        providerSecurityId: CASH_SECURITY_ID,
        quantity: decimal2(cash),
        price: "1.00",
        valueMinor: cash,
        costBasisMinor: cash,
        currency: currencyOf(world, account.id),
      });
    }
  }
  return out;
}

export function investmentTransactionsBetween(
  world: SandboxWorld,
  startDay: number,
  endDay: number,
): ProviderInvestmentTransaction[] {
  return world.sim.investmentEvents
    .filter((e) => e.day >= startDay && e.day <= endDay)
    .map((e) => ({
      providerInvestmentTransactionId: e.id,
      providerAccountId: e.accountId,
      providerSecurityId: e.securityId,
      date: isoOfDay(e.day),
      name: e.name,
      type: e.type,
      subtype: e.subtype,
      quantity: e.quantity4 === null ? null : decimal4(e.quantity4),
      price: e.priceCents === null ? null : decimal2(e.priceCents),
      amountMinor: e.amountMinor,
      feesMinor: e.feesMinor,
      currency: currencyOf(world, e.accountId),
    }));
}

// ───────────────────────────── liabilities and streams ─────────────────────────────

export function liabilitiesOn(world: SandboxWorld, day: number): ProviderLiability[] {
  const out: ProviderLiability[] = [];
  for (const card of world.profile.cards) {
    const statements = world.sim.statements.filter(
      (s) => s.accountId === card.accountId && s.closeDay <= day,
    );
    const statement = statements[statements.length - 1];
    const payments = world.sim.cardPayments.filter((p) => p.accountId === card.accountId && p.day <= day);
    const lastPayment = payments[payments.length - 1];
    const paidSinceClose = statement
      ? payments.filter((p) => p.day > statement.closeDay).reduce((sum, p) => sum + p.amountMinor, 0)
      : 0;
    const nextDue = !statement
      ? null
      : statement.dueDay >= day
        ? statement.dueDay
        : dayInSameMonth(addMonths(statement.closeDay, 1), card.closeDayOfMonth) + card.dueDaysAfterClose;
    out.push({
      providerAccountId: card.accountId,
      kind: "credit",
      aprPercentage: card.aprPercentage,
      minimumPaymentMinor: statement?.minimumMinor ?? null,
      nextPaymentDueDate: nextDue === null ? null : isoOfDay(nextDue),
      lastPaymentDate: lastPayment ? isoOfDay(lastPayment.day) : null,
      lastPaymentAmountMinor: lastPayment?.amountMinor ?? null,
      lastStatementBalanceMinor: statement?.balanceMinor ?? null,
      isOverdue: statement ? statement.dueDay < day && paidSinceClose < statement.minimumMinor : false,
      originationPrincipalMinor: null,
      maturityDate: null,
      details: statement
        ? {
            lastStatementIssueDate: isoOfDay(statement.closeDay),
            statementMinimumPaymentMinor: statement.minimumMinor,
            interestChargedLastStatementMinor: statement.interestMinor,
          }
        : null,
    });
  }
  for (const loan of world.profile.loans) {
    const schedule = world.schedules.get(loan.accountId)!;
    const paid = schedule.filter((p) => p.day <= day);
    const last = paid[paid.length - 1];
    const next = schedule.find((p) => p.day > day);
    const interestYtd = paid
      .filter((p) => isoOfDay(p.day).slice(0, 4) === isoOfDay(day).slice(0, 4))
      .reduce((sum, p) => sum + p.interestMinor, 0);
    out.push({
      providerAccountId: loan.accountId,
      kind: loan.kind,
      aprPercentage: loan.aprPercentage,
      minimumPaymentMinor: next?.totalMinor ?? null,
      nextPaymentDueDate: next ? isoOfDay(next.day) : null,
      lastPaymentDate: last ? isoOfDay(last.day) : null,
      lastPaymentAmountMinor: last?.totalMinor ?? null,
      lastStatementBalanceMinor: null,
      isOverdue: false,
      originationPrincipalMinor: loan.principalMinor,
      maturityDate: isoOfDay(schedule[schedule.length - 1]!.day),
      details: {
        servicer: loan.servicer,
        originationDate: isoOfDay(loan.originationDay),
        interestRateType: "fixed",
        escrowMinor: loan.escrowMinor,
        interestPaidYtdMinor: interestYtd,
        termMonths: loan.termMonths,
      },
    });
  }
  return out;
}

export function recurringStreamsOn(
  world: SandboxWorld,
  startDay: number,
  day: number,
): ProviderRecurringStream[] {
  return buildStreams(world.sim.streams.values(), world.sim.lifecycles, startDay, day, isoOfDay);
}

// ───────────────────────────── everything at once (tests) ─────────────────────────────

export interface SandboxTransactionLifecycle {
  id: string;
  pendingId: string | null;
  providerAccountId: string;
  authorizedDate: string;
  postedDate: string;
  pendingAmountMinor: number | null;
  amountMinor: number;
  name: string;
  merchantName: string | null;
  category: string;
  isTransfer: boolean;
  revision: { date: string; name: string; merchantName: string | null; amountMinor: number } | null;
  streamId: string | null;
}

export interface SandboxData {
  institution: ProviderInstitution;
  asOf: string;
  /** First day of the first sync's history. */
  windowStart: string;
  accounts: ProviderAccount[];
  /** Every transaction of the window with its pending/posted/revised lifecycle. */
  lifecycles: SandboxTransactionLifecycle[];
  /** What the bank shows on `asOf` (what a first sync stores). */
  transactions: ProviderTransaction[];
  securities: ProviderSecurity[];
  holdings: ProviderHolding[];
  investmentTransactions: ProviderInvestmentTransaction[];
  liabilities: ProviderLiability[];
  recurringStreams: ProviderRecurringStream[];
}

/**
 * The sandbox bank's whole picture for `seed` at `institutionId` as of `now` (UTC day): what a
 * first sync on that day receives. Deterministic: the same arguments give the same data.
 */
export function generateSandboxData(seed: string, institutionId: string, now: Date): SandboxData {
  const asOfDay = dayOf(now);
  const world = buildSandboxWorld(seed, institutionId, asOfDay);
  const startDay = historyStartDay(world.profile, asOfDay);
  return {
    institution: { id: world.profile.institutionId, name: world.profile.name },
    asOf: isoOfDay(asOfDay),
    windowStart: isoOfDay(startDay),
    accounts: accountsOn(world, asOfDay),
    lifecycles: world.sim.lifecycles
      .filter((t) => t.authorizedDay >= startDay && t.authorizedDay <= asOfDay)
      .map((t) => ({
        id: t.id,
        pendingId: t.pendingId,
        providerAccountId: t.accountId,
        authorizedDate: isoOfDay(t.authorizedDay),
        postedDate: isoOfDay(t.postedDay),
        pendingAmountMinor: t.pendingAmountMinor,
        amountMinor: t.amountMinor,
        name: t.name,
        merchantName: t.merchantName,
        category: t.category,
        isTransfer: t.isTransfer,
        revision: t.revision
          ? {
              date: isoOfDay(t.revision.day),
              name: t.revision.name,
              merchantName: t.revision.merchantName,
              amountMinor: t.revision.amountMinor,
            }
          : null,
        streamId: t.streamId,
      })),
    transactions: transactionsOn(world, startDay, asOfDay),
    securities: world.profile.securities.length ? securitiesOn(world, asOfDay) : [],
    holdings: holdingsOn(world, asOfDay),
    investmentTransactions: investmentTransactionsBetween(world, startDay, asOfDay),
    liabilities: liabilitiesOn(world, asOfDay),
    recurringStreams: recurringStreamsOn(world, startDay, asOfDay),
  };
}
