/**
 * The sandbox institutions and what happens at each of them day by day. Everything here is
 * synthetic: names are invented, amounts are drawn from the seeded PRNG of the simulation.
 *
 * - First Platypus Bank: checking (paychecks, mortgage, utilities, coffee that gets its merchant
 *   cleaned up a day later), savings (autosave, sweeps, interest), a rewards card paid in full
 *   (groceries, restaurants with tips, shopping with refunds, subscriptions with a price rise,
 *   travel with foreign fees) and the mortgage.
 * - Tartan Credit Union: checking (transfers in from Platypus, side income, student-loan
 *   payments, overdraft fees), a card that carries a balance (interest, the odd late fee) and
 *   the student loan.
 * - Houndstooth Investments: brokerage, 401(k) and Roth IRA (buys, sells, dividends).
 * - Heavy Ledger Bank (hidden): ten busy accounts and five years, for the benchmark.
 * - Kranich Global Bank (hidden): a euro current account and card and a yen account, for the
 *   multi-currency demo (amounts in minor units of each account's currency: cents, whole yen).
 */
import type { CategoryId } from "@/lib/finance/categories";
import { addMonths, dayFromYmd, daysInMonth, Rng, weekdayOf, ymdOf } from "./calendar";
import {
  type AccountSpec,
  CASH_SECURITY_ID,
  type CardSpec,
  type LoanPayment,
  type LoanSpec,
  type SecuritySpec,
  type Simulation,
} from "./engine";

/** Facts about the synthetic person, shared by all their sandbox banks (derived from the seed alone). */
export interface Person {
  employer: string;
  netPayMinor: number;
  masks: () => string;
}

export interface SandboxProfile {
  institutionId: string;
  name: string;
  /** Not offered in the connect screen (the benchmark's heavy bank). */
  hidden: boolean;
  /** How far back the first sync reaches. */
  historyMonths: number;
  /** Fixed first day of the simulation. */
  epochDay: number;
  accounts(person: Person): AccountSpec[];
  cards: CardSpec[];
  loans: LoanSpec[];
  securities: SecuritySpec[];
  setup(sim: Simulation, person: Person): void;
  onDay(sim: Simulation, day: number, person: Person, schedules: Map<string, LoanPayment[]>): void;
}

export function personOf(seed: string): Person {
  const rng = new Rng(`person|${seed}`);
  const maskRng = new Rng(`masks|${seed}`);
  return {
    employer: rng.pick(["Acme Widgets", "Globex Logistics", "Initech Software", "Umbrella Health"]),
    netPayMinor: rng.cents(3_050, 3_350),
    masks: () => String(maskRng.int(0, 9999)).padStart(4, "0"),
  };
}

const EPOCH_2019 = dayFromYmd(2019, 1, 1);
/** A Friday: biweekly paydays fall on it and every 14 days after. */
const PAYDAY_ANCHOR = dayFromYmd(2019, 1, 4);

const isPayday = (day: number) => (day - PAYDAY_ANCHOR) % 14 === 0;

/** Streamflix's monthly price: $10.49 at the start, +$2.50 every 16 months ($15.49 → $17.99 …). */
export function streamflixPriceMinor(day: number): number {
  const { year, month } = ymdOf(day);
  const monthsSince2019 = (year - 2019) * 12 + (month - 1);
  return 1_049 + 250 * Math.floor(Math.max(0, monthsSince2019) / 16);
}

const GROCERS = ["Whole Paycheck Market", "Trader Jon's", "Safeway Fresh", "Green Basket Co-op"];
const RESTAURANTS = [
  "Luigi's Trattoria",
  "The Copper Pot",
  "Sakura Sushi",
  "Taqueria El Sol",
  "Blue Door Bistro",
];
const FAST_FOOD = ["Chipotle", "Sweetgreen", "Shake Shack"];
const SHOPS = ["Amazon.com", "Target", "REI", "Best Buy", "IKEA", "Uniqlo"];

// ───────────────────────────── First Platypus Bank ─────────────────────────────

const P = {
  checking: "plat_checking",
  savings: "plat_savings",
  card: "plat_card",
  mortgage: "plat_mortgage",
};

const platypusCard: CardSpec = {
  accountId: P.card,
  aprPercentage: "22.99",
  closeDayOfMonth: 25,
  dueDaysAfterClose: 25,
  payFromAccountId: P.checking,
  paymentDelayDays: 20,
  pays: "full",
  missChance: 0,
  paymentName: "PLATYPUS CARD AUTOPAY",
  cardPaymentName: "AUTOPAY PAYMENT - THANK YOU",
};

const platypusMortgage: LoanSpec = {
  accountId: P.mortgage,
  kind: "mortgage",
  principalMinor: 38_500_000,
  aprPercentage: "6.125",
  termMonths: 360,
  originationDay: dayFromYmd(2021, 6, 15),
  paymentDayOfMonth: 1,
  escrowMinor: 48_000,
  payFromAccountId: P.checking,
  name: "FIRST PLATYPUS MORTGAGE PMT",
  merchantName: "First Platypus Mortgage",
  category: "housing",
  streamId: "stream_mortgage",
  servicer: "First Platypus Home Loans",
};

