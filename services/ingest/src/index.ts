/** @a2a-ledger/ingest — the observation API on Kafka. */
export { buildServer, type ServerConfig, type ServerDeps } from "./server.ts";
export { createIngestApp, type IngestApp, type IngestAppOptions } from "./app.ts";
export { loadConfig, configDefaults, type IngestConfig } from "./config.ts";
/** The one configuration error of every service (@a2a-ledger/env), under its former name. */
export { ConfigError as IngestConfigError } from "@a2a-ledger/env";
export { errorCatalogue, errorCodes, IngestError, type ErrorBody, type ErrorCode, type ErrorDetail } from "./errors.ts";
export { KafkaSink, type KafkaSinkOptions, type ObservationSink, type OutgoingRecord } from "./kafka-sink.ts";
export { openApiDocument } from "./openapi.ts";
export { observationJsonSchemas } from "./json-schema.ts";
export { partitionOf } from "@a2a-ledger/kafka";
