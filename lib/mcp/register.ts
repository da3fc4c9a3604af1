/**
 * `registerTools` turns the tool definitions (data plus one `run` function, lib/mcp/tools/) into
 * MCP tools. It is the one place that adds, for all of them:
 * - the listing: title, description, input schema, output schema (the outline of the envelope
 *   around the tool's data), the annotations (`TOOL_HINTS`) and, where the era lists them, icons;
 * - argument validation with a message that names the argument and what it accepts;
 * - the access gate (lib/access.ts): `setup_required` without running the tool when the
 *   subscription is not active; `NO_CONNECTIONS` and `REAUTH_REQUIRED` warnings otherwise;
 * - the envelope `{ status, data, warnings, as_of, page }` without null fields, as
 *   structuredContent and as text;
 * - error mapping: `AppError("invalid_input")` → its message; anything else → a generic sentence
 *   (details go to the server log, never to the client);
 * - timing and the activity log (one `tool_calls` row per call).
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#structured-content
 */
import type {
  AuthInfo,
  CallToolResult,
  Icon,
  McpServer,
  StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Database } from "@/db";
import type { AccessState } from "@/lib/access";
import { recordToolCallLater, type ToolCallStatus } from "@/lib/activity";
import { failureFields, isAppError } from "@/lib/errors";
import { type AccountScope, visibleConnections } from "@/lib/finance/scope";
import { log } from "@/lib/log";
import { findUnsafeText } from "@/lib/safe-text";
import type { McpCredential } from "./credential";
import type { ToolContext, ToolDefinition } from "./define-tool";
import { envelopeSchema, type Warning } from "./envelope";
import { markToolError } from "./telemetry";

/** What a registered tool needs to know about the caller; fixed for one request (lib/mcp/caller.ts). */
export interface ToolAuthContext {
  db: Database;
  credential: McpCredential;
  access: AccessState;
  /** The accounts the credential may read (lib/finance/scope.ts). */
  scope: AccountScope;
  timezone: string;
}

type Envelope = z.infer<ReturnType<typeof envelopeSchema>>;

type Converter = StandardSchemaWithJSON["~standard"]["jsonSchema"];

/**
 * A JSON Schema as a client reads it, without what costs context and says nothing: the `$schema`
 * URI on every tool, and the ±2^53 bounds zod writes on every integer (any JSON number a client
 * would send is within them).
 */
function compactJsonSchema(node: unknown, root = true): unknown {
  if (Array.isArray(node)) return node.map((item) => compactJsonSchema(item, false));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (root && key === "$schema") continue;
    if (
      (key === "minimum" && value === Number.MIN_SAFE_INTEGER) ||
      (key === "maximum" && value === Number.MAX_SAFE_INTEGER)
    )
      continue;
    out[key] = compactJsonSchema(value, false);
  }
  return out;
}

/** `schema` without its null branch (answers leave null keys out, see `withoutNulls`). */
function nonNull(schema: Record<string, unknown>): { schema: Record<string, unknown>; nullable: boolean } {
  const { type, anyOf, ...rest } = schema;
  if (Array.isArray(type) && type.includes("null")) {
    const types = type.filter((t) => t !== "null");
    return { schema: { ...rest, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  if (Array.isArray(anyOf) && anyOf.some((s) => s?.type === "null")) {
    const [only] = anyOf.filter((s) => s?.type !== "null");
    return { schema: { ...rest, ...only }, nullable: true };
  }
  return { schema, nullable: false };
}

/**
 * An object schema's properties reduced to their JSON type, enum and description (`depth` 0),
 * or, at `depth` 1, to that and their own properties reduced so. A property that may be null is
 * optional instead.
 */
function outline(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ["type", "enum", "description"]) if (schema[key] !== undefined) out[key] = schema[key];
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (depth > 0 && properties) {
    const optional = new Set<string>();
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const { schema: stripped, nullable } = nonNull(property);
        if (nullable) optional.add(name);
        return [name, outline(stripped, depth - 1)];
      }),
    );
    const required = ((schema.required as string[] | undefined) ?? []).filter((n) => !optional.has(n));
    if (required.length > 0) out.required = required;
  }
  return out;
}

/**
 * The output schema as `tools/list` gives it: the envelope with each field's JSON type, and the
 * tool's `data` one level deeper (its fields and their types). Rows and warnings are
 * self-describing JSON, and the server instructions give the envelope's parts once, so their
 * fields are not repeated in every tool's schema: all twelve tools fit the context budget of
 * tools/list (product.md, "Size"). The zod schema still checks every answer in full.
 */
function answerJsonSchema(envelope: Record<string, unknown>): Record<string, unknown> {
  const properties = envelope.properties as Record<string, Record<string, unknown>>;
  return {
    ...outline(envelope, 1),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [name, outline(p, name === "data" ? 1 : 0)]),
    ),
  };
}

