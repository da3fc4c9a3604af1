/**
 * A TCP proxy in front of PostgreSQL that can cause the faults a real deployment meets:
 * `freeze()` stops forwarding in both directions (a stalled server or a silent network; new
 * connections are accepted and then hang too; bytes wait, they are not lost), `drop()` cuts every open connection (a restart),
 * `slow(ms)` delays every packet by `ms` in each direction (a distant or congested database; 0 ends
 * it; with `{ handshake: true }` a new connection's first bytes also wait the round trip of the TCP
 * handshake that the local accept skipped, as a distant server's would), `heal()` forwards again, `connections()` counts the connections open through it. Tests point
 * a real driver at `url` and cause the fault for real.
 */
import net, { type AddressInfo } from "node:net";

export interface FaultProxy {
  url: string;
  freeze: () => void;
  slow: (ms: number, options?: { handshake?: boolean }) => void;
  drop: () => void;
  heal: () => void;
  connections: () => number;
  close: () => Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let frozen = false;
  let latencyMs = 0;
  let handshake = false;
  const pairs = new Set<{ client: net.Socket; server: net.Socket }>();
  const proxy = net.createServer((client) => {
    const server = net.connect({ host: upstream.hostname, port: Number(upstream.port) || 5432 });
    client.setNoDelay(true);
    server.setNoDelay(true);
    const pair = { client, server };
    pairs.add(pair);
    // The client's first bytes leave once SYN and SYN-ACK would have crossed (one round trip).
    const readyAt = Date.now() + (handshake ? 2 * latencyMs : 0);
    // While frozen nothing moves: both directions are paused, as by a stalled server or network.
    // With a latency every chunk is held that long (delivery times never decrease: order is kept).
    const forward = (from: net.Socket, to: net.Socket, waitForHandshake: boolean) =>
      from.on("data", (chunk: Buffer) => {
        const delay = Math.max(0, (waitForHandshake ? readyAt : 0) - Date.now()) + latencyMs;
        if (delay === 0) to.write(chunk);
        else setTimeout(() => to.destroyed || to.write(chunk), delay);
      });
    forward(client, server, true);
    forward(server, client, false);
    if (frozen) {
      client.pause();
      server.pause();
    }
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on("close", end).on("error", end);
    server.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    freeze: () => {
      frozen = true;
      for (const { client, server } of pairs) {
        client.pause();
        server.pause();
      }
    },
    drop: () => {
      for (const { client, server } of pairs) {
        client.destroy();
        server.destroy();
      }
      pairs.clear();
    },
    slow: (ms: number, options: { handshake?: boolean } = {}) => {
      latencyMs = ms;
      handshake = options.handshake === true;
    },
    heal: () => {
      frozen = false;
      latencyMs = 0;
      handshake = false;
      for (const { client, server } of pairs) {
        client.resume();
        server.resume();
      }
    },
    connections: () => pairs.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, server } of pairs) {
          client.destroy();
          server.destroy();
        }
        proxy.close(() => resolve());
      }),
  };
}