const platypus: SandboxProfile = {
  institutionId: "ins_platypus",
  name: "First Platypus Bank",
  hidden: false,
  historyMonths: 24,
  epochDay: EPOCH_2019,
  accounts: (person) => [
    {
      id: P.checking,
      name: "Everyday Checking",
      officialName: "First Platypus Everyday Checking",
      mask: person.masks(),
      type: "depository",
      subtype: "checking",
      limitMinor: null,
      openingMinor: 320_000,
    },
    {
      id: P.savings,
      name: "High-Yield Savings",
      officialName: "First Platypus High-Yield Savings",
      mask: person.masks(),
      type: "depository",
      subtype: "savings",
      limitMinor: null,
      openingMinor: 1_200_000,
    },
    {
      id: P.card,
      name: "Platypus Rewards Visa",
      officialName: "First Platypus Rewards Visa Signature",
      mask: person.masks(),
      type: "credit",
      subtype: "credit card",
      limitMinor: 1_500_000,
      openingMinor: 0,
    },
    {
      id: P.mortgage,
      name: "Home Mortgage",
      officialName: "First Platypus 30-Year Fixed Mortgage",
      mask: person.masks(),
      type: "loan",
      subtype: "mortgage",
      limitMinor: null,
      openingMinor: 0,
    },
  ],
  cards: [platypusCard],
  loans: [platypusMortgage],
  securities: [],
  setup(sim, person) {
    const stream = (
      id: string,
      accountId: string,
      merchantName: string,
      category: CategoryId,
      frequency: "monthly" | "biweekly" | "annually",
      direction: "inflow" | "outflow" = "outflow",
    ) =>
      sim.addStream({
        id,
        accountId,
        merchantName,
        description: merchantName,
        category,
        frequency,
        direction,
      });
    stream("stream_payroll", P.checking, person.employer, "income", "biweekly", "inflow");
    stream("stream_rent", P.checking, "Maple Street Apartments", "housing", "monthly");
    stream("stream_mortgage", P.checking, "First Platypus Mortgage", "housing", "monthly");
    stream("stream_electric", P.checking, "Metro Power & Light", "utilities", "monthly");
    stream("stream_water", P.checking, "City Water Dept", "utilities", "monthly");
    stream("stream_insurance", P.checking, "Gecko Auto Insurance", "insurance", "monthly");
    stream("stream_gym", P.checking, "FitHub Gym", "personal_care", "monthly");
    stream("stream_phone", P.card, "Parrot Wireless", "utilities", "monthly");
    stream("stream_streamflix", P.card, "Streamflix", "subscriptions", "monthly");
    stream("stream_tunely", P.card, "Tunely Music", "subscriptions", "monthly");
    stream("stream_cloudvault", P.card, "CloudVault Storage", "subscriptions", "monthly");
    stream("stream_news", P.card, "Daily Ledger News", "subscriptions", "annually");
    stream("stream_transit", P.card, "Metro Transit", "transportation", "monthly");
  },
  onDay(sim, day, person, schedules) {
    const { rng } = sim;
    const { year, month, dayOfMonth } = ymdOf(day);
    const weekday = weekdayOf(day);
    const card = (input: Omit<Parameters<Simulation["emit"]>[0], "accountId" | "day">) =>
      sim.emit({ accountId: P.card, day, pendingDays: input.pendingDays ?? rng.int(1, 2), ...input });

    // Income: biweekly paychecks (a 3% raise each January) and a March bonus.
    if (isPayday(day)) {
      const amount = Math.round(person.netPayMinor * 1.03 ** (year - 2019));
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: amount,
        name: `${person.employer.toUpperCase()} PAYROLL PPD`,
        merchantName: person.employer,
        category: "income",
        streamId: "stream_payroll",
      });
    }
    if (month === 3 && dayOfMonth === 15) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: rng.cents(1_500, 4_500),
        name: `${person.employer.toUpperCase()} BONUS PPD`,
        merchantName: person.employer,
        category: "income",
      });
    }

    // Housing: rent until the mortgage starts, then the mortgage payment (with escrow).
    if (day < platypusMortgage.originationDay && dayOfMonth === 1) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -185_000,
        name: "MAPLE ST APARTMENTS RENT",
        merchantName: "Maple Street Apartments",
        category: "housing",
        streamId: "stream_rent",
      });
    }
    sim.runLoan(platypusMortgage, schedules.get(P.mortgage)!, day);

    // Moving money between own accounts.
    if (dayOfMonth === 2) {
      sim.transfer({
        fromAccountId: P.checking,
        toAccountId: P.savings,
        day,
        amountMinor: 50_000,
        fromName: "AUTOSAVE TRANSFER TO SAVINGS",
        toName: "AUTOSAVE TRANSFER FROM CHECKING",
      });
    }
    if (dayOfMonth === 16 && sim.approxBalance(P.checking) > 900_000) {
      const amount = Math.floor((sim.approxBalance(P.checking) - 600_000) / 10_000) * 10_000;
      sim.transfer({
        fromAccountId: P.checking,
        toAccountId: P.savings,
        day,
        amountMinor: amount,
        fromName: "ONLINE TRANSFER TO SAVINGS",
        toName: "ONLINE TRANSFER FROM CHECKING",
      });
    }
    if (dayOfMonth === 3) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -80_000,
        name: "TRANSFER TO TARTAN CREDIT UNION",
        category: "transfer",
        isTransfer: true,
      });
    }

    // Bills.
    if (dayOfMonth === 12) {
      const seasonal = Math.round(6_000 * Math.cos(((month - 1) / 12) * 2 * Math.PI));
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -(9_500 + seasonal + rng.cents(0, 25)),
        name: "METRO POWER & LIGHT",
        merchantName: "Metro Power & Light",
        category: "utilities",
        streamId: "stream_electric",
      });
    }
    if (dayOfMonth === 20) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -rng.cents(45, 70),
        name: "CITY WATER DEPT BILLPAY",
        merchantName: "City Water Dept",
        category: "utilities",
        streamId: "stream_water",
      });
    }
    if (dayOfMonth === 22) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -12_840,
        name: "GECKO AUTO INSURANCE",
        merchantName: "Gecko Auto Insurance",
        category: "insurance",
        streamId: "stream_insurance",
      });
    }
    if (dayOfMonth === 1) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -3_999,
        name: "FITHUB GYM MEMBERSHIP",
        merchantName: "FitHub Gym",
        category: "personal_care",
        streamId: "stream_gym",
      });
    }

    // Subscriptions and monthly charges on the card.
    const monthly: Array<[number, number, string, string, CategoryId, string]> = [
      [8, 6_500, "PARROT WIRELESS", "Parrot Wireless", "utilities", "stream_phone"],
      [14, streamflixPriceMinor(day), "STREAMFLIX.COM", "Streamflix", "subscriptions", "stream_streamflix"],
      [3, 1_099, "TUNELY MUSIC", "Tunely Music", "subscriptions", "stream_tunely"],
      [9, 299, "CLOUDVAULT STORAGE", "CloudVault Storage", "subscriptions", "stream_cloudvault"],
      [2, 9_800, "METRO TRANSIT PASS", "Metro Transit", "transportation", "stream_transit"],
    ];
    for (const [dom, amount, name, merchant, category, streamId] of monthly) {
      if (dayOfMonth === dom) {
        card({
          amountMinor: -amount,
          name,
          merchantName: merchant,
          category,
          streamId,
          channel: "online",
          pendingDays: 1,
        });
      }
    }
    if (month === 2 && dayOfMonth === 10) {
      card({
        amountMinor: -9_900,
        name: "DAILY LEDGER NEWS ANNUAL",
        merchantName: "Daily Ledger News",
        category: "subscriptions",
        streamId: "stream_news",
        channel: "online",
        pendingDays: 1,
      });
    }

    // Everyday spending.
    if (weekday === 6) {
      const grocer = rng.pick(GROCERS);
      card({
        amountMinor: -rng.cents(70, 190),
        name: grocer.toUpperCase(),
        merchantName: grocer,
        category: "groceries",
        channel: "in store",
      });
    }
    if (weekday === 3 && rng.chance(0.35)) {
      const grocer = rng.pick(GROCERS);
      card({
        amountMinor: -rng.cents(15, 50),
        name: grocer.toUpperCase(),
        merchantName: grocer,
        category: "groceries",
        channel: "in store",
      });
    }
    if (rng.chance(0.3)) {
      if (rng.chance(0.25)) {
        const place = rng.pick(FAST_FOOD);
        card({
          amountMinor: -rng.cents(9, 24),
          name: place.toUpperCase(),
          merchantName: place,
          category: "restaurants",
          channel: "in store",
        });
      } else {
        // The pending authorization is the bill; the posted charge adds the tip (a new id, another amount).
        const place = rng.pick(RESTAURANTS);
        const bill = rng.cents(22, 85);
        const tipped = Math.round(bill * (1 + rng.int(15, 22) / 100));
        card({
          amountMinor: -tipped,
          pendingAmountMinor: -bill,
          name: place.toUpperCase(),
          merchantName: place,
          category: "restaurants",
          channel: "in store",
          pendingDays: rng.int(1, 3),
        });
      }
    }
    if (weekday >= 1 && weekday <= 5 && rng.chance(0.3)) {
      // Card-terminal descriptor first; the bank cleans the merchant name up 1–3 days after posting.
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -rng.cents(4.5, 9.75),
        name: "SQ *BLUE BOTTLE COF 0423",
        merchantName: null,
        category: "restaurants",
        channel: "in store",
        pendingDays: 1,
        revision: {
          afterDays: rng.int(1, 3),
          name: "Blue Bottle Coffee",
          merchantName: "Blue Bottle Coffee",
        },
      });
    }
    if (rng.chance(0.16)) {
      const shop = rng.pick(SHOPS);
      const amount = rng.cents(15, 260);
      const online = shop === "Amazon.com" || rng.chance(0.3);
      card({
        amountMinor: -amount,
        name: shop.toUpperCase(),
        merchantName: shop,
        category: "shopping",
        channel: online ? "online" : "in store",
      });
      if (rng.chance(0.12)) {
        const refund = rng.chance(0.5) ? amount : Math.round((amount * rng.int(20, 80)) / 100);
        sim.emit({
          accountId: P.card,
          day: day + rng.int(6, 20),
          amountMinor: refund,
          name: `RETURN: ${shop.toUpperCase()}`,
          merchantName: shop,
          category: "shopping",
          channel: online ? "online" : "in store",
          pendingDays: 1,
        });
      }
    }
    if (rng.chance(0.08)) {
      card({
        amountMinor: -rng.cents(9, 38),
        name: "LYFT *RIDE",
        merchantName: "Lyft",
        category: "transportation",
        channel: "online",
      });
    }
    if (rng.chance(0.03)) {
      card({
        amountMinor: -rng.cents(8, 60),
        name: "CVS PHARMACY",
        merchantName: "CVS Pharmacy",
        category: "healthcare",
        channel: "in store",
      });
    }
    if (rng.chance(0.025)) {
      card({
        amountMinor: -rng.cents(25, 45),
        name: "SUPERCUTS",
        merchantName: "Supercuts",
        category: "personal_care",
        channel: "in store",
      });
    }
    if (rng.chance(0.05)) {
      card({
        amountMinor: -rng.cents(12, 40),
        name: "CINEMARK THEATRES",
        merchantName: "Cinemark",
        category: "entertainment",
        channel: "in store",
      });
    }
    if (month === 12 && dayOfMonth >= 5 && dayOfMonth <= 20 && rng.chance(0.2)) {
      card({
        amountMinor: -rng.cents(20, 120),
        name: "ETSY.COM GIFT",
        merchantName: "Etsy",
        category: "gifts_and_donations",
        channel: "online",
      });
    }
    if (month === 12 && dayOfMonth === 28) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -10_000,
        name: "AMERICAN RED CROSS DONATION",
        merchantName: "American Red Cross",
        category: "gifts_and_donations",
      });
    }

    // Travel: a trip in about one month in six, with a foreign transaction fee abroad.
    if (dayOfMonth === 1 && rng.chance(0.17)) {
      const flightDay = day + 7;
      const hotelDay = day + rng.int(20, 24);
      sim.emit({
        accountId: P.card,
        day: flightDay,
        amountMinor: -rng.cents(280, 650),
        name: "SKYWARD AIRLINES",
        merchantName: "Skyward Airlines",
        category: "travel",
        channel: "online",
        pendingDays: 1,
      });
      const hotel = rng.cents(400, 900);
      sim.emit({
        accountId: P.card,
        day: hotelDay,
        amountMinor: -hotel,
        name: "HOTEL LISBOA CENTRO",
        merchantName: "Hotel Lisboa Centro",
        category: "travel",
        channel: "in store",
        pendingDays: 2,
      });
      sim.emit({
        accountId: P.card,
        day: hotelDay + 2,
        amountMinor: -Math.round(hotel * 0.03),
        name: "FOREIGN TRANSACTION FEE",
        category: "fees",
      });
    }

    // Cash and fees.
    if (rng.chance(0.05)) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -rng.int(3, 10) * 2_000,
        name: "ATM WITHDRAWAL 1234 MAIN ST",
        category: "other",
        channel: "in store",
      });
      if (rng.chance(0.4)) {
        sim.emit({
          accountId: P.checking,
          day,
          amountMinor: -350,
          name: "NON-PLATYPUS ATM FEE",
          category: "fees",
        });
      }
    }

    // Taxes: a payment in April or a refund in March.
    if (month === 3 && dayOfMonth === 3 && rng.chance(0.5)) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: rng.cents(200, 1_500),
        name: "IRS TREAS 310 TAX REF",
        merchantName: "IRS",
        category: "taxes",
      });
    } else if (month === 4 && dayOfMonth === 14 && rng.chance(0.5)) {
      sim.emit({
        accountId: P.checking,
        day,
        amountMinor: -rng.cents(300, 1_800),
        name: "IRS USATAXPYMT",
        merchantName: "IRS",
        category: "taxes",
      });
    }

    // Interest on savings at month end (4.10% APY, monthly).
    if (dayOfMonth === daysInMonth(year, month)) {
      const interest = Math.round((sim.approxBalance(P.savings) * 0.041) / 12);
      if (interest > 0) {
        sim.emit({
          accountId: P.savings,
          day,
          amountMinor: interest,
          name: "INTEREST PAYMENT",
          category: "interest_earned",
        });
      }
    }

    sim.runCard(platypusCard, day);

    if (sim.approxBalance(P.checking) < 0 && rng.chance(0.9)) {
      sim.emit({ accountId: P.checking, day, amountMinor: -3_400, name: "OVERDRAFT FEE", category: "fees" });
    }
  },
};