/**
 * `value` with every null-valued key left out, at any depth (product.md, "Size": no nulls). What
 * holds no such key is answered as it is: only the objects on the way to a null are copied (a
 * year of daily points has none, and copying each cost more than the rest of its answer).
 */
function withoutNulls<T>(value: T): T {
  if (value === null || typeof value !== "object" || !holdsNullKey(value)) return value;
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out as T;
}

/** Whether an object at any depth of `value` has a key whose value is null. */
function holdsNullKey(value: object): boolean {
  if (Array.isArray(value)) {
    for (const item of value)
      if (item !== null && typeof item === "object" && holdsNullKey(item)) return true;
    return false;
  }
  for (const v of Object.values(value)) {
    if (v === null) return true;
    if (typeof v === "object" && holdsNullKey(v)) return true;
  }
  return false;
}

/**
 * A JSON Schema converter that converts (and compacts) once per target and direction, then
 * answers from memory. The output one is the envelope's outline (`answerJsonSchema`).
 */
function cachedConverter(converter: Converter): Converter {
  const memo = new Map<string, Record<string, unknown>>();
  const cached = (io: "input" | "output") => (options: Parameters<Converter["input"]>[0]) => {
    const key = `${io}:${options.target}`;
    let json = memo.get(key);
    if (!json) {
      json =
        io === "input"
          ? (compactJsonSchema(converter.input(options)) as Record<string, unknown>)
          : answerJsonSchema(converter.output(options));
      memo.set(key, json);
    }
    return json;
  };
  return { input: cached("input"), output: cached("output") };
}

/** What the SDK lists for a tool, built once per process (tools are static). */
interface ListedTool {
  /**
   * The input schema as the SDK should list it, with validation left to `runTool`: the SDK would
   * reject bad arguments before our handler runs, so the call would be missing from the activity
   * log and its message would be the SDK's. The JSON Schema is the zod schema's own.
   */
  input: StandardSchemaWithJSON<Record<string, unknown>>;
  /** The envelope around the tool's data, with its JSON Schema converted once. */
  output: StandardSchemaWithJSON;
  /** The same envelope as zod, for validating an answer. */
  envelope: ReturnType<typeof envelopeSchema>;
}

const listedTools = new WeakMap<ToolDefinition, ListedTool>();

function listedTool(tool: ToolDefinition): ListedTool {
  let listed = listedTools.get(tool);
  if (!listed) {
    const envelope = envelopeSchema(tool.data);
    const standard = envelope["~standard"];
    listed = {
      input: {
        "~standard": {
          version: 1,
          vendor: "ledgerlink",
          validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
          jsonSchema: cachedConverter(tool.input["~standard"].jsonSchema),
        },
      },
      output: {
        "~standard": {
          version: 1,
          vendor: standard.vendor,
          // runTool has already parsed the answer with this very schema: no second validation.
          validate: (value: unknown) => ({ value }),
          jsonSchema: cachedConverter(standard.jsonSchema),
        },
      },
      envelope,
    };
    listedTools.set(tool, listed);
  }
  return listed;
}

/** A tool's input JSON Schema exactly as `tools/list` gives it to clients (built once per process). */
export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  return listedTool(tool).input["~standard"].jsonSchema.input({ target: "draft-2020-12" });
}

const quote = (values: readonly unknown[]) =>
  values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");

/** One sentence per zod issue, each naming the argument and what it accepts. */
export function describeArgumentIssues(
  toolName: string,
  issues: readonly z.core.$ZodIssue[],
  args: unknown,
  /** The tool's argument names, listed after an unknown one. */
  known: readonly string[] = [],
): string {
  const present = (path: readonly PropertyKey[]) => {
    let node: unknown = args;
    for (const key of path) {
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return false;
      node = (node as Record<PropertyKey, unknown>)[key];
    }
    return node !== undefined;
  };
  const sentences = issues.map((issue) => {
    const name = issue.path.length > 0 ? issue.path.map(String).join(".") : "arguments";
    switch (issue.code) {
      case "invalid_value":
        return `Argument "${name}" must be one of: ${quote(issue.values)}.`;
      case "invalid_type":
        return !present(issue.path)
          ? `Argument "${name}" is required (${issue.expected}).`
          : `Argument "${name}" must be ${issue.expected === "array" ? "an array" : `a ${issue.expected}`}.`;
      case "too_big":
        return `Argument "${name}" must be at most ${String(issue.maximum)}${issue.origin === "array" || issue.origin === "string" ? ` ${issue.origin === "array" ? "items" : "characters"}` : ""}.`;
      case "too_small":
        return `Argument "${name}" must be at least ${String(issue.minimum)}${issue.origin === "array" || issue.origin === "string" ? ` ${issue.origin === "array" ? "items" : "characters"}` : ""}.`;
      case "unrecognized_keys":
        return `Unknown argument${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}. ${
          known.length > 0 ? `${toolName} takes: ${known.join(", ")}.` : `${toolName} takes no arguments.`
        }`;
      case "invalid_format":
        return `Argument "${name}" must be ${issue.format === "date" ? "an ISO date (YYYY-MM-DD)" : `in ${issue.format} format`}.`;
      default:
        return `Argument "${name}": ${issue.message}.`;
    }
  });
  return `Invalid arguments for ${toolName}. ${sentences.join(" ")}`;
}

