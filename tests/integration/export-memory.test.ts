/**
 * An export's memory stays flat: a history five times longer makes a file five times larger and
 * leaves the memory an export takes where it was. Measured in a child process of its own
 * (tests/support/export-memory.ts: a full collection after every chunk, heap and array buffers in
 * use, the peak over the download less what was in use before), so nothing of the test runner's
 * own heap counts. A first, small export warms the code up and is not compared.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { testDatabaseKind } from "../helpers/db";

interface Measured {
  rows: number;
  format: string;
  bytes: number;
  chunks: number;
  growthBytes: number;
}

const WARM_UP = 200;
/** Enough pages (of 1,000 rows) that the small one already holds what any export holds at once. */
const SMALL = 4_000;
const LARGE = 20_000;
/**
 * What the large export may take beyond the small one's: less than half of what its file adds
 * (3.1 MB of CSV, 5.6 MB of JSON). Measured on PGlite and PostgreSQL the difference was -0.1 to
 * +0.9 MB over six runs; gathering a section's pages before writing them took 11 MB more.
 */
const MARGIN_BYTES = 1_500_000;

describe("export memory", () => {
  it(`stays flat from ${SMALL} to ${LARGE} transactions (JSON and CSV)`, async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        "tests/support/export-memory.ts",
        JSON.stringify([WARM_UP, SMALL, LARGE]),
      ],
      {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: { ...process.env, LEDGERLINK_TEST_DB: testDatabaseKind() },
        maxBuffer: 1_000_000,
        timeout: 240_000,
      },
    );
    const measured = JSON.parse(stdout.trim().split("\n").pop() ?? "[]") as Measured[];
    console.log(
      `[export memory, ${testDatabaseKind()}] ${measured
        .map(
          (m) =>
            `${m.rows} rows ${m.format}: ${m.bytes} bytes in ${m.chunks} chunks, +${m.growthBytes} bytes`,
        )
        .join("; ")}`,
    );
    for (const format of ["json", "csv"]) {
      const small = measured.find((m) => m.rows === SMALL && m.format === format);
      const large = measured.find((m) => m.rows === LARGE && m.format === format);
      if (!small || !large) throw new Error(`missing ${format} measurements`);
      // The file really is five times larger, by more than twice the margin ...
      expect(large.bytes).toBeGreaterThan(4.5 * small.bytes);
      expect(large.bytes - small.bytes).toBeGreaterThan(2 * MARGIN_BYTES);
      // ... and the memory it takes is not, and never the file's size.
      expect(large.growthBytes, format).toBeLessThan(small.growthBytes + MARGIN_BYTES);
      expect(large.growthBytes, format).toBeLessThan(large.bytes);
    }
  }, 300_000);
});