// ───────────────────────────── Tartan Credit Union ─────────────────────────────

const T = { checking: "tartan_checking", card: "tartan_card", student: "tartan_student" };

const tartanCard: CardSpec = {
  accountId: T.card,
  aprPercentage: "24.49",
  closeDayOfMonth: 28,
  dueDaysAfterClose: 25,
  payFromAccountId: T.checking,
  paymentDelayDays: 18,
  pays: { fraction: 0.12 },
  missChance: 0.04,
  paymentName: "TARTAN CU CARD PAYMENT",
  cardPaymentName: "PAYMENT RECEIVED",
};

const tartanStudentLoan: LoanSpec = {
  accountId: T.student,
  kind: "student",
  principalMinor: 4_800_000,
  aprPercentage: "5.05",
  termMonths: 120,
  originationDay: dayFromYmd(2018, 8, 1),
  paymentDayOfMonth: 15,
  escrowMinor: 0,
  payFromAccountId: T.checking,
  name: "TARTAN CU STUDENT LOAN PMT",
  merchantName: "Tartan Student Lending",
  category: "loan_payments",
  streamId: "stream_student_loan",
  servicer: "Tartan Student Lending",
};

const tartan: SandboxProfile = {
  institutionId: "ins_tartan",
  name: "Tartan Credit Union",
  hidden: false,
  historyMonths: 24,
  epochDay: EPOCH_2019,
  accounts: (person) => [
    {
      id: T.checking,
      name: "Share Checking",
      officialName: "Tartan CU Share Checking",
      mask: person.masks(),
      type: "depository",
      subtype: "checking",
      limitMinor: null,
      openingMinor: 140_000,
    },
    {
      id: T.card,
      name: "Platinum Mastercard",
      officialName: "Tartan CU Platinum Mastercard",
      mask: person.masks(),
      type: "credit",
      subtype: "credit card",
      limitMinor: 600_000,
      openingMinor: 280_000,
    },
    {
      id: T.student,
      name: "Student Loan",
      officialName: "Tartan CU Graduate Student Loan",
      mask: person.masks(),
      type: "loan",
      subtype: "student",
      limitMinor: null,
      openingMinor: 0,
    },
  ],
  cards: [tartanCard],
  loans: [tartanStudentLoan],
  securities: [],
  setup(sim) {
    sim.addStream({
      id: "stream_student_loan",
      accountId: T.checking,
      merchantName: "Tartan Student Lending",
      description: "Student loan payment",
      category: "loan_payments",
      frequency: "monthly",
      direction: "outflow",
    });
    sim.addStream({
      id: "stream_internet",
      accountId: T.checking,
      merchantName: "Bytewave Internet",
      description: "Bytewave Internet",
      category: "utilities",
      frequency: "monthly",
      direction: "outflow",
    });
    sim.addStream({
      id: "stream_chewy",
      accountId: T.card,
      merchantName: "Chewy",
      description: "Chewy autoship",
      category: "shopping",
      frequency: "monthly",
      direction: "outflow",
    });
  },
  onDay(sim, day, _person, schedules) {
    const { rng } = sim;
    const { dayOfMonth } = ymdOf(day);
    const weekday = weekdayOf(day);
    if (dayOfMonth === 3) {
      sim.emit({
        accountId: T.checking,
        day,
        amountMinor: 80_000,
        name: "TRANSFER FROM FIRST PLATYPUS BANK",
        category: "transfer",
        isTransfer: true,
      });
    }
    if (weekday === 2 && (day - PAYDAY_ANCHOR - 4) % 14 === 0 && rng.chance(0.75)) {
      sim.emit({
        accountId: T.checking,
        day,
        amountMinor: rng.cents(40, 260),
        name: "ETSY PAYOUT",
        merchantName: "Etsy",
        category: "other_income",
      });
    }
    sim.runLoan(tartanStudentLoan, schedules.get(T.student)!, day);
    if (dayOfMonth === 6) {
      sim.emit({
        accountId: T.checking,
        day,
        amountMinor: -7_999,
        name: "BYTEWAVE INTERNET",
        merchantName: "Bytewave Internet",
        category: "utilities",
        streamId: "stream_internet",
      });
    }
    if (dayOfMonth === 24) {
      sim.emit({
        accountId: T.card,
        day,
        amountMinor: -rng.cents(42, 65),
        name: "CHEWY.COM AUTOSHIP",
        merchantName: "Chewy",
        category: "shopping",
        channel: "online",
        pendingDays: 1,
        streamId: "stream_chewy",
      });
    }
    if (weekday === 1 && rng.chance(0.75)) {
      const station = rng.pick(["Shell", "Chevron"]);
      sim.emit({
        accountId: T.card,
        day,
        amountMinor: -rng.cents(32, 68),
        name: `${station.toUpperCase()} OIL`,
        merchantName: station,
        category: "transportation",
        channel: "in store",
        pendingDays: 1,
      });
    }
    if (rng.chance(0.06)) {
      const shop = rng.pick(["Target", "Home Depot", "Old Navy"]);
      sim.emit({
        accountId: T.card,
        day,
        amountMinor: -rng.cents(12, 140),
        name: shop.toUpperCase(),
        merchantName: shop,
        category: "shopping",
        channel: "in store",
        pendingDays: rng.int(1, 2),
      });
    }
    if (rng.chance(0.012)) {
      sim.emit({
        accountId: T.card,
        day,
        amountMinor: -rng.cents(12, 90),
        name: "UDEMY ONLINE COURSE",
        merchantName: "Udemy",
        category: "education",
        channel: "online",
        pendingDays: 1,
      });
    }
    sim.runCard(tartanCard, day);
    if (rng.chance(1 / 150)) {
      sim.emit({
        accountId: T.checking,
        day,
        amountMinor: -3_500,
        name: "OVERDRAFT ITEM FEE",
        category: "fees",
      });
      if (rng.chance(0.5)) {
        sim.emit({
          accountId: T.checking,
          day: day + 2,
          amountMinor: 3_500,
          name: "OVERDRAFT FEE REFUND",
          category: "fees",
        });
      }
    }
  },
};

