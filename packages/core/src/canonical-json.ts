/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 * - object members sorted by their names as UTF-16 code unit sequences (JS string comparison);
 * - numbers in the ECMAScript Number-to-String form (what JSON.stringify emits); non-finite is an error;
 * - strings escaped as JSON.stringify does (the JCS escaping rules are the ECMAScript ones);
 * - no whitespace.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class CanonicalJsonError extends Error {}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function write(value: unknown, out: string[]): void {
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`cannot canonicalize non-finite number ${value}`);
      out.push(JSON.stringify(value)); // -0 becomes "0", exponents as ECMAScript prints them
      return;
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "object": {
      if (Array.isArray(value)) {
        out.push("[");
        value.forEach((item, i) => {
          if (i > 0) out.push(",");
          write(item, out);
        });
        out.push("]");
        return;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort(compareCodeUnits);
      out.push("{");
      keys.forEach((key, i) => {
        if (i > 0) out.push(",");
        out.push(JSON.stringify(key), ":");
        write(record[key], out);
      });
      out.push("}");
      return;
    }
    default:
      throw new CanonicalJsonError(`cannot canonicalize a ${typeof value}`);
  }
}

/** The RFC 8785 canonical text of a JSON value. */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join("");
}
