/** @a2a-ledger/projector — query views over the ledger's topics, an HTTP API, a live stream and a web page. */
export { loadConfig, configDefaults, type ProjectorConfig, type StoreConfig } from "./config.ts";
export {
  errorCatalogue,
  errorCodes,
  poisonReasons,
  ProjectorError,
  type ErrorCode,
  type PoisonReason,
} from "./errors.ts";
export { Projector, type ProjectorOptions } from "./projector.ts";
export { buildServer, type ServerDeps } from "./server.ts";
export { LiveStream } from "./live-stream.ts";
export { rebuild, type RebuildResult } from "./rebuild.ts";
export { openStore } from "./store/open-store.ts";
export { migrate } from "./store/generations.ts";
export { createMetrics } from "./metrics.ts";
export { createLogger } from "./logger.ts";
/** The one configuration error of every service (@a2a-ledger/env), under its former name. */
export { ConfigError as ProjectorConfigError } from "@a2a-ledger/env";
