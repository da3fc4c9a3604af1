import { describe, expect, it } from "vitest";
import {
  mapAccount,
  mapHolding,
  mapInvestmentTransaction,
  mapLiabilities,
  mapRecurringStream,
  mapTransaction,
  toDecimalString,
} from "@/lib/banking/plaid/map";
import { categoryKind } from "@/lib/finance/categories";
import {
  ACCOUNT_IDS,
  isOwnTransferPlaid,
  plaidAccounts,
  plaidItemData,
  plaidTransactions,
} from "@/tests/fixtures/plaid-data";

/** Cents from a decimal string, by string arithmetic (independent of toMinorUnits' float path). */
function centsOf(amount: number): number {
  const [whole, frac = ""] = Math.abs(amount).toFixed(2).split(".");
  return Math.sign(amount) * (Number(whole) * 100 + Number(frac.padEnd(2, "0")));
}

describe("Plaid → our money", () => {
  it("keeps decimal strings exact", () => {
    expect(toDecimalString(100.5)).toBe("100.5");
    expect(toDecimalString(1e-7)).toBe("0.0000001");
    expect(toDecimalString(50)).toBe("50");
  });

  it("negates Plaid's transaction sign, so money out is negative, to the cent", () => {
    for (const t of plaidTransactions) {
      const mapped = mapTransaction(t);
      expect(mapped.amountMinor).toBe(-centsOf(t.amount));
      expect(mapped.providerTransactionId).toBe(t.transaction_id);
      expect(mapped.pending).toBe(t.pending);
    }
    const rent = mapTransaction(plaidTransactions.find((t) => t.transaction_id === "tx-rent")!);
    expect(rent.amountMinor).toBeLessThan(0);
    const pay = mapTransaction(plaidTransactions.find((t) => t.transaction_id === "tx-pay-1")!);
    expect(pay.amountMinor).toBeGreaterThan(0);
    expect(categoryKind(pay.category)).toBe("income");
  });

  it("flags exactly the movements between own accounts (both legs, card payments included) as transfers", () => {
    for (const t of plaidTransactions) {
      expect(mapTransaction(t).isTransfer, t.transaction_id).toBe(isOwnTransferPlaid(t));
    }
    const legs = plaidTransactions.filter(isOwnTransferPlaid).map((t) => mapTransaction(t).amountMinor);
    // Each movement appears on both sides: the legs cancel out.
    expect(legs.reduce((a, b) => a + b, 0)).toBe(0);
    expect(legs.length).toBe(4);
  });

  it("keeps a refund in the category it refunds, as money in (so it lowers spending, never income)", () => {
    const shop = mapTransaction(plaidTransactions.find((t) => t.transaction_id === "tx-shop")!);
    const refund = mapTransaction(plaidTransactions.find((t) => t.transaction_id === "tx-refund")!);
    expect(refund.category).toBe(shop.category);
    expect(categoryKind(refund.category)).toBe("spending");
    expect(refund.amountMinor).toBe(4599);
    expect(shop.amountMinor + refund.amountMinor).toBe(-10000);
  });

  it("keeps credit and loan balances as positive amounts owed and maps account types", () => {
    for (const a of plaidAccounts) {
      const mapped = mapAccount(a);
      expect(mapped.currentBalanceMinor).toBe(centsOf(a.balances.current ?? 0));
      expect(mapped.type).toBe(a.type);
      if (a.type === "credit" || a.type === "loan") expect(mapped.currentBalanceMinor).toBeGreaterThan(0);
    }
    const card = mapAccount(plaidAccounts.find((a) => a.account_id === ACCOUNT_IDS.card)!);
    expect(card.limitMinor).toBe(500000);
    expect(mapAccount({ ...plaidAccounts[0]!, type: "brokerage" }).type).toBe("investment");
    expect(mapAccount({ ...plaidAccounts[0]!, type: "payroll" }).type).toBe("other");
  });

  it("reads each amount in the minor units of its own currency (JPY 0, USD 2, KWD 3 decimals)", () => {
    const base = plaidTransactions[0]!;
    expect(mapTransaction({ ...base, amount: 1234, iso_currency_code: "JPY" })).toMatchObject({
      amountMinor: -1234,
      currency: "JPY",
    });
    expect(mapTransaction({ ...base, amount: -1.234, iso_currency_code: "KWD" }).amountMinor).toBe(1234);
    expect(
      mapTransaction({ ...base, amount: 0.5, iso_currency_code: null, unofficial_currency_code: "BTC" }),
    ).toMatchObject({ amountMinor: -50, currency: "BTC" });
    const account = mapAccount({
      ...plaidAccounts[0]!,
      balances: { current: 250000, available: 240000, limit: null, iso_currency_code: "JPY" },
    });
    expect(account).toMatchObject({
      currency: "JPY",
      currentBalanceMinor: 250000,
      availableBalanceMinor: 240000,
    });
    const [card] = mapLiabilities(
      { credit: [{ account_id: "c", minimum_payment_amount: 25.5, last_statement_balance: 1000.125 }] },
      (id) => (id === "c" ? "KWD" : "USD"),
    );
    expect(card).toMatchObject({ minimumPaymentMinor: 25500, lastStatementBalanceMinor: 1000125 });
  });

  it("maps liabilities: the purchase APR, minimum payments, overdue from past_due_amount", () => {
    const rows = mapLiabilities(plaidItemData().liabilities!, () => "USD");
    const byKind = Object.fromEntries(rows.map((r) => [r.kind, r]));
    expect(rows).toHaveLength(3);
    expect(byKind.credit).toMatchObject({
      providerAccountId: ACCOUNT_IDS.card,
      aprPercentage: "24.99",
      minimumPaymentMinor: 3500,
      lastStatementBalanceMinor: 118012,
      nextPaymentDueDate: "2026-11-07",
      isOverdue: false,
    });
    expect(byKind.mortgage).toMatchObject({
      aprPercentage: "6.125",
      minimumPaymentMinor: 140000,
      originationPrincipalMinor: 30000000,
      maturityDate: "2052-01-01",
      isOverdue: false,
    });
    expect(byKind.student).toMatchObject({
      aprPercentage: "5.5",
      minimumPaymentMinor: 21033,
      isOverdue: true,
    });
    const overdue = mapLiabilities(
      { mortgage: [{ account_id: "m", interest_rate: { percentage: 5 }, past_due_amount: 12.5 }] },
      () => "USD",
    );
    expect(overdue[0]?.isOverdue).toBe(true);
  });

  it("negates investment cash flows: a buy is money out, a dividend or sale money in", () => {
    const data = plaidItemData();
    const mapped = Object.fromEntries(
      data.investment_transactions!.map((t) => [t.investment_transaction_id, mapInvestmentTransaction(t)]),
    );
    expect(mapped["inv-buy"]).toMatchObject({
      type: "buy",
      amountMinor: -240000,
      quantity: "10",
      price: "240",
    });
    expect(mapped["inv-div"]).toMatchObject({ type: "dividend", amountMinor: 4567 });
    expect(mapped["inv-sell"]).toMatchObject({ type: "sell", amountMinor: 97500, feesMinor: 100 });
    const holding = mapHolding(data.holdings![0]!);
    expect(holding).toMatchObject({
      quantity: "100.5",
      price: "245.12",
      valueMinor: 2463456,
      costBasisMinor: 2000000,
    });
  });

  it("maps recurring streams to magnitudes with a direction and skips UNKNOWN frequencies", () => {
    const data = plaidItemData();
    const inflow = data.inflow_streams!.map((s) => mapRecurringStream(s, "inflow"));
    const outflow = data.outflow_streams!.map((s) => mapRecurringStream(s, "outflow"));
    expect(inflow[0]).toMatchObject({
      frequency: "semi_monthly",
      averageAmountMinor: 320000,
      category: "income",
    });
    expect(outflow.find((s) => s?.providerStreamId === "st-netflix")).toMatchObject({
      merchantName: "Netflix",
      averageAmountMinor: 1499,
      lastAmountMinor: 1549,
      category: "subscriptions",
    });
    expect(outflow.find((s) => s?.providerStreamId === "st-rent")?.merchantName).toBe(
      "OAKWOOD APARTMENTS RENT",
    );
    expect(outflow.filter((s) => s === null)).toHaveLength(1);
  });
});
