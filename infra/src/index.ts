export { loadConfig, ConfigError, repoRoot, type StackConfig } from "./config.ts";
export { up, down, readStackState, applyProjectSetup, type StackState } from "./stack.ts";
export { startRegistry, stopRegistry, registryUrlOf } from "./native-registry.ts";
export { startKafka, stopKafka } from "./native-kafka.ts";
export { findJava, MissingToolError } from "./java.ts";