// ───────────────────────────── Houndstooth Investments ─────────────────────────────

const H = { brokerage: "hound_brokerage", k401: "hound_401k", ira: "hound_roth_ira" };

const HOUNDSTOOTH_SECURITIES: SecuritySpec[] = [
  {
    id: "sec_vti",
    name: "Vanguard Total Stock Market ETF",
    ticker: "VTI",
    type: "etf",
    basePriceCents: 13_200,
    growth: 0.11,
    quarterlyDividendCents: 78,
    phase: 0.3,
  },
  {
    id: "sec_vxus",
    name: "Vanguard Total International Stock ETF",
    ticker: "VXUS",
    type: "etf",
    basePriceCents: 5_000,
    growth: 0.04,
    quarterlyDividendCents: 41,
    phase: 1.1,
  },
  {
    id: "sec_bnd",
    name: "Vanguard Total Bond Market ETF",
    ticker: "BND",
    type: "etf",
    basePriceCents: 8_000,
    growth: -0.01,
    quarterlyDividendCents: 62,
    phase: 2.0,
  },
  {
    id: "sec_aapl",
    name: "Apple Inc.",
    ticker: "AAPL",
    type: "equity",
    basePriceCents: 3_900,
    growth: 0.24,
    quarterlyDividendCents: 23,
    phase: 0.7,
  },
  {
    id: "sec_tdf2055",
    name: "Houndstooth Target Retirement 2055 Fund",
    ticker: "HTRF55",
    type: "mutual fund",
    basePriceCents: 3_000,
    growth: 0.08,
    quarterlyDividendCents: 0,
    phase: 1.6,
  },
  {
    id: "sec_voo",
    name: "Vanguard S&P 500 ETF",
    ticker: "VOO",
    type: "etf",
    basePriceCents: 23_000,
    growth: 0.12,
    quarterlyDividendCents: 150,
    phase: 0.1,
  },
  {
    id: CASH_SECURITY_ID,
    name: "U.S. Dollar",
    ticker: "CUR:USD",
    type: "cash",
    basePriceCents: 100,
    growth: 0,
    quarterlyDividendCents: 0,
    phase: 0,
  },
];

