/**
 * The six prompts (product.md) and `registerPrompts`. Prompts need no data access, so they work
 * in every subscription state: listing and fetching them only returns instructions.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { debtPayoffPlan } from "./debt-payoff-plan";
import type { PromptDefinition } from "./define-prompt";
import { fixBankConnections } from "./fix-bank-connections";
import { monthlyReview } from "./monthly-review";
import { spendingDeepDive } from "./spending-deep-dive";
import { subscriptionAudit } from "./subscription-audit";
import { upcomingBillsCheck } from "./upcoming-bills-check";

export const allPrompts: readonly PromptDefinition[] = [
  monthlyReview,
  subscriptionAudit,
  upcomingBillsCheck,
  debtPayoffPlan,
  spendingDeepDive,
  fixBankConnections,
];

/** Registers every prompt; the SDK validates arguments with each prompt's schema (→ -32602). */
export function registerPrompts(server: McpServer, prompts: readonly PromptDefinition[] = allPrompts): void {
  for (const prompt of prompts) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: prompt.args },
      (args) => ({
        description: prompt.description,
        messages: [{ role: "user", content: { type: "text", text: prompt.build(args) } }],
      }),
    );
  }
}
