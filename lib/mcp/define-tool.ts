/**
 * A tool is data plus one function. Each file in lib/mcp/tools/ exports `defineTool({...})`;
 * `registerTools` (lib/mcp/register.ts) adds, for all twelve, the auth context, the access gate
 * (setup_required / NO_CONNECTIONS / REAUTH_REQUIRED), the envelope, timing, the activity log and
 * error mapping. A tool never checks keys or subscriptions: `run` is only called for a user whose
 * subscription is active, and it reads only our database.
 */
import type { z } from "zod";
import type { Database } from "@/db";
import type { AccessState } from "@/lib/access";
import type { AccountScope } from "@/lib/finance/scope";
import type { Page, Warning } from "./envelope";

export interface ToolContext {
  db: Database;
  userId: string;
  /** IANA zone periods are read in (users.timezone, default UTC). */
  timezone: string;
  /** The request's clock; tests pin it. */
  now: Date;
  access: AccessState;
  /** The accounts this call may read: every query of a tool is limited to them. */
  scope: AccountScope;
}

export interface ToolOutput<D> {
  data: D;
  /** Tool-specific warnings; the gate adds NO_CONNECTIONS / REAUTH_REQUIRED itself. */
  warnings?: Warning[];
  page?: Page;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, D extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** Written for a language model: what it answers, when to use it, the defaults. */
  description: string;
  input: I;
  /** Schema of `data` in the envelope; the output schema is the envelope around it. */
  data: D;
  run: (args: z.output<I>, ctx: ToolContext) => Promise<ToolOutput<z.output<D>>>;
}

export function defineTool<I extends z.ZodObject, D extends z.ZodType>(
  def: ToolDefinition<I, D>,
): ToolDefinition<I, D> {
  return def;
}
