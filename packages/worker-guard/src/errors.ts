/**
 * The guard's one catalogue of stable error codes. `EmissionRefusedError` is what an executor sees
 * when it tries to emit something the card in force does not advertise: `publish` throws it and
 * nothing reaches the task store or any client.
 */
import { defineErrorCatalogue } from "@a2a-ledger/env";
import type { Verdict } from "./emission-check.ts";

/** Entries of the shape every service's catalogue has (@a2a-ledger/env); none is an HTTP answer. */
export const guardErrorCodes = defineErrorCatalogue("GUARD", {
  /** A status update (or the task's first event) in a state the card in force does not advertise. */
  GUARD_STATE_NOT_ADVERTISED: { status: null, message: "the card in force does not advertise this task state" },
  /** An artifact part whose media type is outside the skill's output modes in the card in force. */
  GUARD_OUTPUT_MODE_NOT_ADVERTISED: {
    status: null,
    message: "the card in force does not advertise this output mode for the skill",
  },
  /** The card provider threw or returned something that is not a card: nothing is emitted unchecked. */
  GUARD_CARD_UNAVAILABLE: { status: null, message: "the card in force could not be read" },
});

export type GuardErrorCode = keyof typeof guardErrorCodes;

export class EmissionRefusedError extends Error {
  override name = "EmissionRefusedError";
  constructor(
    readonly code: GuardErrorCode,
    message: string,
    /** The rule's verdict; null when the card could not be read. */
    readonly verdict: Extract<Verdict, { allowed: false }> | null,
    readonly serverTaskId: string,
  ) {
    super(`${code}: ${message}`);
  }
}
