/**
 * Launcher configuration from environment variables, validated: every bad value is a clear error.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { PartitionsSettingError, partitionsFromEnv } from "@a2a-ledger/kafka";

export interface StackConfig {
  /** Where the native stack keeps broker logs, registry output and pid files. */
  dataDir: string;
  /** Where downloaded JVM artifacts are cached, outside the repository. */
  cacheDir: string;
  kafkaPort: number;
  controllerPort: number;
  /** Combined KRaft nodes of the native cluster (A2A_LEDGER_KAFKA_NODES, default 1). */
  kafkaNodes: number;
  registryPort: number;
  kafkaVersion: string;
  apicurioVersion: string;
  /**
   * `plaintext` (the local default) or `secured` (A2A_LEDGER_KAFKA_SECURITY): SASL_SSL and SSL (mTLS)
   * listeners, StandardAuthorizer with the ledger's ACLs, the registry behind TLS and basic auth.
   */
  security: "plaintext" | "secured";
  /** Base port of the SSL (mTLS) listeners in secured mode; node n listens on it + 2(n-1). */
  sslPort: number;
  /** Partition count the correlation-keyed topics are created with (A2A_LEDGER_PARTITIONS, default 6); existing topics keep theirs. */
  partitions: number;
  /** Set when the operator points the project at an existing cluster. */
  externalBrokers: string | undefined;
  externalRegistryUrl: string | undefined;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export const repoRoot = resolve(new URL("../..", import.meta.url).pathname);

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1024 || value > 65535) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a port number between 1024 and 65535`);
  }
  return value;
}

function nonEmpty(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

/** Most nodes the native launcher runs on one machine. */
export const maxKafkaNodes = 5;

function nodeCount(env: NodeJS.ProcessEnv): number {
  const raw = nonEmpty(env, "A2A_LEDGER_KAFKA_NODES");
  if (raw === undefined) return 1;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > maxKafkaNodes)
    throw new ConfigError(
      `A2A_LEDGER_KAFKA_NODES=${JSON.stringify(raw)} is not a node count from 1 to ${maxKafkaNodes}`,
    );
  return value;
}

function securityMode(env: NodeJS.ProcessEnv): StackConfig["security"] {
  const raw = nonEmpty(env, "A2A_LEDGER_KAFKA_SECURITY")?.toLowerCase() ?? "plaintext";
  if (raw !== "plaintext" && raw !== "secured")
    throw new ConfigError(`A2A_LEDGER_KAFKA_SECURITY=${JSON.stringify(raw)} must be plaintext or secured`);
  return raw;
}

/** Ports of each node: node n (from 1) listens on the base ports plus 2(n-1), so the default pairs are 19092/19093, 19094/19095, … */
function partitionCount(env: NodeJS.ProcessEnv): number {
  try {
    return partitionsFromEnv(env);
  } catch (e) {
    if (e instanceof PartitionsSettingError) throw new ConfigError(e.message);
    throw e;
  }
}

export function nodePorts(
  config: Pick<StackConfig, "kafkaPort" | "controllerPort" | "kafkaNodes">,
): { id: number; port: number; controllerPort: number }[] {
  return Array.from({ length: config.kafkaNodes }, (_, i) => ({
    id: i + 1,
    port: config.kafkaPort + 2 * i,
    controllerPort: config.controllerPort + 2 * i,
  }));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): StackConfig {
  const externalBrokers = nonEmpty(env, "KAFKA_BROKERS");
  const externalRegistryUrl = nonEmpty(env, "SCHEMA_REGISTRY_URL");
  if (externalBrokers !== undefined) {
    for (const broker of externalBrokers.split(",")) {
      if (!/^[^\s:]+:\d{1,5}$/.test(broker.trim()))
        throw new ConfigError(`KAFKA_BROKERS entry ${JSON.stringify(broker)} is not host:port`);
    }
    if (externalRegistryUrl === undefined)
      throw new ConfigError("KAFKA_BROKERS is set but SCHEMA_REGISTRY_URL is not: set both to use an existing cluster");
  }
  if (externalRegistryUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(externalRegistryUrl)) {
    throw new ConfigError(`SCHEMA_REGISTRY_URL=${JSON.stringify(externalRegistryUrl)} is not an http(s) URL`);
  }
  const config: StackConfig = {
    dataDir: resolve(nonEmpty(env, "A2A_LEDGER_DATA_DIR") ?? join(repoRoot, ".a2a-ledger")),
    cacheDir: resolve(nonEmpty(env, "A2A_LEDGER_CACHE_DIR") ?? join(homedir(), ".cache", "a2a-ledger")),
    kafkaPort: port(env, "A2A_LEDGER_KAFKA_PORT", 19092),
    controllerPort: port(env, "A2A_LEDGER_KAFKA_CONTROLLER_PORT", 19093),
    registryPort: port(env, "A2A_LEDGER_REGISTRY_PORT", 18081),
    kafkaNodes: nodeCount(env),
    security: securityMode(env),
    sslPort: port(env, "A2A_LEDGER_KAFKA_SSL_PORT", port(env, "A2A_LEDGER_KAFKA_PORT", 19092) + 2 * maxKafkaNodes),
    kafkaVersion: nonEmpty(env, "A2A_LEDGER_KAFKA_VERSION") ?? "4.1.2",
    apicurioVersion: nonEmpty(env, "A2A_LEDGER_APICURIO_VERSION") ?? "3.3.3",
    partitions: partitionCount(env),
    externalBrokers,
    externalRegistryUrl,
  };
  const secured = config.security === "secured";
  const ports = [
    ...nodePorts(config).flatMap((n) => [
      n.port,
      n.controllerPort,
      ...(secured ? [config.sslPort + 2 * (n.id - 1)] : []),
    ]),
    // In secured mode the registry's TLS front listens on A2A_LEDGER_REGISTRY_PORT + 2.
    config.registryPort,
    config.registryPort + 1,
    ...(secured ? [config.registryPort + 2] : []),
  ];
  if (new Set(ports).size !== ports.length) {
    throw new ConfigError(
      `the Kafka, controller and registry ports must differ (got ${ports.join(", ")}; node n listens on A2A_LEDGER_KAFKA_PORT + 2(n-1) and A2A_LEDGER_KAFKA_CONTROLLER_PORT + 2(n-1), the registry's health interface on A2A_LEDGER_REGISTRY_PORT + 1; secured: SSL listeners on A2A_LEDGER_KAFKA_SSL_PORT + 2(n-1), the registry's TLS front on A2A_LEDGER_REGISTRY_PORT + 2)`,
    );
  }
  if (ports.some((p) => p > 65535))
    throw new ConfigError(`the ports of ${config.kafkaNodes} Kafka nodes go past 65535 (got ${ports.join(", ")})`);
  return config;
}
