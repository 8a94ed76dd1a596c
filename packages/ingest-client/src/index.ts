/** @a2a-ledger/ingest-client — typed client of the a2a-ledger ingest API, and the observations A2A clients and proxies record. */
export {
  IngestClient,
  IngestRejectedError,
  IngestUnavailableError,
  retryAfterMs,
  type ErrorDetail,
  type IngestClientOptions,
  type SendResult,
} from "./client.ts";
export type { ObservationInput } from "./observation-input.ts";
export {
  artifactSighting,
  sightingsOfJsonRpc,
  sightingsOfPayload,
  sightingsOfRest,
  summarizePart,
  taskNotFoundJsonRpcCode,
  type ArtifactSighting,
  type PartSummary,
  type Sighting,
} from "./a2a-response.ts";
export {
  artifactObservation,
  cardObservation,
  dispatchObservation,
  maxAgeOf,
  resolutionObservation,
  sightingObservations,
  stateObservation,
  taskNotFoundObservation,
  type DispatchSeen,
  type ObservationSource,
  type Resolution,
} from "./observations.ts";
export { RecentMap } from "./recent-map.ts";
export { TaskSightings } from "./task-sightings.ts";
export {
  attemptHeaderName,
  attemptMetadataKey,
  correlationHeaderName,
  correlationMetadataKey,
  skillHeaderName,
  skillMetadataKey,
} from "./ledger-names.ts";
