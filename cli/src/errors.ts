/**
 * The CLI's catalogue of stable codes (@a2a-ledger/env's shape): why `a2a-ledger policy set` refused a
 * change (policy-change.ts) or found it overtaken. None is an HTTP answer: the CLI prints the code with
 * its message and exits 2 (a refusal, nothing written) or 1 (`POLICY_CONCURRENT_SET`).
 */
import { defineErrorCatalogue } from "@a2a-ledger/env";

export const cliErrors = defineErrorCatalogue("POLICY", {
  POLICY_BAD_VALID_FROM: {
    status: null,
    message: "--valid-from is neither epoch milliseconds nor ISO-8601 with an offset.",
  },
  POLICY_VALID_FROM_TOO_EARLY: {
    status: null,
    message: "--valid-from is earlier than now + 5 s: events before it may already have been decided.",
  },
  POLICY_BAD_VENDOR: {
    status: null,
    message: "A vendor of --trusted-vendors is longer than 200 characters or holds control characters.",
  },
  POLICY_BAD_DURATION: { status: null, message: "A duration is not one from 1s to 365d, nor `default`." },
  POLICY_BAD_FALLBACK: { status: null, message: "A fallback is not SKILL=DURATION (`*` for every skill), nor `none`." },
  POLICY_CONCURRENT_SET: {
    status: null,
    message: "Another `policy set` wrote the same version at the same moment; run `policy show` and set again.",
  },
});

export type CliErrorCode = keyof typeof cliErrors;