const houndstooth: SandboxProfile = {
  institutionId: "ins_houndstooth",
  name: "Houndstooth Investments",
  hidden: false,
  historyMonths: 24,
  epochDay: EPOCH_2019,
  accounts: (person) => [
    {
      id: H.brokerage,
      name: "Individual Brokerage",
      officialName: "Houndstooth Individual Brokerage Account",
      mask: person.masks(),
      type: "investment",
      subtype: "brokerage",
      limitMinor: null,
      openingMinor: 0,
    },
    {
      id: H.k401,
      name: `${person.employer} 401(k)`,
      officialName: `${person.employer} 401(k) Savings Plan`,
      mask: person.masks(),
      type: "investment",
      subtype: "401k",
      limitMinor: null,
      openingMinor: 0,
    },
    {
      id: H.ira,
      name: "Roth IRA",
      officialName: "Houndstooth Roth IRA",
      mask: person.masks(),
      type: "investment",
      subtype: "roth",
      limitMinor: null,
      openingMinor: 0,
    },
  ],
  cards: [],
  loans: [],
  securities: HOUNDSTOOTH_SECURITIES,
  setup(sim) {
    const day = EPOCH_2019;
    sim.contribute(H.brokerage, day, 3_000_000, "ACCOUNT TRANSFER IN");
    sim.buy(H.brokerage, "sec_vti", day, 1_200_000);
    sim.buy(H.brokerage, "sec_vxus", day, 600_000);
    sim.buy(H.brokerage, "sec_bnd", day, 500_000);
    sim.buy(H.brokerage, "sec_aapl", day, 300_000);
    sim.contribute(H.k401, day, 4_500_000, "ROLLOVER CONTRIBUTION");
    sim.buy(H.k401, "sec_tdf2055", day, 4_500_000);
    sim.contribute(H.ira, day, 2_000_000, "ACCOUNT TRANSFER IN");
    sim.buy(H.ira, "sec_voo", day, 1_950_000);
  },
  onDay(sim, day) {
    const { year, month, dayOfMonth } = ymdOf(day);
    if (dayOfMonth === 5) {
      sim.contribute(H.brokerage, day, 50_000, "ACH DEPOSIT FROM FIRST PLATYPUS");
      sim.buy(H.brokerage, "sec_vti", day, 45_000);
    }
    if (isPayday(day)) {
      sim.contribute(H.k401, day, 65_000, "PAYROLL CONTRIBUTION (EMPLOYEE + MATCH)");
      sim.buy(H.k401, "sec_tdf2055", day, 65_000);
    }
    if (month === 1 && dayOfMonth === 15) {
      sim.contribute(H.ira, day, 700_000, "ROTH IRA CONTRIBUTION");
      sim.buy(H.ira, "sec_voo", day, 690_000);
    }
    if (dayOfMonth === 24 && month % 3 === 0) {
      sim.payDividends(H.brokerage, day);
      sim.payDividends(H.ira, day);
    }
    if (dayOfMonth === 26 && month % 3 === 0) {
      // Dividends in the IRA are reinvested two days later.
      const cash = sim.investmentCash.get(H.ira) ?? 0;
      if (cash > 50_000) sim.buy(H.ira, "sec_voo", day, cash - 5_000);
    }
    if (dayOfMonth === 10 && ((year - 2019) * 12 + month) % 11 === 0) {
      sim.sell(H.brokerage, "sec_aapl", day, 50_000);
    }
  },
};

