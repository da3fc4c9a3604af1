// @ts-check
/**
 * Prepared statements for embedded PGlite (on its thread, db/pglite-worker.mjs), as the request
 * pool has them on a server (db/index.ts `prepareOncePerConnection`). PGlite's own
 * `query(text, params)` parses and plans its text on every call, in six protocol exchanges with
 * the WASM backend (parse, describe, bind, describe, execute, sync). Here each statement text is
 * parsed once per database under its own name, and every later run is ONE exchange (bind,
 * describe, execute, sync), planned from the cached statement: the caller's statement costs a
 * third less CPU. Parameters are serialized as PGlite does, and statements run under its
 * transaction and query locks.
 *
 * The answer is the bytes the backend wrote, kept as they are (PGlite's thread moves them to the
 * request thread, which reads them: db/pglite-wire.mjs) and read into the rows PGlite's own
 * `parseResults` makes of them. PGlite's own exchange copied them three times and built a message
 * object, and a buffer, for every value, on the thread that runs PostgreSQL; the rows were then
 * cloned into the reply (the heavy user's overview: 7.4 ms of PGlite's thread per call, 4.9 now).
 *
 * A statement marked to be planned for its values (`PLANNED_EACH_RUN`) is kept prepared too, and
 * run with PostgreSQL's custom plans forced for it alone (`plan_cache_mode`, set and reset in the
 * same exchange): planned for its values on every run, as on a server, without being parsed
 * anew (a year of spending by merchant cost PGlite's thread 0.5 ms less per call).
 *
 * Only plain statements outside transactions take this path (inside one, PGlite's transaction
 * object calls its own internals), and not long or many-parameter ones (bulk writes vary in
 * shape).
 */
import { messages as messagesOf, parse, protocol } from "@electric-sql/pglite";
import { holdsError, readAnswer } from "./pglite-wire.mjs";

/** @typedef {import("@electric-sql/pglite").PGlite} PGlite */
/** @typedef {import("@electric-sql/pglite").QueryOptions} QueryOptions */
/** @typedef {import("./pglite-thread").PreparedLimits} PreparedLimits */
/** @typedef {{ name: string, paramTypes: number[], custom: boolean, elements: Record<number, number> }} Statement */

/**
 * Concatenates protocol messages into one buffer (one exchange with the backend).
 * @param {Uint8Array[]} parts
 */
