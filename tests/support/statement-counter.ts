/**
 * Counts what a request costs the database, at the driver (db/index.ts `observe`): statements,
 * and sequential round trips ("waves": a wave starts when a statement is sent while none is in
 * flight; statements sent together form one). Used by the statement-budget test and by
 * `npm run bench`.
 */
import type { QueryObserver } from "@/db";

export interface StatementCount {
  statements: number;
  waves: number;
}

/**
 * The rate-limit sweep (lib/mcp/server.ts): about one new rate-limit window in a hundred runs it
 * after its answer, at random. Housekeeping shared by all callers, not the request's own work.
 */
export function isRateLimitSweep(text: string): boolean {
  return /^delete from "rate_limits"/i.test(text.trim());
}

export class StatementCounter implements QueryObserver {
  private statements = 0;
  private waves = 0;
  private inFlight = 0;
  /** The text of each statement since the last `take()`. */
  texts: string[] = [];

  started(text: string): undefined {
    this.texts.push(text);
    if (this.inFlight === 0) this.waves += 1;
    this.inFlight += 1;
    this.statements += 1;
  }

  finished(): void {
    this.inFlight -= 1;
  }

  /** What was counted since the last `take()`, and start again from zero. */
  take(): StatementCount {
    const count = { statements: this.statements, waves: this.waves };
    this.statements = 0;
    this.waves = 0;
    this.texts = [];
    return count;
  }

  /** As `take()`, without the rate-limit sweeps among the statements (`isRateLimitSweep`). */
  takeWithoutSweeps(): StatementCount {
    const sweeps = this.texts.filter(isRateLimitSweep).length;
    const count = this.take();
    return { ...count, statements: count.statements - sweeps };
  }
}
