/** @a2a-ledger/ingest-client — typed client of the a2a-ledger ingest API. */
export { IngestClient, IngestRejectedError, IngestUnavailableError, retryAfterMs, type ErrorDetail, type IngestClientOptions, type SendResult } from "./client.ts";
export type { ObservationInput } from "./observation-input.ts";
