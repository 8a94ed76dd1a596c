/**
 * What every service process shares: reading its configuration from environment variables
 * (env-reader.ts) and stopping on SIGTERM or SIGINT (stop-on-signal.ts). Tests and benchmarks run a
 * service as a child process with `@a2a-ledger/env/testing` (child-service.ts).
 */
export { envReader, type EnvReader } from "./env-reader.ts";
export { stopOnSignal, type SignalSource, type StopLog, type StopOnSignalOptions } from "./stop-on-signal.ts";