function joined(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The bytes an answer is first written into (it grows for a longer one, and shrinks back after). */
const SCRATCH_BYTES = 64 * 1024;

const FORCE_CUSTOM_PLANS = protocol.serialize.query("set plan_cache_mode = force_custom_plan");
const AUTO_PLANS = protocol.serialize.query("reset plan_cache_mode");

/** PGlite's own query for the element type of each array type (its `_initArrayTypes`). */
const ARRAY_TYPES = `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a
  LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
  WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

/**
 * A prepared statement's answer as PostgreSQL wrote it (db/pglite-wire.mjs reads it): the bytes,
 * which of its result sets is the statement's, and the element type of each array type among
 * its fields.
 * @typedef {{ wire: Uint8Array, pick: number, elements: Record<number, number> }} WireAnswer
 */

/**
 * Runs statements prepared (see the module comment). Returns the run, which answers the bytes
 * PostgreSQL wrote (PGlite's thread sends them to the request thread as they are), or undefined
 * for a statement left to PGlite's own `query`; and makes `client.query` answer rows by it.
 *
 * Values are read as PGlite reads them with its own parsers: the client must be opened without
 * parsers of its own (db/pglite-worker.mjs), so that its table is PGlite's defaults and arrays.
 * @param {PGlite} client
 * @param {PreparedLimits} limits
 */
export function prepareStatements(client, limits) {
  const { serialize } = protocol;
  /** @type {Map<string, Statement>} */
  const statements = new Map();
  const plainQuery = client.query.bind(client);
  /** Array type id → element type id, read once (as PGlite reads them when it opens). */
  /** @type {Map<number, number> | undefined} */
  let arrays;
  /** The answer being written, in a buffer kept between answers (one at a time: the query lock). */
  let scratch = new Uint8Array(SCRATCH_BYTES);
  let used = 0;
  /** @param {Uint8Array} bytes */
  const collect = (bytes) => {
    if (used + bytes.length > scratch.length) {
      const grown = new Uint8Array(Math.max(scratch.length * 2, used + bytes.length));
      grown.set(scratch.subarray(0, used));
      scratch = grown;
    }
    scratch.set(bytes, used);
    used += bytes.length;
  };

  /**
   * The messages of `message`'s exchange with the backend, as bytes of their own.
   * @param {Uint8Array} message
   */
  async function exchange(message) {
    used = 0;
    try {
      await client.execProtocolRawStream(message, { onRawData: collect });
      return scratch.slice(0, used);
    } finally {
      if (scratch.length > SCRATCH_BYTES * 16) scratch = new Uint8Array(SCRATCH_BYTES);
    }
  }

  /**
   * Parses `text` under a new name; undefined when it fails (the plain path will report why).
   * @param {string} text
   * @param {QueryOptions | undefined} options
   * @returns {Promise<Statement | undefined>}
   */
  async function prepare(text, options) {
    if (!arrays) {
      const { messages } = await client.execProtocol(serialize.query(ARRAY_TYPES), { syncToFs: false });
      const [found] = parse.parseResults(messages, client.parsers);
      arrays = new Map(
        /** @type {Array<{ oid: number | null, typarray: number }>} */ (found?.rows ?? []).flatMap((r) =>
          r.oid === null ? [] : [[r.typarray, r.oid]],
        ),
      );
    }
    const name = `ll_${statements.size + 1}`;
    const { messages } = await client.execProtocol(
      joined([
        serialize.parse({ name, text, ...(options?.paramTypes ? { types: options.paramTypes } : {}) }),
        serialize.describe({ type: "S", name }),
        serialize.sync(),
      ]),
      { syncToFs: false, throwOnError: false },
    );
    if (messages.some((m) => m.name === "error")) return undefined;
    const described = /** @type {{ dataTypeIDs: number[] } | undefined} */ (
      messages.find((m) => m.name === "parameterDescription")
    );
    const row = /** @type {{ fields: Array<{ dataTypeID: number }> } | undefined} */ (
      messages.find((m) => m.name === "rowDescription")
    );
    /** @type {Record<number, number>} */
    const elements = {};
    for (const { dataTypeID } of row?.fields ?? []) {
      const element = arrays.get(dataTypeID);
      if (element !== undefined) elements[dataTypeID] = element;
    }
    const statement = {
      name,
      paramTypes: described?.dataTypeIDs ?? [],
      custom: text.includes(limits.plannedEachRun),
      elements,
    };
    statements.set(text, statement);
    return statement;
  }

  /**
   * @param {string} text
   * @param {unknown[]} [params]
   * @param {QueryOptions} [options]
   * @returns {Promise<WireAnswer | undefined>}
   */
  const run = async (text, params = [], options) => {
    const known = statements.get(text);
    if (
      !known &&
      (text.length > limits.maxText ||
        params.length > limits.maxParams ||
        statements.size >= limits.maxStatements)
    )
      return undefined;
    if (options?.blob || !client.ready) return undefined;
    // PGlite's own `query` waits for an open transaction to end (its transaction lock), then
    // takes the query lock: a statement let in between a transaction's statements would run
    // inside it, read its uncommitted rows, and by failing abort it.
    return await client._runExclusiveTransaction(() =>
      client.runExclusive(async () => {
        const statement = statements.get(text) ?? (await prepare(text, options));
        if (!statement) return undefined;
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const type = statement.paramTypes[i] ?? 0;
          const serializer = options?.serializers?.[type] ?? client.serializers[type];
          return serializer ? serializer(value) : String(value);
        });
        const steps = [
          serialize.bind({ statement: statement.name, values }),
          serialize.describe({ type: "P" }),
          serialize.execute({}),
          serialize.sync(),
        ];
        // A marked statement's SET and RESET run whatever it does (a failed one ends at its Sync).
        const wire = await exchange(
          joined(statement.custom ? [FORCE_CUSTOM_PLANS, ...steps, AUTO_PLANS] : steps),
        );
        // A failure is thrown as PGlite throws it: its first error, parsed by PGlite.
        if (holdsError(wire)) {
          /** @type {unknown} */
          let failure;
          new protocol.Parser().parse(wire, (message) => {
            if (failure === undefined && message instanceof messagesOf.DatabaseError) failure = message;
          });
          throw failure ?? new Error("PGlite answered with an error it could not read");
        }
        return { wire, pick: statement.custom ? 1 : 0, elements: statement.elements };
      }),
    );
  };

  client.query = /** @type {PGlite["query"]} */ (
    async (text, params = [], options) => {
      const answer = await run(text, params, options);
      if (!answer) return plainQuery(text, params, options);
      return readAnswer(answer.wire, { ...answer, rowMode: options?.rowMode, parsers: options?.parsers });
    }
  );
  return run;
}
