import { z } from "zod";
import { definePrompt } from "./define-prompt";

export const fixBankConnections = definePrompt({
  name: "fix_bank_connections",
  title: "Fix bank connections",
  description: "Find banks that need re-authorization or have errors and walk me through reconnecting them.",
  args: z.object({}),
  build: () =>
    [
      "Check my bank connections and help me fix any that are broken.",
      "",
      "Use the Ledgerlink tools:",
      "1. get_connection_status for the subscription state and every bank: status (healthy, reauth required or error), last sync, accounts, and the links to reconnect a bank or add one.",
      "",
      "Then write, for each bank that is not healthy: its name, what is wrong, since when its data is stale, and the exact link to its Reconnect button, with the steps (open the link, sign in to the bank, approve). If the subscription is not active, give me the link to finish setup first. If no bank is linked, give me the link to add one. If everything is healthy, say so in one line.",
    ].join("\n"),
});
