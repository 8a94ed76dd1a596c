/** @a2a-ledger/dispatcher — executes the reconciler's commands against real A2A workers through their proxies. */
export { Dispatcher, type Source } from "./dispatcher.ts";
export { loadConfig, configDefaults, type DispatcherConfig } from "./config.ts";
export {
  parseWorkersConfig,
  readWorkersConfig,
  renderMessage,
  skillConfigFor,
  anySkill,
  type WorkersConfig,
  type WorkerConfig,
  type SkillConfig,
  type CanaryConfig,
} from "./worker-config.ts";
export { errorCatalogue, type DispatcherCode } from "./errors.ts";
export { Journal, type CommandRow, type CommandStatus, type ParkedCanaryRow } from "./journal.ts";
export { createMetrics, type DispatcherMetrics } from "./metrics.ts";
export { buildServer } from "./server.ts";
export { probeCorrelationOf, redispatchMessageId } from "./observations.ts";
export { ledgerHeaders } from "./worker-client.ts";
/** The one configuration error of every service (@a2a-ledger/env), under its former name. */
export { ConfigError as DispatcherConfigError } from "@a2a-ledger/env";
