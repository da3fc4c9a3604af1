// @ts-check
/**
 * Prepared statements for embedded PGlite (on its thread, db/pglite-worker.mjs), as the request
 * pool has them on a server (db/index.ts `prepareOncePerConnection`). PGlite's own
 * `query(text, params)` parses and plans its text on every call, in six protocol exchanges with
 * the WASM backend (parse, describe, bind, describe, execute, sync). Here each statement text is
 * parsed once per database under its own name, and every later run is ONE exchange (bind,
 * describe, execute, sync), planned from the cached statement: the caller's statement costs a
 * third less CPU. The answer is PGlite's own (`parseResults` of the same messages), parameters
 * are serialized as PGlite does, and statements run under its transaction and query locks.
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
import { parse, protocol } from "@electric-sql/pglite";

/** @typedef {import("@electric-sql/pglite").PGlite} PGlite */
/** @typedef {import("@electric-sql/pglite").QueryOptions} QueryOptions */
/** @typedef {import("@electric-sql/pglite").Results} Results */
/** @typedef {import("./pglite-thread").PreparedLimits} PreparedLimits */
/** @typedef {{ name: string, paramTypes: number[], custom: boolean }} Statement */

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

const FORCE_CUSTOM_PLANS = protocol.serialize.query("set plan_cache_mode = force_custom_plan");
const AUTO_PLANS = protocol.serialize.query("reset plan_cache_mode");

/**
 * Makes `client.query` run each statement text prepared (see the module comment).
 * @param {PGlite} client
 * @param {PreparedLimits} limits
 */
export function prepareStatements(client, limits) {
  const { serialize } = protocol;
  /** @type {Map<string, Statement>} */
  const statements = new Map();
  const plainQuery = client.query.bind(client);

  /**
   * Parses `text` under a new name; undefined when it fails (the plain path will report why).
   * @param {string} text
   * @param {QueryOptions | undefined} options
   * @returns {Promise<Statement | undefined>}
   */
  async function prepare(text, options) {
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
    const statement = {
      name,
      paramTypes: described?.dataTypeIDs ?? [],
      custom: text.includes(limits.plannedEachRun),
    };
    statements.set(text, statement);
    return statement;
  }

  /**
   * @param {string} text
   * @param {unknown[]} [params]
   * @param {QueryOptions} [options]
   * @returns {Promise<Results>}
   */
  const query = async (text, params = [], options) => {
    const known = statements.get(text);
    if (
      !known &&
      (text.length > limits.maxText ||
        params.length > limits.maxParams ||
        statements.size >= limits.maxStatements)
    )
      return plainQuery(text, params, options);
    if (options?.blob || !client.ready) return plainQuery(text, params, options);
    // PGlite's own `query` waits for an open transaction to end (its transaction lock), then
    // takes the query lock: a statement let in between a transaction's statements would run
    // inside it, read its uncommitted rows, and by failing abort it.
    const answer = await client._runExclusiveTransaction(() =>
      client.runExclusive(async () => {
        const statement = statements.get(text) ?? (await prepare(text, options));
        if (!statement) return undefined;
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const type = statement.paramTypes[i] ?? 0;
          const serializer = options?.serializers?.[type] ?? client.serializers[type];
          return serializer ? serializer(value) : String(value);
        });
        const run = [
          serialize.bind({ statement: statement.name, values }),
          serialize.describe({ type: "P" }),
          serialize.execute({}),
          serialize.sync(),
        ];
        // A marked statement's SET and RESET run whatever it does (a failed one ends at its Sync).
        const { messages } = await client.execProtocol(
          joined(statement.custom ? [FORCE_CUSTOM_PLANS, ...run, AUTO_PLANS] : run),
        );
        // The caller's parsers over PGlite's own, as a table whose prototype is PGlite's. Given
        // them in `options` (drizzle gives them with every statement), `parseResults` copies
        // PGlite's whole table (a parser per type, some 300) into a new object for every answer:
        // it took 0.23-0.40 ms per answer on this thread, most of it the copy.
        const parsers = options?.parsers
          ? Object.assign(Object.create(client.parsers), options.parsers)
          : client.parsers;
        const results = parse.parseResults(
          messages,
          parsers,
          options?.rowMode ? { rowMode: options.rowMode } : {},
        );
        return /** @type {Results} */ (results[statement.custom ? 1 : 0]);
      }),
    );
    return answer ?? plainQuery(text, params, options);
  };
  client.query = /** @type {PGlite["query"]} */ (query);
}
