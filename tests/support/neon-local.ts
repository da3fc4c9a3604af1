/**
 * A local stand-in for Neon's proxy, in front of the local PostgreSQL server, so the production
 * Neon driver (`@neondatabase/serverless`) runs unchanged against it in tests and the bench. It
 * serves both of the driver's transports on one plain-HTTP port:
 *
 * - WebSocket `GET /v2?address=host:port` (the Pool and Client): the PostgreSQL wire protocol in
 *   binary messages, tunnelled to `address` over TCP (what tests/helpers/ws-proxy.ts does alone).
 * - HTTP `POST /sql` (`neon()`, drizzle-orm/neon-http): Neon's SQL-over-HTTP, as the driver speaks
 *   it. The request carries the connection string in `Neon-Connection-String`, asks for raw text
 *   values (`Neon-Raw-Text-Output: true`) and rows as arrays (`Neon-Array-Mode: true`), and its
 *   JSON body is one `{ query, params }` or a batch `{ queries: [{ query, params }, …] }` run in
 *   one transaction (`Neon-Batch-Isolation-Level`, `-Read-Only`, `-Deferrable`). The answer is
 *   `{ command, rowCount, rows, fields, rowAsArray }` (rows of text or null, fields as
 *   node-postgres names them), a batch `{ results: [ … ] }`; a PostgreSQL error is HTTP 400 with
 *   `{ message, code, severity, detail, hint, position, … }`, which the driver turns into its
 *   NeonDbError field by field; any other failure a non-400 status with a text body.
 *   Like Neon's, each request runs on a pooled connection of its own: no session outlives it.
 *
 * The driver is pointed here by db/index.ts when NEON_LOCAL_PROXY is `127.0.0.1:<port>`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import pg from "pg";
import { WebSocketServer } from "ws";

export interface NeonLocal {
  /** `127.0.0.1:<port>`: the value of NEON_LOCAL_PROXY. */
  host: string;
  port: number;
  /** SQL-over-HTTP requests answered (tests check that the HTTP mode was used). */
  httpRequests: () => number;
  close: () => Promise<void>;
}

/** The fields of a PostgreSQL error that Neon's answer carries (the driver copies each onto its error). */
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "read uncommitted",
  ReadCommitted: "read committed",
  RepeatableRead: "repeatable read",
  Serializable: "serializable",
};

interface QueryData {
  query: string;
  params?: unknown[];
}

/** Every value as PostgreSQL's text (Neon-Raw-Text-Output). */
const rawText = { getTypeParser: () => (value: string) => value };

export async function startNeonLocal(): Promise<NeonLocal> {
  const pools = new Map<string, pg.Pool>();
  const poolFor = (connectionString: string) => {
    let pool = pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({ connectionString, max: 20 });
      pool.on("error", () => undefined);
      pools.set(connectionString, pool);
    }
    return pool;
  };
  let answered = 0;

  const run = async (client: pg.PoolClient, data: QueryData, arrayMode: boolean) => {
    const config = {
      text: data.query,
      values: data.params ?? [],
      types: rawText,
      ...(arrayMode ? { rowMode: "array" as const } : {}),
    };
    const result: pg.QueryResult = await client.query(config as pg.QueryConfig);
    return {
      command: result.command,
      rowCount: result.rowCount,
      rows: result.rows,
      fields: result.fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: f.format,
      })),
      rowAsArray: arrayMode,
    };
  };

  const answer = async (req: http.IncomingMessage): Promise<{ status: number; body: string }> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const connectionString = String(req.headers["neon-connection-string"] ?? "");
    if (!connectionString)
      return { status: 400, body: JSON.stringify({ message: "missing connection string" }) };
    const arrayMode = req.headers["neon-array-mode"] === "true";
    let body: { query?: string; params?: unknown[]; queries?: QueryData[] };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return { status: 400, body: JSON.stringify({ message: "request body is not JSON" }) };
    }
    let client: pg.PoolClient;
    try {
      client = await poolFor(connectionString).connect();
    } catch (error) {
      return { status: 502, body: `could not connect to the database: ${(error as Error).message}` };
    }
    let broken = false;
    try {
      if (Array.isArray(body.queries)) {
        const isolation = ISOLATION[String(req.headers["neon-batch-isolation-level"] ?? "")];
        const readOnly = req.headers["neon-batch-read-only"] === "true";
        const deferrable = req.headers["neon-batch-deferrable"] === "true";
        await client.query(
          `begin${isolation ? ` isolation level ${isolation}` : ""}${readOnly ? " read only" : ""}${deferrable ? " deferrable" : ""}`,
        );
        try {
          const results = [];
          for (const query of body.queries) results.push(await run(client, query, arrayMode));
          await client.query("commit");
          return { status: 200, body: JSON.stringify({ results }) };
        } catch (error) {
          await client.query("rollback").catch(() => {
            broken = true;
          });
          throw error;
        }
      }
      return {
        status: 200,
        body: JSON.stringify(
          await run(client, { query: String(body.query ?? ""), params: body.params }, arrayMode),
        ),
      };
    } catch (error) {
      const failure = error as Error & Record<string, unknown>;
      if (typeof failure.code !== "string" || !/^[0-9A-Z]{5}$/.test(failure.code)) {
        broken = true;
        return { status: 502, body: `database error: ${failure.message}` };
      }
      const fields = Object.fromEntries(ERROR_FIELDS.map((name) => [name, failure[name]]));
      return { status: 400, body: JSON.stringify({ message: failure.message, ...fields }) };
    } finally {
      client.release(broken);
    }
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://neon.local").pathname;
    if (req.method !== "POST" || path !== "/sql") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    answer(req).then(
      ({ status, body }) => {
        answered += 1;
        res
          .writeHead(status, {
            "content-type": status === 200 || status === 400 ? "application/json" : "text/plain",
          })
          .end(body);
      },
      (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(error.message),
    );
  });
  // Keep connections open between requests, as Neon's endpoint does for a warm function.
  server.keepAliveTimeout = 60_000;

  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "ws://neon.local");
    if (url.pathname !== "/v2") return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const [host, port] = (url.searchParams.get("address") ?? "").split(":");
      const tcp = net.connect({
        host: host === "localhost" ? "127.0.0.1" : host,
        port: Number(port) || 5432,
      });
      tcp.setNoDelay(true);
      tcp.on("data", (chunk) => ws.send(chunk));
      tcp.on("close", () => ws.close());
      tcp.on("error", () => ws.close());
      ws.on("message", (data) => tcp.write(data as Buffer));
      ws.on("close", () => tcp.destroy());
      ws.on("error", () => tcp.destroy());
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    port,
    httpRequests: () => answered,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...pools.values()].map((pool) => pool.end()));
    },
  };
}
