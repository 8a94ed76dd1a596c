export { main } from "./main.ts";
export type { Command } from "./command.ts";
export { exitCodes, UnavailableError, UsageError, type Io } from "./io.ts";
export { readObservations } from "./sources/ndjson.ts";
export { InputError } from "./sources/observation-source.ts";
export { loadRuleSet } from "./rules-loader.ts";
export { diffDecisions, type CorrelationDiff } from "./decision-diff.ts";