/** The sentence a `setup_required` answer carries, per subscription state. */
export function setupMessage(access: AccessState): string {
  const where = access.links.billing;
  switch (access.subscription) {
    case "canceled":
      return `Your Ledgerlink subscription was canceled. Resubscribe at ${where} to read your bank data again.`;
    case "past_due":
      return `Your Ledgerlink subscription payment is past due. Update your payment method at ${where} to read your bank data again.`;
    default:
      return `Your Ledgerlink subscription has not started yet. Subscribe at ${where} to let your assistant read your bank data.`;
  }
}

/**
 * The access state as a call limited to some accounts sees it: the banks of its accounts only,
 * in answers, warnings and `as_of`, as if the person had linked no other.
 */
function accessSeenBy(access: AccessState, scope: AccountScope): AccessState {
  if (scope.connectionIds === null) return access;
  return {
    ...access,
    connections: visibleConnections(scope, access.connections),
    needsReauth: visibleConnections(scope, access.needsReauth),
  };
}

/**
 * `HIDDEN_ACCOUNTS` on every `ok` answer while the person hides accounts, with their count: the
 * answer leaves them out, so an assistant must not call a total complete.
 */
export function hiddenAccountWarnings(scope: AccountScope): Warning[] {
  const n = scope.hiddenCount;
  if (n === 0) return [];
  return [
    {
      code: "HIDDEN_ACCOUNTS",
      message: `${n} ${n === 1 ? "account is" : "accounts are"} hidden from assistants and left out of this answer: its totals are of the other accounts only.`,
      count: n,
    },
  ];
}

/** Warnings the gate adds to every `ok` answer: no bank linked, or banks needing re-authorization. */
export function accessWarnings(access: AccessState): Warning[] {
  if (!access.hasConnections) {
    return [
      {
        code: "NO_CONNECTIONS",
        message: `No bank is linked to this Ledgerlink account yet, so there is no data. Link a bank at ${access.links.banks}.`,
        action_url: access.links.banks,
      },
    ];
  }
  return access.needsReauth.map((c) => ({
    code: "REAUTH_REQUIRED",
    message: `${c.institutionName} needs you to sign in again${
      c.lastSyncedAt ? `; its data is as of ${c.lastSyncedAt.toISOString()}` : ""
    }. Reconnect it at ${access.links.reconnect(c.id)}.`,
    institution: c.institutionName,
    connection_id: c.id,
    action_url: access.links.reconnect(c.id),
  }));
}

/** ISO time of the oldest last successful sync among live connections (what the data rests on). */
export function oldestSync(access: AccessState): string | undefined {
  let oldest: Date | undefined;
  for (const c of access.connections) {
    if (c.status === "disconnected" || !c.lastSyncedAt) continue;
    if (!oldest || c.lastSyncedAt < oldest) oldest = c.lastSyncedAt;
  }
  return oldest?.toISOString();
}

function resultOf(envelope: Envelope): CallToolResult {
  return {
    structuredContent: envelope,
    content: [{ type: "text", text: JSON.stringify(envelope) }],
  };
}

function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}

const GENERIC_FAILURE =
  "The tool failed on our side. Please try again in a moment; if it keeps failing, check the connection status with get_connection_status.";

/**
 * The arguments the caller gave: `null` for an argument means "not given" (clients in strict
 * function-calling modes send null for every unset field), so such keys are dropped before
 * validation and the tool's default applies.
 */
function givenArguments(rawArgs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rawArgs ?? {}).filter(([, value]) => value !== null));
}

/**
 * Runs one tool for the caller in `auth`: argument validation, the access gate, the envelope,
 * error mapping and the activity row: the one pipeline every tool call goes through.
 */