// ───────────────────────────── Heavy Ledger Bank (benchmark) ─────────────────────────────

const HEAVY_MERCHANTS: Array<[string, CategoryId, number, number, "online" | "in store"]> = [
  ["Whole Paycheck Market", "groceries", 20, 160, "in store"],
  ["Trader Jon's", "groceries", 15, 120, "in store"],
  ["Corner Deli", "restaurants", 6, 22, "in store"],
  ["Luigi's Trattoria", "restaurants", 25, 110, "in store"],
  ["Sakura Sushi", "restaurants", 18, 80, "in store"],
  ["Blue Bottle Coffee", "restaurants", 4, 12, "in store"],
  ["Amazon.com", "shopping", 8, 180, "online"],
  ["Target", "shopping", 10, 140, "in store"],
  ["Best Buy", "shopping", 20, 400, "in store"],
  ["Office Depot", "shopping", 8, 90, "in store"],
  ["Shell", "transportation", 30, 75, "in store"],
  ["Lyft", "transportation", 8, 45, "online"],
  ["Metro Parking", "transportation", 3, 25, "in store"],
  ["Skyward Airlines", "travel", 120, 700, "online"],
  ["Roadside Inn", "travel", 90, 260, "in store"],
  ["Cinemark", "entertainment", 10, 45, "in store"],
  ["Steam Games", "entertainment", 5, 60, "online"],
  ["CVS Pharmacy", "healthcare", 6, 70, "in store"],
  ["City Dental", "healthcare", 40, 300, "in store"],
  ["Supercuts", "personal_care", 20, 45, "in store"],
  ["Udemy", "education", 12, 90, "online"],
  ["Parrot Wireless", "utilities", 30, 90, "online"],
  ["Chewy", "shopping", 15, 80, "online"],
  ["Etsy", "gifts_and_donations", 10, 90, "online"],
];

const heavyCards: CardSpec[] = [1, 2, 3, 4].map((k) => ({
  accountId: `heavy_card_${k}`,
  aprPercentage: (18.99 + k).toFixed(2),
  closeDayOfMonth: 5 + (k - 1) * 7,
  dueDaysAfterClose: 25,
  payFromAccountId: `heavy_checking_${k}`,
  paymentDelayDays: 20,
  pays: "full" as const,
  missChance: 0,
  paymentName: `HEAVY CARD ${k} AUTOPAY`,
  cardPaymentName: "AUTOPAY PAYMENT - THANK YOU",
}));

