"use server";

import { z } from "zod";
import type { Database } from "@/db";
import { createAction } from "@/lib/action";
import { listApiKeys } from "@/lib/api-keys";
import { AppError } from "@/lib/errors";
import type { ScopeOf } from "@/lib/finance/scope";
import { type DashboardRun, runToolFromForm } from "@/lib/mcp/dashboard-run";
import { listConnectedApps } from "@/lib/oauth/tokens";

// The tool's fields are read by name from the rest of the form (lib/mcp/tool-form.ts).
const runSchema = z
  .object({
    tool: z.string().trim().min(1).max(100),
    // "you", "key:<id>" or "app:<grant id>" (components/tool-runner.tsx's "Run as").
    run_as: z.string().trim().max(100).default("you"),
  })
  .catchall(z.unknown());

/**
 * Whose accounts a run reads: the person's own, or one of their live keys' or connected apps'.
 * A key or app that is no longer live (revoked, rotated, ended meanwhile) is refused by name.
 */
async function runAs(db: Database, userId: string, choice: string): Promise<ScopeOf> {
  if (choice === "you") return { kind: "person" };
  const [kind, id] = [choice.slice(0, choice.indexOf(":")), choice.slice(choice.indexOf(":") + 1)];
  if (kind === "key" && (await listApiKeys(db, userId)).some((k) => k.id === id))
    return { kind: "api_key", id };
  if (kind === "app" && (await listConnectedApps(db, userId)).some((a) => a.grantId === id))
    return { kind: "oauth", grantId: id };
  throw new AppError(
    "invalid_input",
    'That key or app is no longer active: reload the page and choose again under "Run as".',
    { field: "run_as" },
  );
}

/** /dashboard/tools: runs one tool as the signed-in person (or one of their keys or apps), as their assistant would. */
export const runToolAction = createAction(runSchema, async ({ tool, run_as, ...form }, { db, user }) => ({
  data: (await runToolFromForm(
    db,
    user.id,
    tool,
    form,
    await runAs(db, user.id, run_as),
  )) satisfies DashboardRun,
}));
