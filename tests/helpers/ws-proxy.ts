/**
 * A WebSocket-to-TCP proxy, the piece Neon runs in front of Postgres, so the production Neon
 * driver (`@neondatabase/serverless`) can be tested against the local PostgreSQL server.
 * Neon's driver connects to `ws://<proxy>/v2?address=host:port` and speaks the Postgres wire
 * protocol inside binary WebSocket messages.
 */

import type { AddressInfo } from "node:net";
import net from "node:net";
import { WebSocketServer } from "ws";

export async function startWsProxy(): Promise<{ port: number; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (socket, request) => {
    const address = new URL(request.url ?? "/", "ws://proxy").searchParams.get("address") ?? "";
    const [host, port] = address.split(":");
    const tcp = net.connect({ host: host === "localhost" ? "127.0.0.1" : host, port: Number(port) || 5432 });
    tcp.on("data", (chunk) => socket.send(chunk));
    tcp.on("close", () => socket.close());
    tcp.on("error", () => socket.close());
    socket.on("message", (data) => tcp.write(data as Buffer));
    socket.on("close", () => tcp.destroy());
  });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const { port } = wss.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
