/** @a2a-ledger/a2a-client — an @a2a-js/sdk client for orchestrators that records to the ledger and asks its route. */
export {
  LedgerA2AClient,
  agentCardPath,
  ledgerHeadersOf,
  ledgerMetadataOf,
  type ClientTransport,
  type DispatchCall,
  type FetchedCard,
  type LedgerClientOptions,
  type TaskCall,
} from "./ledger-client.ts";
export {
  ObservationRecorder,
  type ObservationSender,
  type RecorderOptions,
  type RecordingProblem,
  type RecordingStats,
} from "./recorder.ts";
export {
  LedgerRoute,
  type IneligibleWorker,
  type LedgerRouteOptions,
  type RouteAnswer,
  type RouteRequest,
  type RoutedWorker,
  type VerifiedCard,
} from "./route-client.ts";
export { notFoundVerdict, type NotFoundFacts } from "./not-found-verdict.ts";
export { A2AClientError, clientErrorCatalogue, clientErrorCodes, type ClientErrorCode } from "./errors.ts";
export type {
  GetTaskOutcome,
  Indeterminate,
  MessageAnswer,
  NotFoundOutcome,
  Purged,
  Refused,
  SendOutcome,
  TaskAnswer,
  UnknownTask,
} from "./results.ts";
export {
  correlationHeaderName,
  correlationMetadataKey,
  skillMetadataKey,
  attemptMetadataKey,
} from "@a2a-ledger/ingest-client";
