import { createHash } from "node:crypto";
import { canonicalize } from "./canonical-json.ts";

/** sha256 (lower-case hex) of the RFC 8785 canonical JSON of a card. */
export function cardHash(card: unknown): string {
  return createHash("sha256").update(canonicalize(card), "utf8").digest("hex");
}
