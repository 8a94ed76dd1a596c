/**
 * What every service process shares: its catalogue of stable error codes (error-catalogue.ts), reading
 * its configuration from environment variables (env-reader.ts), each service's own settings declared once (settings.ts) with the README's table held to them (settings-docs.ts), and refusing to start on it (config-error.ts), stopping on SIGTERM or SIGINT (stop-on-signal.ts),
 * name patterns with `*` (star-pattern.ts), bearer tokens (bearer-tokens.ts) and the guard that checks them on the route a request matched (route-guard.ts), the methods each HTTP path takes, for 405 with Allow (route-methods.ts), the request hooks every fastify service shares — request ids, answers counted by route, the methods of an unmatched path (service-hooks.ts),
 * the node arguments that start a sibling module as a process, from source or from the build (node-entry.ts), and the
 * IPC channel over which the demo's orchestrator asks its supervisor to restart or reload a worker (chaos-channel.ts). Tests and benchmarks run
 * a service as a child process, read its metrics and fuzz its OpenAPI document with
 * `@a2a-ledger/env/testing` (testing.ts). The HTTP services' per-caller rate limit (@fastify/rate-limit) is its own entry,
 * `@a2a-ledger/env/rate-limit` (rate-limit.ts), so that a library importing this index loads no web framework.
 */
export {
  envReader,
  parseDuration,
  sharedSettings,
  warnDeprecatedOnce,
  type DeprecatedName,
  type EnvReader,
  type EnvReaderOptions,
} from "./env-reader.ts";
export { ConfigError } from "./config-error.ts";
export {
  defineSettings,
  formatDuration,
  settingShapes,
  type Setting,
  type Settings,
  type SettingsValues,
  type SettingValue,
} from "./settings.ts";
export { settingsBlock, withSettingsBlock } from "./settings-docs.ts";
export { requestIdOptions, serviceHooks, type ServiceHooks, type ServiceHooksOptions } from "./service-hooks.ts";
export { stopOnSignal, type SignalSource, type StopLog, type StopOnSignalOptions } from "./stop-on-signal.ts";
export { bearerTokens, tokenList, type BearerTokens } from "./bearer-tokens.ts";
export { routeMethods, type RouteMethods } from "./route-methods.ts";
export { starPattern } from "./star-pattern.ts";
export { routeGuard, type MatchedRequest, type RouteGuard, type RouteGuardOptions } from "./route-guard.ts";
export {
  CatalogueError,
  catalogueProblems,
  cataloguePrefix,
  codesOf,
  errorBody,
  defineErrorCatalogue,
  ErrorCatalogueInvalid,
  errorCodePrefixes,
  formatMessage,
  isErrorCatalogue,
  type ErrorBody,
  type ErrorCodePrefix,
  type ErrorEntry,
} from "./error-catalogue.ts";
export {
  compiledEnv,
  siblingNodeArgs,
  sourceCondition,
  withoutSourceCondition,
  withSourceCondition,
} from "./node-entry.ts";
export {
  chaosOverIpc,
  isChaosRequest,
  serveChaos,
  type Chaos,
  type ChaosAction,
  type ChaosReply,
  type ChaosRequest,
} from "./chaos-channel.ts";
