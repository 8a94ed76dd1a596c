/** Field-level differences between two cards as RFC 6901 JSON pointers, values in canonical JSON (R8). */
import type { FieldChange } from "@a2a-ledger/schemas";
import { canonicalize } from "./canonical-json.ts";

const escape = (token: string): string => token.replace(/~/g, "~0").replace(/\//g, "~1");
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function walk(before: unknown, after: unknown, path: string, out: FieldChange[]): void {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const child = `${path}/${escape(key)}`;
      const has = [Object.hasOwn(before, key), Object.hasOwn(after, key)];
      if (has[0] && has[1]) walk(before[key], after[key], child, out);
      else
        out.push({
          path: child,
          before: has[0] ? canonicalize(before[key]) : null,
          after: has[1] ? canonicalize(after[key]) : null,
        });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const child = `${path}/${i}`;
      if (i < before.length && i < after.length) walk(before[i], after[i], child, out);
      else
        out.push({
          path: child,
          before: i < before.length ? canonicalize(before[i]) : null,
          after: i < after.length ? canonicalize(after[i]) : null,
        });
    }
    return;
  }
  const b = canonicalize(before);
  const a = canonicalize(after);
  if (a !== b) out.push({ path, before: b, after: a });
}

/** Every changed leaf (or added/removed member) between two parsed cards, sorted by path. */
export function diffCards(before: unknown, after: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  walk(before, after, "", out);
  return out;
}
