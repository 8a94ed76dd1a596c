import { createHash } from "node:crypto";
import { canonicalize } from "./canonical-json.ts";

/**
 * A card's identity: sha256 (lower-case hex) of the RFC 8785 canonical JSON of the card without its
 * top-level `signatures`. A2A v1.0 signs the canonical card without them (JWS), so a worker that signs
 * its card again on every fetch serves the same card: no CardChanged, no new snapshot, no probe.
 */
export function cardHash(card: unknown): string {
  return createHash("sha256")
    .update(canonicalize(unsigned(card)), "utf8")
    .digest("hex");
}

function unsigned(card: unknown): unknown {
  if (card === null || typeof card !== "object" || Array.isArray(card) || !("signatures" in card)) return card;
  const { signatures: _signatures, ...rest } = card as Record<string, unknown>;
  return rest;
}
