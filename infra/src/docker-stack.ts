/**
 * The same stack in containers, where a Docker engine answers (`docker info`): Apache Kafka's own
 * image in KRaft mode and Apicurio Registry with kafkasql storage, on the same host ports as the
 * native launch. Containers outlive this process (no reaper) and are removed by `infra:down`.
 */
import { spawnSync } from "node:child_process";
import type { StackConfig } from "./config.ts";
import { registryUrlOf } from "./native-registry.ts";
import { brokerAnswers, registryAnswers, waitUntil } from "./readiness.ts";

export const containerNames = { kafka: "a2a-ledger-kafka", registry: "a2a-ledger-registry", network: "a2a-ledger" };

export function dockerEngineAnswers(): boolean {
  const result = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { encoding: "utf8", timeout: 10_000 });
  return !result.error && result.status === 0 && result.stdout.trim() !== "";
}

export async function startDockerStack(config: StackConfig): Promise<{ brokers: string; registryUrl: string }> {
  process.env.TESTCONTAINERS_RYUK_DISABLED = "true";
  const { GenericContainer, Wait } = await import("testcontainers");
  // A named network, so that `infra:down` can remove it without this process's state.
  spawnSync("docker", ["network", "create", containerNames.network], { stdio: "ignore", timeout: 30_000 });
  const brokers = `127.0.0.1:${config.kafkaPort}`;
  await new GenericContainer(`apache/kafka:${config.kafkaVersion}`)
    .withName(containerNames.kafka)
    .withNetworkMode(containerNames.network)
    .withExposedPorts({ container: 9092, host: config.kafkaPort })
    .withEnvironment({
      KAFKA_NODE_ID: "1",
      KAFKA_PROCESS_ROLES: "broker,controller",
      KAFKA_LISTENERS: "PLAINTEXT://0.0.0.0:9092,INTERNAL://0.0.0.0:9094,CONTROLLER://0.0.0.0:9093",
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${brokers},INTERNAL://${containerNames.kafka}:9094`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
      KAFKA_INTER_BROKER_LISTENER_NAME: "INTERNAL",
      KAFKA_CONTROLLER_LISTENER_NAMES: "CONTROLLER",
      KAFKA_CONTROLLER_QUORUM_VOTERS: "1@localhost:9093",
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: "1",
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: "1",
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: "1",
      KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: "1",
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: "1",
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: "1",
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0",
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: "false",
    })
    .start();
  await waitUntil(`Kafka container at ${brokers}`, () => brokerAnswers(brokers), 120_000);
  await new GenericContainer(`apicurio/apicurio-registry:${config.apicurioVersion}`)
    .withName(containerNames.registry)
    .withNetworkMode(containerNames.network)
    .withExposedPorts({ container: 8080, host: config.registryPort })
    .withEnvironment({
      APICURIO_STORAGE_KIND: "kafkasql",
      APICURIO_KAFKASQL_BOOTSTRAP_SERVERS: `${containerNames.kafka}:9094`,
    })
    .withWaitStrategy(Wait.forListeningPorts())
    .start();
  const registryUrl = registryUrlOf(config.registryPort);
  await waitUntil(`Apicurio Registry container at ${registryUrl}`, () => registryAnswers(registryUrl), 180_000);
  return { brokers, registryUrl };
}

export function stopDockerStack(): void {
  spawnSync("docker", ["rm", "-f", containerNames.registry, containerNames.kafka], {
    stdio: "ignore",
    timeout: 60_000,
  });
  spawnSync("docker", ["network", "rm", containerNames.network], { stdio: "ignore", timeout: 30_000 });
}
