/**
 * What the server knows about the request it is serving, wherever in the request's async work
 * it is asked: its id, the statements it has run, and what the MCP endpoint learned about it
 * (method, tool, credential kind). lib/request-log.ts opens a record when a request arrives and
 * writes it as the request's log line when the answer is done; lib/log.ts puts the id on every
 * line written meanwhile; db/index.ts counts each statement into it.
 *
 * The storage lives on globalThis: Next bundles instrumentation.ts and each route apart, and a
 * module-level store would exist once per bundle.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A value a log line may carry: never an object, so nothing nested is logged by accident. */
export type LogValue = string | number | boolean | null | undefined | readonly string[];
export type LogFields = Record<string, LogValue>;

export interface RequestRecord {
  /** `x-vercel-id`, or a random UUID; sent back as `x-request-id`. */
  readonly id: string;
  /** Statements the request sent to the database (db/index.ts). */
  statements: number;
  /** What the handler noted for the request's log line (`noteRequest`). */
  readonly fields: LogFields;
}

const STORE = Symbol.for("ledgerlink.request-context");
const holder = globalThis as { [STORE]?: AsyncLocalStorage<RequestRecord> };
holder[STORE] ??= new AsyncLocalStorage<RequestRecord>();
const storage = holder[STORE];

/** The record of the request being served, or undefined outside one (scripts, start-up, timers). */
export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

/** Runs `fn` as the work of the request `record`. */
export function runInRequest<T>(record: RequestRecord, fn: () => T): T {
  return storage.run(record, fn);
}

/**
 * Makes `record` the current request for the rest of the current synchronous work and whatever it
 * starts (for a hook that is told of a request just before its handler is called, and cannot wrap it).
 */
export function enterRequest(record: RequestRecord): void {
  storage.enterWith(record);
}

/** Adds `fields` to the current request's log line (nothing outside a request). */
export function noteRequest(fields: LogFields): void {
  const record = storage.getStore();
  if (record) Object.assign(record.fields, fields);
}

/** Counts one statement against the current request. */
export function countStatement(): void {
  const record = storage.getStore();
  if (record) record.statements += 1;
}
