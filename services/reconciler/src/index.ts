export { Reconciler } from "./reconciler.ts";
export { loadReconcilerConfig, type ReconcilerConfig } from "./config.ts";
export { deadLetterReasons, type DeadLetterReason } from "./errors.ts";
export { classifyDecodeError, dlqHeader } from "./poison.ts";
export { processBatch, isCommand } from "./batch.ts";
export { endOffsets } from "@a2a-ledger/kafka";
/** The one configuration error of every service (@a2a-ledger/env), under its former name. */
export { ConfigError as ReconcilerConfigError } from "@a2a-ledger/env";
