/**
 * What tests and benchmarks use to run and observe a service: a service as a child process
 * (child-service.ts), a value read from its `/metrics` text (metrics-text.ts), and schemathesis against
 * its OpenAPI document (schemathesis-run.ts), the spec of a service's settings under their old names
 * (renamed-settings-spec.ts), the request variants that must not side-step a bearer guard
 * (route-guard-battery.ts), and a percentile and a process's CPU time for benchmarks (measure.ts).
 */
export * from "./child-service.ts";
export { metricSum, metricValue } from "./metrics-text.ts";
export { percentile, processCpuSeconds } from "./measure.ts";
export {
  defaultFuzzSeed,
  schemathesisBin,
  schemathesisRun,
  type SchemathesisOptions,
  type SchemathesisResult,
} from "./schemathesis-run.ts";
export { graphCycles } from "./graph-cycles.ts";
export { describeRenamedSettings, type RenamedSettingsSubject } from "./renamed-settings-spec.ts";
export {
  pathVariants,
  rawRequest,
  refusedStatuses,
  runGuardBattery,
  type GuardBatteryOptions,
  type GuardBatteryResult,
  type GuardedTarget,
  type PathVariant,
  type RawAnswer,
} from "./route-guard-battery.ts";
