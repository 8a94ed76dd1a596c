/** @a2a-ledger/proxy — the recording A2A proxy. */
export { createProxyApp, type ProxyApp, type ProxyAppOptions } from "./app.ts";
export { loadConfig, configDefaults, ProxyConfigError, type ProxyConfig } from "./config.ts";
export { errorCatalogue, errorCodes, type ProxyErrorCode } from "./errors.ts";
export {
  correlationHeader,
  correlationMetadataKey,
  skillHeader,
  skillMetadataKey,
  attemptHeader,
  attemptMetadataKey,
} from "./a2a-request.ts";
export type { FailMode, ObservationSender } from "./observation-buffer.ts";
