/**
 * Which way the stack comes up: an existing cluster named by the environment, containers where a
 * Docker engine answers, or the broker and registry as local JVM processes.
 */
export type Strategy = "external" | "docker" | "native";

export interface StrategyFacts {
  externalBrokers: string | undefined;
  /** Whether `docker info` succeeded (an engine answers), not merely whether the client exists. */
  dockerEngine: boolean;
  /** A2A_LEDGER_STACK, to force a strategy. */
  forced: string | undefined;
}

export function selectStrategy(facts: StrategyFacts): Strategy {
  if (facts.forced !== undefined && facts.forced !== "") {
    if (facts.forced === "external" || facts.forced === "docker" || facts.forced === "native") {
      if (facts.forced === "external" && facts.externalBrokers === undefined) {
        throw new Error("A2A_LEDGER_STACK=external needs KAFKA_BROKERS and SCHEMA_REGISTRY_URL");
      }
      return facts.forced;
    }
    throw new Error(`A2A_LEDGER_STACK=${JSON.stringify(facts.forced)}: expected external, docker or native`);
  }
  if (facts.externalBrokers !== undefined) return "external";
  if (facts.dockerEngine) return "docker";
  return "native";
}
