/**
 * What tests and benchmarks use to run and observe a service: a service as a child process
 * (child-service.ts) and a value read from its `/metrics` text (metrics-text.ts).
 */
export * from "./child-service.ts";
export { metricSum, metricValue } from "./metrics-text.ts";