export async function runTool(
  tool: ToolDefinition,
  rawArgs: Record<string, unknown>,
  auth: ToolAuthContext,
): Promise<CallToolResult> {
  const { db, credential } = auth;
  const access = accessSeenBy(auth.access, auth.scope);
  const outputSchema = listedTool(tool).envelope;
  const started = performance.now();
  let status: ToolCallStatus = "error";
  try {
    const args = givenArguments(rawArgs);
    const unsafe = findUnsafeText(args);
    if (unsafe !== null) {
      status = "invalid_arguments";
      return errorResult(
        `Invalid arguments for ${tool.name}. Argument "${unsafe}" holds a NUL character or an unpaired surrogate; send plain text.`,
      );
    }
    const parsed = await tool.input.safeParseAsync(args);
    if (!parsed.success) {
      status = "invalid_arguments";
      return errorResult(
        describeArgumentIssues(tool.name, parsed.error.issues, args, Object.keys(tool.input.shape)),
      );
    }
    if (!access.toolsEnabled) {
      status = "setup_required";
      return resultOf({
        status: "setup_required",
        setup_url: access.links.billing,
        message: setupMessage(access),
        warnings: [],
      });
    }
    const ctx: ToolContext = {
      db,
      userId: credential.userId,
      timezone: auth.timezone,
      now: new Date(),
      access,
      scope: auth.scope,
    };
    const out = await tool.run(parsed.data, ctx);
    // The one check of the answer (the SDK's own is a pass-through, see listedTool): it also puts
    // the keys in the schema's order and drops any the schema does not name.
    const envelope = outputSchema.safeParse({
      status: "ok",
      data: out.data,
      warnings: [...accessWarnings(access), ...hiddenAccountWarnings(auth.scope), ...(out.warnings ?? [])],
      as_of: oldestSync(access),
      page: out.page,
    });
    if (!envelope.success) {
      log.error("mcp.tool_answer_invalid", {
        tool: tool.name,
        // Where the answer broke the schema, never what it held (issues can quote the values).
        paths: envelope.error.issues.map((issue) => issue.path.join(".")),
      });
      return errorResult(GENERIC_FAILURE);
    }
    status = "ok";
    return resultOf(withoutNulls(envelope.data));
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_input") {
      status = "invalid_arguments";
      return errorResult(error.message);
    }
    log.error("mcp.tool_failed", { tool: tool.name, ...failureFields(error) });
    return errorResult(GENERIC_FAILURE);
  } finally {
    if (status === "error" || status === "invalid_arguments") markToolError();
    recordToolCallLater(db, {
      userId: credential.userId,
      credentialKind: credential.kind,
      apiKeyId: credential.kind === "api_key" ? credential.apiKeyId : null,
      oauthClientId: credential.kind === "oauth" ? credential.oauthClientId : null,
      tool: tool.name,
      status,
      durationMs: performance.now() - started,
    });
  }
}

/** The key under which a request carries its caller in the SDK's `AuthInfo.extra`. */
const CALLER_KEY = "ledgerlink.caller";

/**
 * What the SDK should carry for one request: the caller, known before the MCP server runs
 * (lib/mcp/caller.ts). The token itself is not repeated here; nothing downstream needs it.
 */
export function authInfoFor(auth: ToolAuthContext): AuthInfo {
  const { credential } = auth;
  const clientId =
    credential.kind === "oauth"
      ? credential.oauthClientId
      : credential.kind === "api_key"
        ? credential.apiKeyId
        : "dashboard";
  return { token: "", clientId, scopes: [], extra: { [CALLER_KEY]: auth } };
}

function callerOf(ctx: { http?: { authInfo?: AuthInfo } }): ToolAuthContext {
  const auth = ctx.http?.authInfo?.extra?.[CALLER_KEY] as ToolAuthContext | undefined;
  if (!auth) throw new Error("a tool ran without its caller");
  return auth;
}

/**
 * What every tool promises a client (MCP tool annotations): it reads and never changes anything,
 * calling it again changes nothing, and it reads only the person's own data in our database,
 * never the open world.
 * https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations
 */
export const TOOL_HINTS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export interface RegisterToolsOptions {
  /** A tool's icons, for the revisions that list them (build-server.ts); none when absent. */
  iconsOf?: (toolName: string) => Icon[];
}

/**
 * Registers every tool definition on `server`, in the order given (tools/list keeps it). The
 * server may serve many requests: each call reads its caller from the request (`authInfoFor`).
 */
export function registerTools(
  server: McpServer,
  tools: readonly ToolDefinition[],
  options: RegisterToolsOptions = {},
): void {
  for (const tool of tools) {
    const listed = listedTool(tool);
    const icons = options.iconsOf?.(tool.name);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: listed.input,
        outputSchema: listed.output,
        annotations: { title: tool.title, ...TOOL_HINTS },
        ...(icons ? { icons } : {}),
      },
      (rawArgs: Record<string, unknown>, ctx) => runTool(tool, rawArgs, callerOf(ctx)),
    );
  }
}
