/**
 * A single-node Apache Kafka (KRaft, combined broker and controller) as a local JVM process.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { kafkaLibs } from "./artifacts.ts";
import type { StackConfig } from "./config.ts";
import { findJava } from "./java.ts";
import { type ProcessFiles, runningPid, startDetached, stopProcess, tail } from "./jvm-process.ts";
import { brokerAnswers, waitUntil } from "./readiness.ts";

export function kafkaDirs(config: StackConfig) {
  const root = join(config.dataDir, "kafka");
  return { root, data: join(root, "data"), logs: join(root, "logs"), properties: join(root, "server.properties"), log4j: join(root, "log4j2.xml") };
}

export function kafkaFiles(config: StackConfig): ProcessFiles {
  const { root } = kafkaDirs(config);
  return { pidFile: join(root, "kafka.pid"), logFile: join(root, "kafka.out") };
}

export function serverProperties(config: StackConfig, dataDir: string): string {
  const host = "127.0.0.1";
  return `${[
    "process.roles=broker,controller",
    "node.id=1",
    `controller.quorum.bootstrap.servers=${host}:${config.controllerPort}`,
    `listeners=PLAINTEXT://${host}:${config.kafkaPort},CONTROLLER://${host}:${config.controllerPort}`,
    `advertised.listeners=PLAINTEXT://${host}:${config.kafkaPort}`,
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=PLAINTEXT",
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    `log.dirs=${dataDir}`,
    // One node: every internal topic with replication 1.
    "offsets.topic.replication.factor=1",
    "offsets.topic.num.partitions=1",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "transaction.state.log.num.partitions=1",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    "num.network.threads=2",
    "num.io.threads=2",
    // Topics are code (packages/kafka): nothing is created implicitly.
    "auto.create.topics.enable=false",
    "num.partitions=1",
  ].join("\n")}\n`;
}

const log4j = `<Configuration status="WARN">
  <Appenders>
    <RollingFile name="file" fileName="\${sys:kafka.logs.dir}/server.log" filePattern="\${sys:kafka.logs.dir}/server.log.%i">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <SizeBasedTriggeringPolicy size="50 MB"/>
      <DefaultRolloverStrategy max="2"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Logger name="kafka" level="INFO"/>
    <Logger name="org.apache.kafka" level="INFO"/>
    <Root level="WARN"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
`;

export const brokersOf = (config: StackConfig) => `127.0.0.1:${config.kafkaPort}`;

function javaArgs(config: StackConfig, libs: string): string[] {
  const dirs = kafkaDirs(config);
  return [
    "-Xms128m", "-Xmx768m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
    `-Dlog4j2.configurationFile=${dirs.log4j}`, `-Dkafka.logs.dir=${dirs.logs}`,
    "-cp", `${libs}/*`,
  ];
}

/** Starts the broker unless it already runs; formats the storage on first start. Resolves when it answers. */
export async function startKafka(config: StackConfig, timeoutMs = 120_000): Promise<string> {
  const brokers = brokersOf(config);
  const files = kafkaFiles(config);
  const dirs = kafkaDirs(config);
  if (runningPid(files) === undefined) {
    const java = findJava(17, "Apache Kafka 4.1");
    const libs = kafkaLibs(config);
    for (const dir of [dirs.data, dirs.logs]) mkdirSync(dir, { recursive: true });
    writeFileSync(dirs.properties, serverProperties(config, dirs.data));
    writeFileSync(dirs.log4j, log4j);
    if (!existsSync(join(dirs.data, "meta.properties"))) {
      const clusterId = randomBytes(16).toString("base64url");
      const format = spawnSync(java.path, [...javaArgs(config, libs), "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", dirs.properties, "--standalone"], { encoding: "utf8", timeout: 120_000 });
      if (format.status !== 0) throw new Error(`formatting Kafka storage failed:\n${format.stdout}${format.stderr}`);
    }
    startDetached(java.path, [...javaArgs(config, libs), "kafka.Kafka", dirs.properties], files);
  }
  await waitUntil(`Kafka at ${brokers}`, () => brokerAnswers(brokers), timeoutMs, () => `${tail(files.logFile)}\n${tail(join(dirs.logs, "server.log"))}`, () => runningPid(files) !== undefined);
  return brokers;
}

export async function stopKafka(config: StackConfig): Promise<boolean> {
  return stopProcess(kafkaFiles(config), 60_000);
}
