export { loadConfig, ConfigError, repoRoot, nodePorts, type StackConfig } from "./config.ts";
export { up, down, readStackState, applyProjectSetup, type StackState } from "./stack.ts";
export { startRegistry, stopRegistry, registryUrlOf } from "./native-registry.ts";
export {
  startKafka,
  stopKafka,
  kafkaNodes,
  launchKafkaNode,
  waitForKafkaNode,
  signalKafkaNode,
  stopKafkaNode,
  kafkaNodePid,
  brokersOf,
  type KafkaNode,
} from "./native-kafka.ts";
export { kafkaLibs } from "./artifacts.ts";
export { findJava, MissingToolError } from "./java.ts";
