export { main } from "./main.ts";
export type { Command } from "./command.ts";
export { exitCodes, UsageError, type Io } from "./io.ts";
export { readObservations, InputError } from "./ndjson.ts";
export { loadRuleSet } from "./rules-loader.ts";
export { diffDecisions, type CorrelationDiff } from "./decision-diff.ts";
