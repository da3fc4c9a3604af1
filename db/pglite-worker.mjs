// @ts-check
/**
 * Embedded PGlite on a thread of its own (db/pglite-thread.ts starts it): the database's work,
 * PostgreSQL's WASM and PGlite's message parsing, runs beside the request thread instead of on
 * it, as a server's database runs in its own processes. It answers the messages of
 * `PgliteThread`, one at a time in PGlite's own order (its transaction and query locks).
 *
 * Plain JavaScript: Node starts it as it is, under `next start`, `next dev`, tsx and vitest.
 */
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { prepareStatements } from "./pglite-prepared.mjs";

/** @typedef {import("./pglite-thread").Request} Request */
/** @typedef {import("./pglite-thread").Reply} Reply */
/** @typedef {import("@electric-sql/pglite").Transaction} Transaction */

const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);
const { dir, prepared } = /** @type {import("./pglite-thread").ThreadOptions} */ (workerData);

const opened = (async () => {
  // The extensions the migrations create (transaction search, 0004). No parsers of its own: the
  // request thread reads prepared answers with PGlite's defaults (db/pglite-wire.mjs).
  const client = new PGlite(dir, { extensions: { pg_trgm, unaccent } });
  await client.waitReady;
  return { client, run: prepared ? prepareStatements(client, prepared) : undefined };
})();
// A failure to open is answered to every request.
opened.catch(() => undefined);

/**
 * Open transactions by the id of the request that began them: PGlite's transaction object, and
 * how to end it (`decide(true)` commits, `decide(false)` rolls back) and its end.
 * @type {Map<number, { tx: Transaction, decide: (commit: boolean) => void, ended: Promise<unknown> }>}
 */
const transactions = new Map();

/** Thrown into a transaction's callback to roll it back. */
const ROLLBACK = Symbol("rollback");

/**
 * An error as the request thread rebuilds it: its name, message, and PostgreSQL's fields (code,
 * detail, constraint…), the values a caller can read; never functions or the query's parameters.
 * @param {unknown} error
 * @returns {Reply["error"]}
 */
function described(error) {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  /** @type {Record<string, string | number | boolean>} */
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (key === "query" || key === "params") continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/**
 * Parsers that keep each of `types` as PostgreSQL's text (the request thread applies the
 * caller's own parsers to them: functions do not cross threads).
 * @param {number[] | undefined} types
 */
function keptAsText(types) {
  if (!types) return undefined;
  /** @type {Record<number, (value: string) => string>} */
  const parsers = {};
  for (const type of types) parsers[type] = (value) => value;
  return parsers;
}

/**
 * @param {Request} request
 * @returns {Promise<unknown>}
 */
async function answer(request) {
  const { client, run } = await opened;
  switch (request.op) {
    case "query": {
      // A prepared statement's answer crosses as the bytes PostgreSQL wrote, in a transferred
      // buffer: read on the request thread (db/pglite-wire.mjs), not parsed and cloned here.
      if (request.tx === undefined && run) {
        const wired = await run(
          request.text,
          request.params,
          request.rowMode ? { rowMode: request.rowMode } : {},
        );
        if (wired) return new Wired(wired);
      }
      const target = request.tx === undefined ? client : transactions.get(request.tx)?.tx;
      if (!target) throw new Error("The transaction has ended");
      const parsers = keptAsText(request.textTypes);
      // PGlite's answer whole (rows, fields, counts), as PGlite in the request thread gives it.
      return await target.query(request.text, request.params, {
        ...(request.rowMode ? { rowMode: request.rowMode } : {}),
        ...(parsers ? { parsers } : {}),
      });
    }
    case "begin": {
      // Answered once BEGIN has run (PGlite's transaction lock held); ended by commit or rollback.
      return await new Promise((began, failed) => {
        /** @type {(commit: boolean) => void} */
        let decide = () => {};
        const decided = new Promise((commit, rollback) => {
          decide = (yes) => (yes ? commit(undefined) : rollback(ROLLBACK));
        });
        // The callback runs once BEGIN has run, after `ended` is assigned.
        const ended = client.transaction(async (tx) => {
          transactions.set(request.id, { tx, decide, ended });
          began(request.id);
          await decided;
        });
        ended.catch(failed).finally(() => transactions.delete(request.id));
      });
    }
    case "commit":
    case "rollback": {
      const open = transactions.get(request.tx);
      if (!open) throw new Error("The transaction has ended");
      open.decide(request.op === "commit");
      try {
        await open.ended;
      } catch (error) {
        if (error !== ROLLBACK) throw error;
      }
      return null;
    }
    case "close":
      await client.close();
      return null;
  }
}

/** A prepared statement's answer (db/pglite-prepared.mjs `WireAnswer`), sent as a `Reply`'s `wire`. */
class Wired {
  /** @param {import("./pglite-prepared.mjs").WireAnswer} answer */
  constructor(answer) {
    this.answer = answer;
  }
}

/**
 * Answers not yet sent: those ready in one turn of the event loop cross in one message (each is
 * sent at the end of the turn it is ready in, never held for another: a BEGIN may wait for a
 * transaction whose COMMIT needs an answer sent first).
 * @type {Reply[]}
 */
let outbox = [];
/** The buffers of the outbox's wire answers, moved to the request thread, not copied. */
/** @type {ArrayBuffer[]} */
let moved = [];

function send() {
  const replies = outbox;
  const transfer = moved;
  outbox = [];
  moved = [];
  port.postMessage(replies, transfer);
}

/** @param {Reply} reply */
function reply(reply) {
  if (reply.wire) moved.push(/** @type {ArrayBuffer} */ (reply.wire.wire.buffer));
  if (outbox.push(reply) === 1) setImmediate(send);
}

port.on("message", (/** @type {Request[]} */ requests) => {
  for (const request of requests)
    answer(request).then(
      (result) =>
        reply(result instanceof Wired ? { id: request.id, wire: result.answer } : { id: request.id, result }),
      (error) => reply({ id: request.id, error: described(error) }),
    );
});
