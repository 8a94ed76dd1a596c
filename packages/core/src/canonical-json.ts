/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 * - object members sorted by their names as UTF-16 code unit sequences (JS string comparison);
 * - numbers in the ECMAScript Number-to-String form (what JSON.stringify emits); non-finite is an error;
 * - strings escaped as JSON.stringify does (the JCS escaping rules are the ECMAScript ones);
 * - no whitespace.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class CanonicalJsonError extends Error {}

/** A quote, a backslash, a control character or a surrogate: JSON.stringify must escape it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: RFC 8785 escapes exactly these characters
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON text; the common string with nothing to escape skips JSON.stringify. */
function quote(text: string): string {
  return needsEscape.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function write(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`cannot canonicalize non-finite number ${value}`);
      return JSON.stringify(value); // -0 becomes "0", exponents as ECMAScript prints them
    case "string":
      return quote(value);
    case "object": {
      if (Array.isArray(value)) {
        let text = "[";
        for (let i = 0; i < value.length; i++) text += i > 0 ? `,${write(value[i])}` : write(value[i]);
        return `${text}]`;
      }
      const record = value as Record<string, unknown>;
      // Without a comparator, sort orders strings by UTF-16 code units, which is what JCS asks for.
      const keys = Object.keys(record).sort();
      let text = "{";
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const member = record[key];
        if (member === undefined) continue;
        text += `${text.length > 1 ? "," : ""}${quote(key)}:${write(member)}`;
      }
      return `${text}}`;
    }
    default:
      throw new CanonicalJsonError(`cannot canonicalize a ${typeof value}`);
  }
}

/** The RFC 8785 canonical text of a JSON value. */
export function canonicalize(value: unknown): string {
  return write(value);
}
