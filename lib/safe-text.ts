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
 * text, or null when there is none. Walks plain JSON values (objects, arrays, strings).
 */
export function findUnsafeText(value: unknown, path: readonly (string | number)[] = []): string | null {
  if (typeof value === "string") return hasUnsafeText(value) ? path.join(".") || "(value)" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeText(value[i], [...path, i]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      if (hasUnsafeText(key)) return [...path, key].join(".");
      const found = findUnsafeText(child, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}
