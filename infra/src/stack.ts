/**
 * Brings the whole stack up and down by the selected strategy, then applies what the project needs
 * on it: the topics from code and the registered schemas. Writes <dataDir>/stack.json.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ClientConfig,
  correlationPartitions,
  createKafka,
  ensureTopics,
  type EnsureResult,
  processClientConfig,
  topicSpecs,
} from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import type { StackConfig } from "./config.ts";
import { dockerEngineAnswers, startDockerStack, stopDockerStack } from "./docker-stack.ts";
import { startKafka, stopKafka } from "./native-kafka.ts";
import { startRegistry, stopRegistry } from "./native-registry.ts";
import { brokerAnswers, registryAnswers, waitUntil } from "./readiness.ts";
import { principalClient, type SecuredEndpoints, startSecuredStack, stopRegistryFront } from "./secured-stack.ts";
import { selectStrategy, type Strategy } from "./strategy.ts";

export interface StackState {
  strategy: Strategy;
  brokers: string;
  registryUrl: string;
  startedAt: string;
  /** Kafka nodes the launcher runs (native strategy); 1 for the other strategies. */
  kafkaNodes?: number;
  /** The data directory of a native stack: where each node's pid file is. */
  dataDir?: string;
  /** Secured mode: the SSL (mTLS) listeners, the CA and every principal's client properties files. */
  secured?: Omit<SecuredEndpoints, "brokers" | "registryUrl">;
}

export const defaultRegistryInstance = "registry";
export const stackFile = (config: StackConfig) => join(config.dataDir, "stack.json");

export function chooseStrategy(config: StackConfig, env: NodeJS.ProcessEnv = process.env): Strategy {
  const forced = env.A2A_LEDGER_STACK;
  // `docker info` is only asked when neither the environment nor a forced choice decides.
  const needsDocker = !forced && config.externalBrokers === undefined;
  return selectStrategy({
    externalBrokers: config.externalBrokers,
    dockerEngine: needsDocker && dockerEngineAnswers(),
    forced,
  });
}

async function startServices(
  config: StackConfig,
  strategy: Strategy,
): Promise<{ brokers: string; registryUrl: string; secured?: SecuredEndpoints }> {
  switch (strategy) {
    case "external": {
      const brokers = config.externalBrokers as string;
      const registryUrl = (config.externalRegistryUrl as string).replace(/\/+$/, "");
      await waitUntil(`Kafka at ${brokers}`, () => brokerAnswers(brokers), 30_000);
      await waitUntil(`the registry at ${registryUrl}`, () => registryAnswers(registryUrl), 30_000);
      return { brokers, registryUrl };
    }
    case "docker":
      if (config.kafkaNodes > 1)
        throw new Error(
          `the Docker stack runs one Kafka node; A2A_LEDGER_KAFKA_NODES=${config.kafkaNodes} needs the native launcher (A2A_LEDGER_STACK=native)`,
        );
      return startDockerStack(config);
    case "native": {
      if (config.security === "secured") {
        const secured = await startSecuredStack(config);
        return { brokers: secured.brokers, registryUrl: secured.registryUrl, secured };
      }
      const brokers = await startKafka(config);
      const registryUrl = await startRegistry(config, {
        name: defaultRegistryInstance,
        port: config.registryPort,
        brokers,
        journalTopic: "kafkasql-journal",
      });
      return { brokers, registryUrl };
    }
  }
}

/**
 * Topics from code and schemas registered: what every service expects to find. Missing
 * correlation-keyed topics are created with `partitions` (A2A_LEDGER_PARTITIONS), or with the count
 * the existing ones have.
 */
export async function applyProjectSetup(
  brokers: string,
  registryUrl: string,
  client?: ClientConfig,
  partitions: number = correlationPartitions,
): Promise<{ topics: EnsureResult; subjects: number }> {
  const admin = createKafka({
    brokers,
    clientId: "a2a-ledger-infra",
    ...(client === undefined ? {} : { client }),
  }).admin();
  await admin.connect();
  try {
    const topicResult = await ensureTopics(admin, topicSpecs(undefined, partitions));
    const ids = await new Serde(registryUrl, undefined, (client ?? processClientConfig()).registry).registerAll();
    return { topics: topicResult, subjects: ids.size };
  } finally {
    await admin.disconnect();
  }
}

export async function up(config: StackConfig, log: (line: string) => void = () => undefined): Promise<StackState> {
  const strategy = chooseStrategy(config);
  log(`strategy: ${strategy}`);
  mkdirSync(config.dataDir, { recursive: true });
  const { brokers, registryUrl, secured } = await startServices(config, strategy);
  log(`kafka: ${brokers}\nregistry: ${registryUrl}`);
  if (secured !== undefined)
    log(
      `kafka (mTLS): ${secured.sslBrokers}\nclient properties per principal: ${secured.secretsDir}/<principal>.{sasl,mtls}.properties`,
    );
  const setup = await applyProjectSetup(
    brokers,
    registryUrl,
    secured === undefined ? undefined : principalClient(secured, "admin"),
    config.partitions,
  );
  log(
    `topics created: ${setup.topics.created.join(", ") || "none"}; existing: ${setup.topics.existing.length}; subjects registered: ${setup.subjects}`,
  );
  const installed = setup.topics.correlationPartitions;
  if (installed !== undefined)
    log(
      `correlation-keyed topics: ${installed} partitions${installed === config.partitions ? "" : ` (created so before; A2A_LEDGER_PARTITIONS=${config.partitions} applies to new topics only)`}`,
    );
  const state: StackState = {
    strategy,
    brokers,
    registryUrl,
    startedAt: new Date().toISOString(),
    ...(strategy === "native" ? { kafkaNodes: config.kafkaNodes, dataDir: config.dataDir } : {}),
    ...(secured === undefined
      ? {}
      : {
          secured: {
            sslBrokers: secured.sslBrokers,
            secretsDir: secured.secretsDir,
            caFile: secured.caFile,
            clientConfigs: secured.clientConfigs,
          },
        }),
  };
  writeFileSync(stackFile(config), `${JSON.stringify(state, null, 2)}\n`);
  return state;
}

export function readStackState(config: StackConfig): StackState | undefined {
  const file = stackFile(config);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as StackState) : undefined;
}

/** Stops what `up` started; an external cluster is left alone. */
export async function down(config: StackConfig): Promise<string[]> {
  const state = readStackState(config);
  const stopped: string[] = [];
  if (state?.strategy === "docker") {
    stopDockerStack();
    stopped.push("containers");
  } else if (state?.strategy !== "external") {
    if (await stopRegistryFront(config)) stopped.push("registry front");
    if (await stopRegistry(config, defaultRegistryInstance)) stopped.push("registry");
    if (await stopKafka(config)) stopped.push("kafka");
  }
  rmSync(stackFile(config), { force: true });
  return stopped;
}
