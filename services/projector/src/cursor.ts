/**
 * Opaque pagination cursors: the position of the last item shown, bound to the query it came from
 * (route and filters) and signed with HMAC-SHA256, so a cursor that was altered, forged or reused with
 * other filters is refused with PROJECTOR_BAD_CURSOR instead of reaching SQL.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ProjectorError } from "./errors.ts";

export type CursorPosition = readonly (string | number)[];

/** What every cursor this service issues looks like: base64url JSON, '.', an 18-byte base64url signature. */
export const maxCursorChars = 1_024;
export const cursorPattern = "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{24}$";
const cursorShape = new RegExp(cursorPattern);

/** Whether `cursor` has the shape of one this service issues (its signature is checked by decode). */
export const wellFormedCursor = (cursor: string): boolean =>
  cursor.length <= maxCursorChars && cursorShape.test(cursor);

export class Cursors {
  constructor(private readonly secret: string) {}

  private sign(text: string): Buffer {
    return createHmac("sha256", this.secret).update(text).digest().subarray(0, 18);
  }

  encode(scope: string, position: CursorPosition): string {
    const body = Buffer.from(JSON.stringify({ s: scope, p: position })).toString("base64url");
    return `${body}.${this.sign(body).toString("base64url")}`;
  }

  /** The position a cursor holds; PROJECTOR_BAD_CURSOR for anything this service did not issue for `scope`. */
  decode(scope: string, cursor: string, shape: readonly ("string" | "number")[]): CursorPosition {
    const bad = (why: string) =>
      new ProjectorError("PROJECTOR_BAD_CURSOR", `The cursor is not valid for this query: ${why}.`, "cursor");
    if (!wellFormedCursor(cursor)) throw bad("malformed");
    const [body, signature] = cursor.split(".") as [string, string];
    const given = Buffer.from(signature, "base64url");
    const expected = this.sign(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad("signature mismatch");
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    } catch {
      throw bad("malformed");
    }
    const { s, p } = (parsed ?? {}) as { s?: unknown; p?: unknown };
    if (s !== scope) throw bad("it was issued for another query");
    if (
      !Array.isArray(p) ||
      p.length !== shape.length ||
      p.some((v, i) => typeof v !== shape[i] || (typeof v === "number" && !Number.isSafeInteger(v)))
    )
      throw bad("malformed");
    return p as CursorPosition;
  }
}
