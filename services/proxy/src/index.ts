/** @a2a-ledger/proxy — the recording A2A proxy. */
export { createProxyApp, type ProxyApp, type ProxyAppOptions } from "./app.ts";
export { loadConfig, configDefaults, type ProxyConfig } from "./config.ts";
/** The one configuration error of every service (@a2a-ledger/env), under its former name. */
export { ConfigError as ProxyConfigError } from "@a2a-ledger/env";
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