const heavy: SandboxProfile = {
  institutionId: "ins_heavy",
  name: "Heavy Ledger Bank",
  hidden: true,
  historyMonths: 62,
  epochDay: dayFromYmd(2020, 1, 1),
  accounts: (person) => [
    ...[1, 2, 3, 4].map((k) => ({
      id: `heavy_checking_${k}`,
      name: `Operating Checking ${k}`,
      officialName: `Heavy Ledger Operating Checking ${k}`,
      mask: person.masks(),
      type: "depository" as const,
      subtype: "checking",
      limitMinor: null,
      openingMinor: 2_000_000,
    })),
    ...[1, 2].map((k) => ({
      id: `heavy_savings_${k}`,
      name: `Reserve Savings ${k}`,
      officialName: `Heavy Ledger Reserve Savings ${k}`,
      mask: person.masks(),
      type: "depository" as const,
      subtype: "savings",
      limitMinor: null,
      openingMinor: 5_000_000,
    })),
    ...[1, 2, 3, 4].map((k) => ({
      id: `heavy_card_${k}`,
      name: `Business Card ${k}`,
      officialName: `Heavy Ledger Business Card ${k}`,
      mask: person.masks(),
      type: "credit" as const,
      subtype: "credit card",
      limitMinor: 6_000_000,
      openingMinor: 0,
    })),
  ],
  cards: heavyCards,
  loans: [],
  securities: [],
  setup(sim, person) {
    sim.addStream({
      id: "stream_payroll",
      accountId: "heavy_checking_1",
      merchantName: person.employer,
      description: "Payroll",
      category: "income",
      frequency: "biweekly",
      direction: "inflow",
    });
    sim.addStream({
      id: "stream_rent",
      accountId: "heavy_checking_1",
      merchantName: "Harbor View Lofts",
      description: "Rent",
      category: "housing",
      frequency: "monthly",
      direction: "outflow",
    });
    sim.addStream({
      id: "stream_streamflix",
      accountId: "heavy_card_1",
      merchantName: "Streamflix",
      description: "Streamflix",
      category: "subscriptions",
      frequency: "monthly",
      direction: "outflow",
    });
  },
  onDay(sim, day, person) {
    const { rng } = sim;
    const { year, month, dayOfMonth } = ymdOf(day);
    const purchase = (accountId: string, small: boolean) => {
      const [merchant, category, min, max, channel] = rng.pick(HEAVY_MERCHANTS);
      const amount = rng.cents(min, small ? Math.min(max, min + 40) : max);
      sim.emit({
        accountId,
        day,
        amountMinor: -amount,
        name: merchant.toUpperCase(),
        merchantName: merchant,
        category,
        channel,
        pendingDays: rng.chance(0.7) ? rng.int(1, 2) : 0,
      });
    };
    for (let k = 1; k <= 4; k++) {
      const purchases = rng.int(6, 12);
      for (let i = 0; i < purchases; i++) purchase(`heavy_card_${k}`, false);
      const debits = rng.int(2, 6);
      for (let i = 0; i < debits; i++) purchase(`heavy_checking_${k}`, true);
      sim.emit({
        accountId: `heavy_checking_${k}`,
        day,
        amountMinor: rng.cents(1_000, 1_300),
        name: "CLIENT PAYMENT ACH",
        merchantName: "Client payments",
        category: "income",
      });
      if (weekdayOf(day) === 1 && sim.approxBalance(`heavy_checking_${k}`) > 3_000_000) {
        sim.transfer({
          fromAccountId: `heavy_checking_${k}`,
          toAccountId: `heavy_savings_${((k - 1) % 2) + 1}`,
          day,
          amountMinor: Math.floor((sim.approxBalance(`heavy_checking_${k}`) - 2_000_000) / 10_000) * 10_000,
          fromName: "SWEEP TO RESERVE SAVINGS",
          toName: "SWEEP FROM OPERATING CHECKING",
        });
      }
    }
    for (const card of heavyCards) sim.runCard(card, day);
    if (isPayday(day)) {
      sim.emit({
        accountId: "heavy_checking_1",
        day,
        amountMinor: Math.round(person.netPayMinor * 1.03 ** (year - 2020)),
        name: "PAYROLL PPD",
        merchantName: person.employer,
        category: "income",
        streamId: "stream_payroll",
      });
    }
    if (dayOfMonth === 1) {
      sim.emit({
        accountId: "heavy_checking_1",
        day,
        amountMinor: -240_000,
        name: "HARBOR VIEW LOFTS RENT",
        merchantName: "Harbor View Lofts",
        category: "housing",
        streamId: "stream_rent",
      });
    }
    if (dayOfMonth === 14) {
      sim.emit({
        accountId: "heavy_card_1",
        day,
        amountMinor: -streamflixPriceMinor(day),
        name: "STREAMFLIX.COM",
        merchantName: "Streamflix",
        category: "subscriptions",
        channel: "online",
        pendingDays: 1,
        streamId: "stream_streamflix",
      });
    }
    if (dayOfMonth === daysInMonth(year, month)) {
      for (const k of [1, 2]) {
        const interest = Math.round((sim.approxBalance(`heavy_savings_${k}`) * 0.035) / 12);
        if (interest > 0)
          sim.emit({
            accountId: `heavy_savings_${k}`,
            day,
            amountMinor: interest,
            name: "INTEREST PAYMENT",
            category: "interest_earned",
          });
      }
    }
    if (rng.chance(0.01)) {
      sim.emit({
        accountId: "heavy_checking_2",
        day,
        amountMinor: -1_500,
        name: "WIRE TRANSFER FEE",
        category: "fees",
      });
    }
  },
};

// ───────────────────────────── Kranich Global Bank (EUR and JPY) ─────────────────────────────

const K = { girokonto: "kranich_eur_checking", card: "kranich_eur_card", yen: "kranich_jpy_checking" };

const kranichCard: CardSpec = {
  accountId: K.card,
  aprPercentage: "14.90",
  closeDayOfMonth: 20,
  dueDaysAfterClose: 22,
  payFromAccountId: K.girokonto,
  paymentDelayDays: 15,
  pays: "full",
  missChance: 0,
  paymentName: "KRANICH VISA ABRECHNUNG",
  cardPaymentName: "ZAHLUNG ERHALTEN - DANKE",
};

/** Whole yen between two amounts (JPY has no minor unit). */
const yen = (sim: Simulation, min: number, max: number) => sim.rng.int(min, max);

