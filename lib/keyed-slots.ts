/**
 * In-process slots per key: at most `limit` holders of one key at a time, the rest wait in line
 * up to `waitMs`. The MCP endpoint keys them by credential so one caller's slow requests can hold
 * only part of the database pool, never all of it: other callers keep being answered.
 */
export interface KeyedSlots {
  /** A release function, or null when no slot freed within the wait. */
  acquire: (key: string) => Promise<(() => void) | null>;
  /** Keys currently holding or waiting for slots (tests). */
  size: () => number;
}

export function createKeyedSlots(limit: number, waitMs: number): KeyedSlots {
  const lines = new Map<string, { held: number; waiting: Array<() => void> }>();

  const releaser = (key: string) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const line = lines.get(key);
      if (!line) return;
      const next = line.waiting.shift();
      if (next) return next(); // The slot passes straight to the next in line.
      line.held -= 1;
      if (line.held === 0) lines.delete(key);
    };
  };

  return {
    size: () => lines.size,
    acquire(key) {
      let line = lines.get(key);
      if (!line) {
        line = { held: 0, waiting: [] };
        lines.set(key, line);
      }
      if (line.held < limit) {
        line.held += 1;
        return Promise.resolve(releaser(key));
      }
      const queue = line.waiting;
      return new Promise((resolve) => {
        const take = () => {
          clearTimeout(timer);
          resolve(releaser(key));
        };
        const timer = setTimeout(() => {
          const at = queue.indexOf(take);
          if (at >= 0) queue.splice(at, 1);
          resolve(null);
        }, waitMs);
        queue.push(take);
      });
    },
  };
}
