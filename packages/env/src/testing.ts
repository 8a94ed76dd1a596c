/**
 * What tests and benchmarks use to run and observe a service: a service as a child process
 * (child-service.ts), a value read from its `/metrics` text (metrics-text.ts), and schemathesis against
 * its OpenAPI document (schemathesis-run.ts), and the spec of a service's settings under their old names
 * (renamed-settings-spec.ts).
 */
export * from "./child-service.ts";
export { metricSum, metricValue } from "./metrics-text.ts";
export { defaultFuzzSeed, schemathesisBin, schemathesisRun, type SchemathesisOptions, type SchemathesisResult } from "./schemathesis-run.ts";
export { graphCycles } from "./graph-cycles.ts";
export { describeRenamedSettings, type RenamedSettingsSubject } from "./renamed-settings-spec.ts";
