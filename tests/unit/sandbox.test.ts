/**
 * The sandbox bank: deterministic (same seed → same data, a later day only adds to the past),
 * realistic (every feature the issue lists is present), and internally consistent (balances
 * move exactly by the posted transactions; holdings add up to the account value).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ProviderTransaction } from "@/lib/banking/provider";
import {
  clearSandboxCache,
  generateSandboxData,
  listSandboxInstitutions,
  type SandboxData,
} from "@/lib/banking/sandbox";
import {
  balanceHistory,
  buildSandboxWorld,
  diffTransactions,
  transactionsOn,
} from "@/lib/banking/sandbox/world";
import { isCategoryId } from "@/lib/finance/categories";

const NOW = new Date("2026-06-30T15:00:00Z");
const SEED = "unit-sandbox-seed";
const dayMs = 86_400_000;
const isoPlus = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
const dayNumber = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / dayMs;

const platypus = () => generateSandboxData(SEED, "ins_platypus", NOW);
const tartan = () => generateSandboxData(SEED, "ins_tartan", NOW);
const houndstooth = () => generateSandboxData(SEED, "ins_houndstooth", NOW);

const byAccount = (data: SandboxData, subtype: string) => {
  const account = data.accounts.find((a) => a.subtype === subtype);
  if (!account) throw new Error(`no ${subtype} account`);
  return account;
};

describe("sandbox determinism", () => {
  it("gives identical data for the same seed, institution and day, computed from scratch", () => {
    for (const institution of ["ins_platypus", "ins_tartan", "ins_houndstooth"]) {
      clearSandboxCache();
      const first = JSON.stringify(generateSandboxData(SEED, institution, NOW));
      clearSandboxCache();
      const second = JSON.stringify(generateSandboxData(SEED, institution, NOW));
      expect(second).toBe(first);
    }
  });

  it("gives different data for another seed", () => {
    const a = generateSandboxData("seed-a", "ins_platypus", NOW);
    const b = generateSandboxData("seed-b", "ins_platypus", NOW);
    const amounts = (d: SandboxData) => d.transactions.map((t) => t.amountMinor).join(",");
    expect(amounts(a)).not.toBe(amounts(b));
  });

  it("does not rewrite the past when the clock moves on", () => {
    const earlier = generateSandboxData(SEED, "ins_platypus", NOW);
    const later = generateSandboxData(SEED, "ins_platypus", new Date(NOW.getTime() + 10 * dayMs));
    const laterById = new Map(later.lifecycles.map((t) => [t.id, t]));
    for (const t of earlier.lifecycles) {
      if (t.authorizedDate < later.windowStart) continue;
      expect(laterById.get(t.id)).toEqual(t);
    }
  });

  it("answers a day from a simulation run further, or continued from an earlier day, as from one run to it", () => {
    // The provider keeps one simulation per bank and seed and runs it on as the clock moves
    // (world.ts `buildSandboxWorld`): every reader must answer a day as a run to that day does.
    const day = dayNumber("2026-06-30");
    const picture = () => {
      const data = generateSandboxData(SEED, institution, NOW);
      const world = buildSandboxWorld(SEED, institution, day);
      const start = dayNumber(data.windowStart);
      return {
        uptoDay: world.uptoDay,
        hash: createHash("sha256")
          .update(
            JSON.stringify([
              data,
              balanceHistory(world, day - 45, day),
              diffTransactions(world, start, day - 4, day),
              diffTransactions(world, start, null, day).length,
            ]),
          )
          .digest("hex"),
      };
    };
    let institution = "";
    for (const { id } of listSandboxInstitutions({ includeHidden: true })) {
      institution = id;
      clearSandboxCache();
      const alone = picture();
      expect(alone.uptoDay).toBe(day);
      clearSandboxCache();
      buildSandboxWorld(SEED, id, day + 25);
      const ahead = picture();
      expect(ahead.uptoDay).toBe(day + 25);
      clearSandboxCache();
      buildSandboxWorld(SEED, id, day - 25);
      const continued = picture();
      expect(continued.uptoDay).toBe(day);
      expect({ id, ahead: ahead.hash, continued: continued.hash }).toEqual({
        id,
        ahead: alone.hash,
        continued: alone.hash,
      });
    }
  });

  it("is anchored to the clock: 24 months of history up to `now`", () => {
    const data = platypus();
    expect(data.asOf).toBe("2026-06-30");
    expect(data.windowStart).toBe("2024-07-01");
    const dates = data.transactions.map((t) => t.date).sort();
    expect(dates[0]! <= isoPlus(data.windowStart, 3)).toBe(true);
    expect(dates.at(-1)! >= isoPlus(data.asOf, -2)).toBe(true);
    expect(dates.at(-1)! <= data.asOf).toBe(true);
  });
});

describe("sandbox realism", () => {
  it("offers several institutions with every account type", () => {
    const institutions = listSandboxInstitutions();
    expect(institutions.length).toBeGreaterThanOrEqual(3);
    const subtypes = [platypus(), tartan(), houndstooth()].flatMap((d) =>
      d.accounts.map((a) => `${a.type}/${a.subtype}`),
    );
    for (const expected of [
      "depository/checking",
      "depository/savings",
      "credit/credit card",
      "loan/mortgage",
      "loan/student",
      "investment/brokerage",
      "investment/401k",
    ]) {
      expect(subtypes).toContain(expected);
    }
  });

  it("uses only our categories and integer cents", () => {
    for (const data of [platypus(), tartan()]) {
      for (const t of data.transactions) {
        expect(isCategoryId(t.category)).toBe(true);
        expect(Number.isInteger(t.amountMinor)).toBe(true);
        expect(t.amountMinor).not.toBe(0);
      }
    }
  });

  it("pays biweekly paychecks and a monthly housing payment", () => {
    const data = platypus();
    const pay = data.transactions.filter((t) => t.category === "income" && t.name.includes("PAYROLL"));
    expect(pay.length).toBeGreaterThanOrEqual(50);
    const gaps = pay.slice(1).map((t, i) => dayNumber(t.date) - dayNumber(pay[i]!.date));
    expect(new Set(gaps)).toEqual(new Set([14]));
    const housing = data.transactions.filter((t) => t.category === "housing");
    expect(housing.length).toBeGreaterThanOrEqual(24);
    expect(new Set(housing.map((t) => t.date.slice(0, 7))).size).toBe(housing.length);
  });

  it("has weekly groceries, restaurants, shopping and subscriptions whose price changes", () => {
    const data = platypus();
    const count = (category: string) => data.transactions.filter((t) => t.category === category).length;
    expect(count("groceries")).toBeGreaterThanOrEqual(104);
    expect(count("restaurants")).toBeGreaterThan(100);
    expect(count("shopping")).toBeGreaterThan(50);
    const streamflix = data.transactions.filter((t) => t.merchantName === "Streamflix");
    expect(streamflix.length).toBeGreaterThanOrEqual(23);
    expect(new Set(streamflix.map((t) => t.amountMinor)).size).toBeGreaterThanOrEqual(2);
    for (const merchant of ["Tunely Music", "CloudVault Storage", "FitHub Gym"]) {
      expect(data.transactions.some((t) => t.merchantName === merchant)).toBe(true);
    }
  });

  it("records both legs of transfers between own accounts, and of card payments", () => {
    const data = platypus();
    const transfers = data.transactions.filter((t) => t.isTransfer && !t.pending);
    const checking = byAccount(data, "checking").providerAccountId;
    const internal = transfers.filter(
      (t) => t.providerAccountId === checking && t.amountMinor < 0 && !t.name.includes("TARTAN"),
    );
    expect(internal.some((t) => t.category === "transfer")).toBe(true);
    expect(internal.some((t) => t.category === "credit_card_payment")).toBe(true);
    for (const leg of internal) {
      const other = transfers.find(
        (t) =>
          t.providerAccountId !== checking &&
          t.date === leg.date &&
          t.amountMinor === -leg.amountMinor &&
          t.category === leg.category,
      );
      expect(other, `other leg of ${leg.name} on ${leg.date}`).toBeDefined();
    }
  });

  it("has pending transactions that post later under a new id, some with another amount", () => {
    const data = platypus();
    const withPending = data.lifecycles.filter((t) => t.pendingId !== null);
    expect(withPending.length).toBeGreaterThan(500);
    const tipped = withPending.filter(
      (t) => t.pendingAmountMinor !== null && t.pendingAmountMinor !== t.amountMinor,
    );
    expect(tipped.length).toBeGreaterThan(20);
    // Seen on the authorization day: pending under its own id; on the posting day: posted under a new id.
    const world = buildSandboxWorld(SEED, "ins_platypus", dayNumber(data.asOf));
    const sample = tipped.find((t) => t.postedDate <= data.asOf)!;
    const onAuth = transactionsOn(world, dayNumber(data.windowStart), dayNumber(sample.authorizedDate));
    const pending = onAuth.find((t) => t.providerTransactionId === sample.pendingId)!;
    expect(pending.pending).toBe(true);
    expect(pending.amountMinor).toBe(sample.pendingAmountMinor);
    expect(onAuth.some((t) => t.providerTransactionId === sample.id)).toBe(false);
    const onPost = transactionsOn(world, dayNumber(data.windowStart), dayNumber(sample.postedDate));
    const posted = onPost.find((t) => t.providerTransactionId === sample.id)!;
    expect(posted.pending).toBe(false);
    expect(posted.pendingTransactionId).toBe(sample.pendingId);
    expect(posted.providerTransactionId).not.toBe(sample.pendingId);
    expect(posted.amountMinor).toBe(sample.amountMinor);
    expect(onPost.some((t) => t.providerTransactionId === sample.pendingId)).toBe(false);
  });

  it("has refunds (positive, in the category they refund), fees and interest both ways", () => {
    const p = platypus();
    const t = tartan();
    const all = [...p.transactions, ...t.transactions];
    expect(
      all.some((x) => x.category === "shopping" && x.amountMinor > 0 && x.name.startsWith("RETURN")),
    ).toBe(true);
    const fees = all.filter((x) => x.category === "fees");
    expect(fees.some((x) => x.name.includes("ATM"))).toBe(true);
    expect(fees.some((x) => x.name.includes("FOREIGN"))).toBe(true);
    expect(fees.some((x) => x.name.includes("OVERDRAFT"))).toBe(true);
    const savings = byAccount(p, "savings").providerAccountId;
    expect(
      p.transactions.some(
        (x) => x.category === "interest_earned" && x.amountMinor > 0 && x.providerAccountId === savings,
      ),
    ).toBe(true);
    const tartanCard = byAccount(t, "credit card").providerAccountId;
    expect(
      t.transactions.some(
        (x) => x.category === "interest_charged" && x.amountMinor < 0 && x.providerAccountId === tartanCard,
      ),
    ).toBe(true);
  });

  it("has a merchant name cleaned up after posting (a modification under the same id)", () => {
    const data = platypus();
    const revised = data.lifecycles.filter((t) => t.revision !== null);
    expect(revised.length).toBeGreaterThan(50);
    for (const t of revised) {
      expect(t.merchantName).toBeNull();
      expect(t.revision!.merchantName).toBe("Blue Bottle Coffee");
      expect(t.revision!.date > t.postedDate).toBe(true);
    }
  });

  it("has holdings with cost basis that add up to the account value, and buys, sells and dividends", () => {
    const data = houndstooth();
    expect(data.holdings.length).toBeGreaterThanOrEqual(5);
    for (const h of data.holdings) {
      expect(h.costBasisMinor).not.toBeNull();
      // value = quantity × price, to the cent (exact decimal arithmetic on the strings).
      const [qi, qf = ""] = h.quantity.replace("-", "").split(".");
      const [pi, pf = ""] = h.price.split(".");
      const q = BigInt(qi! + qf.padEnd(4, "0").slice(0, 4));
      const p = BigInt(pi! + pf.padEnd(2, "0").slice(0, 2));
      const valueTimes10000 = q * p; // cents × 10^4
      const rounded = Number((valueTimes10000 + 5_000n) / 10_000n);
      expect(h.valueMinor).toBe(rounded);
    }
    for (const account of data.accounts) {
      const sum = data.holdings
        .filter((h) => h.providerAccountId === account.providerAccountId)
        .reduce((s, h) => s + h.valueMinor, 0);
      expect(account.currentBalanceMinor).toBe(sum);
    }
    const types = new Set(data.investmentTransactions.map((t) => t.type));
    for (const type of ["buy", "sell", "dividend"]) expect(types).toContain(type);
    const securityIds = new Set(data.securities.map((s) => s.providerSecurityId));
    for (const h of data.holdings) expect(securityIds).toContain(h.providerSecurityId);
  });

  it("has liabilities: cards with APR, minimum, due date, statement and overdue flag; loans with terms", () => {
    const liabilities = [...platypus().liabilities, ...tartan().liabilities];
    const cards = liabilities.filter((l) => l.kind === "credit");
    expect(cards.length).toBe(2);
    for (const card of cards) {
      expect(Number(card.aprPercentage)).toBeGreaterThan(0);
      expect(card.minimumPaymentMinor).not.toBeNull();
      expect(card.nextPaymentDueDate! > "2026-06-30").toBe(true);
      expect(card.lastStatementBalanceMinor).not.toBeNull();
      expect(typeof card.isOverdue).toBe("boolean");
    }
    for (const kind of ["mortgage", "student"] as const) {
      const loan = liabilities.find((l) => l.kind === kind)!;
      expect(Number(loan.aprPercentage)).toBeGreaterThan(0);
      expect(loan.minimumPaymentMinor!).toBeGreaterThan(0);
      expect(loan.nextPaymentDueDate! > "2026-06-30").toBe(true);
      expect(loan.originationPrincipalMinor!).toBeGreaterThan(0);
      expect(loan.maturityDate! > "2026-06-30").toBe(true);
    }
    // The loan's balance is positive and below what was borrowed.
    const p = platypus();
    const mortgage = byAccount(p, "mortgage");
    const mortgageLiability = p.liabilities.find((l) => l.kind === "mortgage")!;
    expect(mortgage.currentBalanceMinor!).toBeGreaterThan(0);
    expect(mortgage.currentBalanceMinor!).toBeLessThan(mortgageLiability.originationPrincipalMinor!);
  });

  it("has recurring streams: payroll in, subscriptions/housing/utilities out, one with a price change", () => {
    const streams = [...platypus().recurringStreams, ...tartan().recurringStreams];
    const payroll = streams.find((s) => s.direction === "inflow" && s.category === "income")!;
    expect(payroll.frequency).toBe("biweekly");
    for (const category of ["subscriptions", "housing", "utilities"]) {
      expect(streams.some((s) => s.direction === "outflow" && s.category === category)).toBe(true);
    }
    const streamflix = streams.find((s) => s.merchantName === "Streamflix")!;
    expect(streamflix.lastAmountMinor).not.toBe(streamflix.averageAmountMinor);
    for (const s of streams) {
      expect(s.predictedNextDate! > s.lastDate).toBe(true);
      expect(s.transactionIds.length).toBeGreaterThan(0);
    }
  });
});

describe("sandbox consistency", () => {
  it("moves each balance by exactly the transactions posted in between", () => {
    const later = new Date(NOW.getTime() + 45 * dayMs);
    for (const institution of ["ins_platypus", "ins_tartan"]) {
      const before = generateSandboxData(SEED, institution, NOW);
      const after = generateSandboxData(SEED, institution, later);
      for (const account of after.accounts) {
        if (account.type !== "depository" && account.type !== "credit") continue;
        const prior = before.accounts.find((a) => a.providerAccountId === account.providerAccountId)!;
        const posted = after.transactions
          .filter(
            (t) => t.providerAccountId === account.providerAccountId && !t.pending && t.date > before.asOf,
          )
          .reduce((s, t) => s + t.amountMinor, 0);
        const sign = account.type === "credit" ? -1 : 1;
        expect(account.currentBalanceMinor! - prior.currentBalanceMinor!).toBe(sign * posted);
      }
    }
  });

  it("keeps available = current minus pending outflows (and the limit for cards)", () => {
    const data = platypus();
    for (const account of data.accounts) {
      if (account.type !== "depository" && account.type !== "credit") continue;
      const pendingOut = data.transactions
        .filter((t) => t.providerAccountId === account.providerAccountId && t.pending && t.amountMinor < 0)
        .reduce((s, t) => s + t.amountMinor, 0);
      const expected =
        account.type === "credit"
          ? account.limitMinor! - account.currentBalanceMinor! + pendingOut
          : account.currentBalanceMinor! + pendingOut;
      expect(account.availableBalanceMinor).toBe(expected);
    }
  });

  it("diffs days like /transactions/sync: the view on day A plus the changes A→B is the view on day B", () => {
    // Day A: a day on which a transaction is posted but not yet cleaned up, so A→B has all three kinds.
    const data = platypus();
    const revised = data.lifecycles.filter(
      (t) => t.revision && t.revision.date <= "2026-06-30" && t.postedDate >= "2026-05-01",
    );
    const a = dayNumber(revised[0]!.postedDate);
    const b = dayNumber("2026-06-30");
    const world = buildSandboxWorld(SEED, "ins_platypus", b);
    const start = dayNumber("2024-07-01");
    const view = new Map<string, ProviderTransaction>(
      transactionsOn(world, start, a).map((t) => [t.providerTransactionId, t]),
    );
    const changes = diffTransactions(world, start, a, b);
    const kinds = new Set(changes.map((c) => c.kind));
    expect(kinds).toEqual(new Set(["added", "modified", "removed"]));
    for (const change of changes) {
      if (change.kind === "removed") view.delete(change.removed!.providerTransactionId);
      else view.set(change.transaction!.providerTransactionId, change.transaction!);
    }
    const expected = transactionsOn(world, start, b);
    expect(view.size).toBe(expected.length);
    for (const t of expected) expect(view.get(t.providerTransactionId)).toEqual(t);
  });
});
