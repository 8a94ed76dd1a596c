export { Reconciler } from "./reconciler.ts";
export { loadReconcilerConfig, type ReconcilerConfig } from "./config.ts";
export { deadLetterReasons, type DeadLetterReason, ReconcilerConfigError } from "./errors.ts";
export { classifyDecodeError, dlqHeader } from "./poison.ts";
export { processBatch, isCommand } from "./batch.ts";
export { endOffsets } from "@a2a-ledger/kafka";
