/**
 * Text PostgreSQL refuses (error 22021) or that no person meant to send: the NUL character and
 * UTF-16 lone surrogates. Every string from outside (tool arguments, OAuth parameters, form
 * fields, JSON bodies) is checked here before it reaches the database, so the caller gets an
 * error naming the field instead of a database failure.
 */

/** True when `text` holds a NUL character or a lone surrogate. */
export function hasUnsafeText(text: string): boolean {
  return text.includes("\u0000") || !text.isWellFormed();
}

/**
 * The path (`a.b.0`) of the first string, or object key, inside `value` that holds unsafe
 * text, or null when there is none. Walks plain JSON values (objects, arrays, strings) with a
 * stack of its own, in document order: a body nested tens of thousands deep (64 KB of `[`) is
 * walked in linear time, where recursion overflowed the call stack (a 500) and copying the path
 * at every level cost time in the square of the depth.
 */
export function findUnsafeText(value: unknown): string | null {
  interface Step {
    value: unknown;
    /** Where `value` sits in its parent (null for the root). */
    key: string | number | null;
    parent: Step | null;
  }
  const pathOf = (step: Step): string => {
    const parts: Array<string | number> = [];
    for (let at: Step | null = step; at && at.key !== null; at = at.parent) parts.push(at.key);
    return parts.reverse().join(".") || "(value)";
  };
  const stack: Step[] = [{ value, key: null, parent: null }];
  for (let step = stack.pop(); step; step = stack.pop()) {
    // An object's key is checked before what it holds, as the walk reaches it.
    if (typeof step.key === "string" && hasUnsafeText(step.key)) return pathOf(step);
    const current = step.value;
    if (typeof current === "string") {
      if (hasUnsafeText(current)) return pathOf(step);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: step });
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        stack.push({ value: child, key, parent: step });
      }
    }
  }
  return null;
}