const kranich: SandboxProfile = {
  institutionId: "ins_eurobank",
  name: "Kranich Global Bank",
  // Linked by the multi_currency demo state; not offered in the connect screen, where every
  // offered bank is in USD (the sandbox tools suite links them all and checks USD figures).
  hidden: true,
  historyMonths: 24,
  epochDay: EPOCH_2019,
  accounts: (person) => [
    {
      id: K.girokonto,
      name: "Girokonto",
      officialName: "Kranich Girokonto Plus",
      mask: person.masks(),
      type: "depository",
      subtype: "checking",
      limitMinor: null,
      openingMinor: 420_000,
      currency: "EUR",
    },
    {
      id: K.card,
      name: "Kranich Visa",
      officialName: "Kranich Visa Classic",
      mask: person.masks(),
      type: "credit",
      subtype: "credit card",
      limitMinor: 300_000,
      openingMinor: 0,
      currency: "EUR",
    },
    {
      id: K.yen,
      name: "Yen Account",
      officialName: "Kranich Yen Futsu Account",
      mask: person.masks(),
      type: "depository",
      subtype: "checking",
      limitMinor: null,
      openingMinor: 250_000,
      currency: "JPY",
    },
  ],
  cards: [kranichCard],
  loans: [],
  securities: [],
  setup(sim) {
    const stream = (
      id: string,
      accountId: string,
      merchantName: string,
      category: CategoryId,
      direction: "inflow" | "outflow" = "outflow",
    ) =>
      sim.addStream({
        id,
        accountId,
        merchantName,
        description: merchantName,
        category,
        frequency: "monthly",
        direction,
      });
    stream("stream_eur_salary", K.girokonto, "Lindwurm GmbH", "income", "inflow");
    stream("stream_eur_power", K.girokonto, "Stadtwerke Nord", "utilities");
    stream("stream_eur_music", K.card, "Tunely Music", "subscriptions");
    stream("stream_jpy_phone", K.yen, "Sakura Mobile", "utilities");
    stream("stream_jpy_fees", K.yen, "Tsubame Translations", "other_income", "inflow");
  },
  onDay(sim, day) {
    const { rng } = sim;
    const { dayOfMonth } = ymdOf(day);
    const card = (input: Omit<Parameters<Simulation["emit"]>[0], "accountId" | "day">) =>
      sim.emit({ accountId: K.card, day, pendingDays: 1, ...input });

    // Euros: a monthly salary, the power bill, a music subscription on the card, groceries and
    // shopping on the card (with the odd return), the card paid in full from the Girokonto.
    if (dayOfMonth === 1) {
      sim.emit({
        accountId: K.girokonto,
        day,
        amountMinor: 265_000,
        name: "LINDWURM GMBH GEHALT",
        merchantName: "Lindwurm GmbH",
        category: "income",
        streamId: "stream_eur_salary",
      });
    }
    if (dayOfMonth === 8) {
      sim.emit({
        accountId: K.girokonto,
        day,
        amountMinor: -rng.cents(62, 96),
        name: "STADTWERKE NORD LASTSCHRIFT",
        merchantName: "Stadtwerke Nord",
        category: "utilities",
        streamId: "stream_eur_power",
      });
    }
    if (dayOfMonth === 12) {
      card({
        amountMinor: -1_099,
        name: "TUNELY MUSIC",
        merchantName: "Tunely Music",
        category: "subscriptions",
        channel: "online",
        streamId: "stream_eur_music",
      });
    }
    if (rng.chance(0.3)) {
      card({
        amountMinor: -rng.cents(9, 88),
        name: "REWE MARKT",
        merchantName: "REWE",
        category: "groceries",
        channel: "in store",
      });
    }
    if (rng.chance(0.06)) {
      const amount = rng.cents(25, 180);
      card({
        amountMinor: -amount,
        name: "ZALANDO SE",
        merchantName: "Zalando",
        category: "shopping",
        channel: "online",
      });
      if (rng.chance(0.35)) {
        sim.emit({
          accountId: K.card,
          day: day + rng.int(5, 15),
          amountMinor: amount,
          name: "RUECKERSTATTUNG ZALANDO SE",
          merchantName: "Zalando",
          category: "shopping",
          channel: "online",
          pendingDays: 1,
        });
      }
    }
    sim.runCard(kranichCard, day);

    // Between own accounts, across currencies: euros out of the Girokonto, yen into the yen
    // account (each leg in its own account's currency; both are transfers).
    if (dayOfMonth === 20) {
      sim.emit({
        accountId: K.girokonto,
        day,
        amountMinor: -30_000,
        name: "UEBERWEISUNG AN YEN-KONTO",
        category: "transfer",
        isTransfer: true,
      });
      sim.emit({
        accountId: K.yen,
        day: day + 1,
        amountMinor: yen(sim, 46_000, 50_000),
        name: "TRANSFER FROM GIROKONTO",
        category: "transfer",
        isTransfer: true,
      });
    }

    // Yen: translation fees, the phone bill, convenience stores, train fares, and a clothes
    // shop whose purchases are sometimes returned.
    if (dayOfMonth === 15) {
      sim.emit({
        accountId: K.yen,
        day,
        amountMinor: yen(sim, 30_000, 60_000),
        name: "TSUBAME TRANSLATIONS FEE",
        merchantName: "Tsubame Translations",
        category: "other_income",
        streamId: "stream_jpy_fees",
      });
    }
    if (dayOfMonth === 25) {
      sim.emit({
        accountId: K.yen,
        day,
        amountMinor: -3_980,
        name: "SAKURA MOBILE",
        merchantName: "Sakura Mobile",
        category: "utilities",
        streamId: "stream_jpy_phone",
      });
    }
    if (rng.chance(0.4)) {
      sim.emit({
        accountId: K.yen,
        day,
        amountMinor: -yen(sim, 180, 2_400),
        name: "LAWSON",
        merchantName: "Lawson",
        category: "groceries",
        channel: "in store",
        pendingDays: 1,
      });
    }
    if (rng.chance(0.12)) {
      sim.emit({
        accountId: K.yen,
        day,
        amountMinor: -yen(sim, 170, 1_320),
        name: "JR EAST SUICA",
        merchantName: "JR East",
        category: "transportation",
      });
    }
    if (rng.chance(0.05)) {
      const amount = yen(sim, 1_990, 12_900);
      sim.emit({
        accountId: K.yen,
        day,
        amountMinor: -amount,
        name: "UNIQLO GINZA",
        merchantName: "Uniqlo",
        category: "shopping",
        channel: "in store",
        pendingDays: 1,
      });
      if (rng.chance(0.4)) {
        sim.emit({
          accountId: K.yen,
          day: day + rng.int(3, 12),
          amountMinor: amount,
          name: "UNIQLO GINZA RETURN",
          merchantName: "Uniqlo",
          category: "shopping",
          channel: "in store",
        });
      }
    }
  },
};

export const SANDBOX_PROFILES: readonly SandboxProfile[] = [platypus, tartan, houndstooth, heavy, kranich];

export function getSandboxProfile(institutionId: string): SandboxProfile | undefined {
  return SANDBOX_PROFILES.find((p) => p.institutionId === institutionId);
}

/** Start of the first sync's history window for `asOfDay`. */
export function historyStartDay(profile: SandboxProfile, asOfDay: number): number {
  return Math.max(profile.epochDay, addMonths(asOfDay, -profile.historyMonths) + 1);
}
