/**
 * A file download streamed from an async sequence of text chunks (lib/export/files.ts). The body
 * pulls a chunk when the connection takes one, with two chunks at most waiting (and a page read
 * ahead), so a slow download reads the database at its pace and holds a few pages, not the file. A failure part-way errors the
 * body, and the connection is cut before its end: the browser reports a failed download instead
 * of saving a file that looks whole but is not.
 */
import type { Database } from "@/db";
import { getEnv } from "@/lib/env";
import { failureFields } from "@/lib/errors";
import { todayIn } from "@/lib/finance/periods";
import { log } from "@/lib/log";
import { getConsentSession, sessionTokenFromCookies } from "@/lib/oauth/session";
import { getTimezone } from "@/lib/timezone";
import { exportJson, exportTransactionsCsv } from "./files";

/** The files an export offers: `?format=json` (everything, the default) or `?format=csv` (transactions). */
const EXPORT_FORMATS: readonly string[] = ["json", "csv"];

/**
 * GET /api/export: the signed-in person's export. The session is read here, from the request's own
 * cookie (the same row Auth.js reads), and every page of the file is read for that person alone.
 * Signed out: back to the sign-in page, then to Settings. An unknown format: 400 naming it.
 */
export async function exportDownload(db: Database, request: Request, now = new Date()): Promise<Response> {
  const format = new URL(request.url).searchParams.get("format") ?? "json";
  if (!EXPORT_FORMATS.includes(format)) {
    return Response.json(
      { error: "invalid_input", message: `The format must be json or csv, not "${format.slice(0, 20)}".` },
      { status: 400 },
    );
  }
  const session = await getConsentSession(db, sessionTokenFromCookies(request.headers.get("cookie")));
  if (!session) {
    const signIn = new URL("/sign-in", getEnv().APP_URL);
    signIn.searchParams.set("callbackUrl", "/dashboard/settings");
    return new Response(null, {
      status: 303,
      headers: { Location: signIn.toString(), "Cache-Control": "no-store" },
    });
  }
  const { zone } = await getTimezone(db, session.userId);
  const day = todayIn(zone, now);
  return format === "csv"
    ? streamedDownload(exportTransactionsCsv(db, session.userId), {
        name: `ledgerlink-transactions-${day}.csv`,
        type: "text/csv; charset=utf-8; header=present",
      })
    : streamedDownload(exportJson(db, session.userId, { now }), {
        name: `ledgerlink-export-${day}.json`,
        type: "application/json; charset=utf-8",
      });
}

export interface DownloadFile {
  /** The file name offered to the browser (ASCII letters, digits, dots and dashes). */
  name: string;
  /** Its media type, with its charset. */
  type: string;
}

/** A response that downloads `chunks` as `file`, never stored by a cache. */
export function streamedDownload(chunks: AsyncGenerator<string>, file: DownloadFile): Response {
  if (!/^[A-Za-z0-9.-]+$/.test(file.name)) throw new Error(`not a plain file name: ${file.name}`);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          log.error("export.failed_part_way", failureFields(error));
          controller.error(error);
        }
      },
      async cancel() {
        // The browser went away: stop reading.
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 2 },
  );
  return new Response(body, {
    headers: {
      "Content-Type": file.type,
      "Content-Disposition": `attachment; filename="${file.name}"`,
      "Cache-Control": "no-store",
    },
  });
}
