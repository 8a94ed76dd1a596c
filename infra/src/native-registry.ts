/**
 * Apicurio Registry 3.3 as a local JVM process with kafkasql storage, so schema ids live in Kafka
 * and survive a registry restart. Its Confluent-compatible API is at /apis/ccompat/v7.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { apicurioHome } from "./artifacts.ts";
import type { StackConfig } from "./config.ts";
import { findJava } from "./java.ts";
import { type ProcessFiles, runningPid, startDetached, stopProcess, tail } from "./jvm-process.ts";
import { registryAnswers, waitUntil } from "./readiness.ts";

export interface RegistryInstance {
  /** Names the instance's files; the default stack uses "registry". */
  name: string;
  port: number;
  brokers: string;
  /** kafkasql journal topic; instances with different topics hold different registries. */
  journalTopic: string;
  /** On a secured cluster: the SSL listeners are in `brokers`, and the storage connects with this PEM keystore (mTLS). */
  kafkaTls?: { truststore: string; keystore: string; groupPrefix: string };
}

export const registryUrlOf = (port: number) => `http://127.0.0.1:${port}/apis/ccompat/v7`;

export function registryFiles(config: StackConfig, name: string): ProcessFiles {
  const root = join(config.dataDir, name);
  mkdirSync(root, { recursive: true });
  return { pidFile: join(root, "registry.pid"), logFile: join(root, "registry.out") };
}

export async function startRegistry(
  config: StackConfig,
  instance: RegistryInstance,
  timeoutMs = 180_000,
): Promise<string> {
  const url = registryUrlOf(instance.port);
  const files = registryFiles(config, instance.name);
  if (runningPid(files) === undefined) {
    const java = findJava(21, `Apicurio Registry ${config.apicurioVersion}`);
    const home = apicurioHome(config);
    const args = [
      "-Xms64m",
      "-Xmx512m",
      "-XX:+UseG1GC",
      "-Djava.awt.headless=true",
      `-Dquarkus.http.port=${instance.port}`,
      "-Dquarkus.http.host=127.0.0.1",
      // Health and metrics (the management interface) would otherwise listen on every interface at 9000.
      "-Dquarkus.management.host=127.0.0.1",
      `-Dquarkus.management.port=${instance.port + 1}`,
      "-Dapicurio.storage.kind=kafkasql",
      `-Dapicurio.kafkasql.bootstrap.servers=${instance.brokers}`,
      `-Dapicurio.kafkasql.topic=${instance.journalTopic}`,
      `-Dapicurio.kafkasql.snapshots.topic=${instance.journalTopic}-snapshots`,
      `-Dapicurio.events.kafka.topic=${instance.journalTopic}-events`,
      ...(instance.kafkaTls === undefined
        ? []
        : [
            // Passed to every Kafka client of the storage. (The apicurio.kafkasql.security.ssl.* keys apply a
            // truststore only together with a password, which a PEM truststore cannot have.)
            "-Dapicurio.kafka.common.security.protocol=SSL",
            "-Dapicurio.kafka.common.ssl.truststore.type=PEM",
            `-Dapicurio.kafka.common.ssl.truststore.location=${instance.kafkaTls.truststore}`,
            "-Dapicurio.kafka.common.ssl.keystore.type=PEM",
            `-Dapicurio.kafka.common.ssl.keystore.location=${instance.kafkaTls.keystore}`,
            `-Dapicurio.kafkasql.consumer.group-prefix=${instance.kafkaTls.groupPrefix}`,
          ]),
      "-Dquarkus.log.console.json=false",
      "-jar",
      join(home, "quarkus-run.jar"),
    ];
    startDetached(java.path, args, files, process.env, home);
  }
  await waitUntil(
    `Apicurio Registry at ${url}`,
    () => registryAnswers(url),
    timeoutMs,
    () => tail(files.logFile),
    () => runningPid(files) !== undefined,
  );
  return url;
}

export async function stopRegistry(config: StackConfig, name: string): Promise<boolean> {
  return stopProcess(registryFiles(config, name), 30_000);
}
