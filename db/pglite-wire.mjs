// @ts-check
/**
 * A statement's answer read from the bytes PostgreSQL wrote for it (its wire protocol messages),
 * into the rows PGlite's own `parseResults` makes of them: the same rows, fields, command and
 * counts, each value parsed by the caller's parser for its type, else PGlite's default one, else
 * kept as text; arrays by PGlite's array parser over their element's default parser.
 *
 * PGlite's thread (db/pglite-prepared.mjs) sends these bytes to the request thread as they are,
 * in one transferred buffer, and the request thread reads them here: the thread that runs
 * PostgreSQL's WASM no longer builds a message object and copies a buffer per value, nor clones
 * every row into its reply, as a server sends its rows over a socket and the client reads them.
 *
 * Plain JavaScript: PGlite's thread imports it as it is (with db/pglite-prepared.mjs).
 */
import { types } from "@electric-sql/pglite";

/** @typedef {import("@electric-sql/pglite").Results} Results */
/** @typedef {(value: string, typeId?: number) => unknown} Parser */

/**
 * How to read an answer: which result set is the statement's (`pick`: those before it are set up
 * by the same exchange), rows as arrays or objects, the caller's parsers, and, by type id, the
 * element type of each array type among its fields.
 * @typedef {{
 *   pick: number,
 *   rowMode?: "array" | "object" | undefined,
 *   parsers?: Record<number, Parser> | undefined,
 *   elements: Record<number, number>,
 * }} Reading
 */

const decoder = new TextDecoder();
const defaults = /** @type {Record<number, Parser>} */ (types.parsers);

/**
 * The parser of a value of type `typeId`, as PGlite's `parseType` picks it (undefined: kept as text).
 * @param {number} typeId
 * @param {Reading} reading
 * @returns {Parser | undefined}
 */
function parserOf(typeId, reading) {
  const own = reading.parsers?.[typeId] ?? defaults[typeId];
  if (own) return own;
  const element = reading.elements[typeId];
  if (element === undefined) return undefined;
  const ofElement = defaults[element];
  // PGlite's array parser keeps an element as text when its type has no parser.
  return (value) => types.arrayParser(value, /** @type {Parser} */ (ofElement), typeId);
}

/**
 * UTF-8 text of `bytes[start, end)`; short ASCII (numbers, dates, most names) without the decoder.
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 */
function text(bytes, start, end) {
  if (end - start <= 24) {
    let out = "";
    for (let i = start; i < end; i++) {
      const byte = /** @type {number} */ (bytes[i]);
      if (byte > 0x7f) return decoder.decode(bytes.subarray(start, end));
      out += String.fromCharCode(byte);
    }
    return out;
  }
  return decoder.decode(bytes.subarray(start, end));
}

/**
 * The result set `reading.pick` of `wire` (the messages of one exchange with the backend), as
 * PGlite's `parseResults(messages, parsers, options)[pick]`.
 * @param {Uint8Array} wire
 * @param {Reading} reading
 * @returns {Results}
 */
export function readAnswer(wire, reading) {
  const view = new DataView(wire.buffer, wire.byteOffset, wire.byteLength);
  const objects = reading.rowMode !== "array";
  /** @type {Array<{ name: string, dataTypeID: number }>} */
  let fields = [];
  /** @type {Array<Parser | undefined>} */
  let parsers = [];
  /** @type {Results["rows"]} */
  let rows = [];
  // A column named `__proto__` is set as PGlite sets it (an own property), not assigned.
  let entries = false;
  let set = 0;
  let affectedRows = 0;
  for (let at = 0; at + 5 <= wire.length; ) {
    const code = wire[at];
    const end = at + 1 + view.getUint32(at + 1);
    let p = at + 5;
    if (code === 0x54 /* T: RowDescription */ && set === reading.pick) {
      const count = view.getInt16(p);
      p += 2;
      fields = [];
      parsers = [];
      for (let i = 0; i < count; i++) {
        const nul = wire.indexOf(0, p);
        const name = text(wire, p, nul);
        const dataTypeID = view.getInt32(nul + 7);
        p = nul + 19;
        fields.push({ name, dataTypeID });
        parsers.push(parserOf(dataTypeID, reading));
        if (name === "__proto__") entries = true;
      }
    } else if (code === 0x44 /* D: DataRow */ && set === reading.pick) {
      const count = view.getInt16(p);
      p += 2;
      const values = new Array(count);
      for (let i = 0; i < count; i++) {
        const length = view.getInt32(p);
        p += 4;
        if (length < 0) {
          values[i] = null;
          continue;
        }
        const raw = text(wire, p, p + length);
        p += length;
        const parser = parsers[i];
        values[i] = parser ? parser(raw, /** @type {{ dataTypeID: number }} */ (fields[i]).dataTypeID) : raw;
      }
      if (!objects) rows.push(values);
      else if (entries) rows.push(Object.fromEntries(fields.map((f, i) => [f.name, values[i]])));
      else {
        /** @type {Record<string, unknown>} */
        const row = {};
        for (let i = 0; i < count; i++) row[/** @type {{ name: string }} */ (fields[i]).name] = values[i];
        rows.push(row);
      }
    } else if (code === 0x43 /* C: CommandComplete */) {
      const tag = text(wire, p, end - 1);
      const parts = tag.split(" ");
      const command = /** @type {string} */ (parts[0]);
      const rowCount = Number.parseInt(/** @type {string} */ (parts[parts.length - 1]), 10);
      if (["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"].includes(command)) affectedRows += rowCount;
      if (set === reading.pick) {
        /** @type {Results} */
        const result = { rows, fields, command, affectedRows };
        if (!Number.isNaN(rowCount)) result.rowCount = rowCount;
        return result;
      }
      set += 1;
      fields = [];
      parsers = [];
      rows = [];
    }
    at = end;
  }
  return { affectedRows: 0, rows: [], fields: [] };
}

/**
 * Whether `wire` holds an ErrorResponse (its messages walked by their lengths only).
 * @param {Uint8Array} wire
 */
export function holdsError(wire) {
  const view = new DataView(wire.buffer, wire.byteOffset, wire.byteLength);
  for (let at = 0; at + 5 <= wire.length; at += 1 + view.getUint32(at + 1))
    if (wire[at] === 0x45 /* E */) return true;
  return false;
}
