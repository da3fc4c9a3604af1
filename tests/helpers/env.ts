import { resetEnvCache } from "@/lib/env";

/** Runs `fn` with `settings` in process.env (the env cache reset around it), then puts back what was there. */
export async function withEnv<T>(settings: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const previous = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
  Object.assign(process.env, settings);
  resetEnvCache();
  try {
    return await fn();
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetEnvCache();
  }
}
