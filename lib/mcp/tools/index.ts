/** The registry of the 12 tools, in product.md's order. */
import type { ToolDefinition } from "../define-tool";
import { findUnusualActivityTool } from "./find-unusual-activity";
import { getCashFlowTool } from "./get-cash-flow";
import { getConnectionStatusTool } from "./get-connection-status";
import { getFinancialOverviewTool } from "./get-financial-overview";
import { getInvestmentsTool } from "./get-investments";
import { getLiabilitiesTool } from "./get-liabilities";
import { getNetWorthTool } from "./get-net-worth";
import { getSpendingBreakdownTool } from "./get-spending-breakdown";
import { getUpcomingBillsTool } from "./get-upcoming-bills";
import { listAccountsTool } from "./list-accounts";
import { listRecurringTool } from "./list-recurring";
import { searchTransactionsTool } from "./search-transactions";

const tools = [
  getFinancialOverviewTool,
  listAccountsTool,
  searchTransactionsTool,
  getSpendingBreakdownTool,
  getCashFlowTool,
  listRecurringTool,
  getUpcomingBillsTool,
  getInvestmentsTool,
  getLiabilitiesTool,
  getNetWorthTool,
  findUnusualActivityTool,
  getConnectionStatusTool,
];

export const allTools: ToolDefinition[] = tools;
