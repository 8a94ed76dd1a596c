/**
 * The client's own errors, each with a stable code, in the one catalogue shape of @a2a-ledger/env. They are
 * thrown to the caller, never an HTTP answer, so no code has a status. An A2A answer (even an error) is never
 * one of them: see results.ts.
 */
import { codesOf, defineErrorCatalogue } from "@a2a-ledger/env";

export const clientErrorCatalogue = defineErrorCatalogue("A2A_CLIENT", {
  A2A_CLIENT_CARD_UNAVAILABLE: {
    status: null,
    message: "The worker's card could not be fetched or is not a JSON object.",
  },
  A2A_CLIENT_WORKER_UNREACHABLE: {
    status: null,
    message:
      "The worker gave no answer (connection refused or reset, timeout): whether it took the message is unknown.",
  },
  A2A_CLIENT_MALFORMED_ANSWER: {
    status: null,
    message:
      "The worker answered something that is not an A2A answer; the dispatch is recorded, the answer is in `cause`.",
  },
  A2A_CLIENT_BAD_REQUEST: {
    status: null,
    message: "The call itself is invalid (an empty correlation id, say); nothing was sent.",
  },
  A2A_CLIENT_ROUTE_UNAVAILABLE: {
    status: null,
    message:
      "The ledger's route or verified card could not be read (projector down, or an answer that is not the documented shape).",
  },
  A2A_CLIENT_ROUTE_REFUSED: {
    status: null,
    message:
      "The projector refused the query with a stable code of its own (e.g. PROJECTOR_BAD_FILTER); `detail` holds it.",
  },
  A2A_CLIENT_NO_ELIGIBLE_WORKER: {
    status: null,
    message: "route answered no eligible worker; `detail` holds each worker's reason.",
  },
});

export type ClientErrorCode = keyof typeof clientErrorCatalogue;

/** The client's codes, in the order they are listed. */
export const clientErrorCodes = codesOf(clientErrorCatalogue);

export class A2AClientError extends Error {
  override name = "A2AClientError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly detail?: unknown,
    options?: { cause?: unknown },
  ) {
    super(`${code}: ${message}`, options);
  }
}
