/**
 * Apache Kafka (KRaft, combined broker and controller nodes) as local JVM processes: one node by
 * default, or N nodes on loopback sharing one cluster id, each with its own data directory and port
 * pair, the controller quorum given statically (`controller.quorum.voters`).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientConfig } from "@a2a-ledger/kafka";
import { kafkaLibs } from "./artifacts.ts";
import { type StackConfig, nodePorts } from "./config.ts";
import { findJava } from "./java.ts";
import { type ProcessFiles, isAlive, runningPid, startDetached, stopProcess, tail } from "./jvm-process.ts";
import { brokerAnswers, clusterAnswers, waitUntil } from "./readiness.ts";
import { ensureSecrets, principals, type Secrets } from "./secrets.ts";

export interface KafkaNode {
  id: number;
  port: number;
  controllerPort: number;
  /** Its SSL (mTLS) listener's port; used in secured mode only. */
  sslPort: number;
  /** host:port of its client listener (SASL_SSL in secured mode). */
  address: string;
  /** host:port of its SSL (mTLS) listener in secured mode. */
  sslAddress: string;
  root: string;
  data: string;
  logs: string;
  properties: string;
  log4j: string;
  files: ProcessFiles;
}

/**
 * The nodes of the configured cluster. One node keeps the layout it always had (`<data>/kafka`);
 * node n of a larger cluster lives in `<data>/kafka/node-<n>`.
 */
export function kafkaNodes(config: StackConfig): KafkaNode[] {
  const base = join(config.dataDir, "kafka");
  return nodePorts(config).map(({ id, port, controllerPort }) => {
    const root = config.kafkaNodes === 1 ? base : join(base, `node-${id}`);
    const sslPort = config.sslPort + 2 * (id - 1);
    return {
      id,
      port,
      controllerPort,
      sslPort,
      root,
      address: `127.0.0.1:${port}`,
      sslAddress: `127.0.0.1:${sslPort}`,
      data: join(root, "data"),
      logs: join(root, "logs"),
      properties: join(root, "server.properties"),
      log4j: join(root, "log4j2.xml"),
      files: { pidFile: join(root, "kafka.pid"), logFile: join(root, "kafka.out") },
    };
  });
}

/** The one node's folders (a single-node cluster), as the launcher's callers knew them. */
export function kafkaDirs(config: StackConfig) {
  const [node] = kafkaNodes({ ...config, kafkaNodes: 1 }) as [KafkaNode];
  return { root: node.root, data: node.data, logs: node.logs, properties: node.properties, log4j: node.log4j };
}

export function kafkaFiles(config: StackConfig): ProcessFiles {
  return (kafkaNodes({ ...config, kafkaNodes: 1 })[0] as KafkaNode).files;
}

/** Replication of the internal topics and the broker's defaults for a cluster of `nodes`. */
export function replicationProperties(nodes: number): string[] {
  const factor = Math.min(3, nodes);
  const minIsr = factor === 3 ? 2 : 1;
  // One partition each on one node; on a cluster a few, so that coordinators are spread over the brokers.
  const partitions = nodes === 1 ? 1 : 3;
  return [
    `offsets.topic.replication.factor=${factor}`,
    `offsets.topic.num.partitions=${partitions}`,
    `transaction.state.log.replication.factor=${factor}`,
    `transaction.state.log.min.isr=${minIsr}`,
    `transaction.state.log.num.partitions=${partitions}`,
    `share.coordinator.state.topic.replication.factor=${factor}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    // Topics created without explicit settings (the registry's kafkasql journal) follow the cluster too.
    `default.replication.factor=${factor}`,
    `min.insync.replicas=${minIsr}`,
    "unclean.leader.election.enable=false",
  ];
}

/**
 * Listeners of a secured node: SASL_SSL (SCRAM-SHA-256/512 and PLAIN, no client certificate) for
 * clients, SSL with required client certificates for clients and between brokers, the controller
 * listener on SSL with client certificates. Certificate subjects map to `User:<CN>`, so a service is the
 * same principal over SASL and mTLS. StandardAuthorizer, nothing allowed without an ACL; the brokers'
 * own certificate (`User:broker`) and `User:admin` are super users.
 */
export function securedListenerProperties(node: KafkaNode, secrets: Secrets): string[] {
  const host = "127.0.0.1";
  const plainUsers = principals.map((p) => `user_${p}="${secrets.passwords[p]}"`).join(" ");
  return [
    `listeners=SASL_SSL://${host}:${node.port},SSL://${host}:${node.sslPort},CONTROLLER://${host}:${node.controllerPort}`,
    `advertised.listeners=SASL_SSL://${host}:${node.port},SSL://${host}:${node.sslPort}`,
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=SSL",
    "listener.security.protocol.map=SASL_SSL:SASL_SSL,SSL:SSL,CONTROLLER:SSL",
    "ssl.keystore.type=PEM",
    `ssl.keystore.location=${secrets.serverKeystore}`,
    "ssl.truststore.type=PEM",
    `ssl.truststore.location=${secrets.caPem}`,
    "listener.name.ssl.ssl.client.auth=required",
    "listener.name.controller.ssl.client.auth=required",
    "ssl.principal.mapping.rules=RULE:^CN=([^,]+)$/$1/,DEFAULT",
    "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN",
    "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
    `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${plainUsers};`,
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "allow.everyone.if.no.acl.found=false",
    "super.users=User:broker;User:admin",
  ];
}

export function serverProperties(config: StackConfig, node: KafkaNode = kafkaNodes(config)[0] as KafkaNode): string {
  const host = "127.0.0.1";
  const nodes = kafkaNodes(config);
  const quorum =
    config.kafkaNodes === 1
      ? [`node.id=1`, `controller.quorum.bootstrap.servers=${host}:${node.controllerPort}`]
      : [
          `node.id=${node.id}`,
          `controller.quorum.voters=${nodes.map((n) => `${n.id}@${host}:${n.controllerPort}`).join(",")}`,
        ];
  const listeners =
    config.security === "secured"
      ? securedListenerProperties(node, ensureSecrets(config))
      : [
          `listeners=PLAINTEXT://${host}:${node.port},CONTROLLER://${host}:${node.controllerPort}`,
          `advertised.listeners=PLAINTEXT://${host}:${node.port}`,
          "controller.listener.names=CONTROLLER",
          "inter.broker.listener.name=PLAINTEXT",
          "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        ];
  return `${[
    "process.roles=broker,controller",
    ...quorum,
    ...listeners,
    `log.dirs=${node.data}`,
    ...replicationProperties(config.kafkaNodes),
    "group.initial.rebalance.delay.ms=0",
    "num.network.threads=2",
    "num.io.threads=2",
    "num.replica.fetchers=1",
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

/** The bootstrap list of the configured cluster: every node's client listener. */
export const brokersOf = (config: StackConfig) =>
  kafkaNodes(config)
    .map((n) => n.address)
    .join(",");

function javaArgs(config: StackConfig, node: KafkaNode, libs: string): string[] {
  // Three JVMs share two cores with the registry and the tests: a smaller heap per node of a cluster.
  const heap = config.kafkaNodes === 1 ? "-Xmx768m" : "-Xmx512m";
  return [
    "-Xms128m",
    heap,
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-Djava.awt.headless=true",
    `-Dlog4j2.configurationFile=${node.log4j}`,
    `-Dkafka.logs.dir=${node.logs}`,
    "-cp",
    `${libs}/*`,
  ];
}

/** Node folders of this data directory that belong to another node count (their processes would hold the ports). */
function otherLayouts(config: StackConfig): ProcessFiles[] {
  const base = join(config.dataDir, "kafka");
  const files: ProcessFiles[] = [];
  if (config.kafkaNodes !== 1) files.push(kafkaFiles(config));
  if (existsSync(base)) {
    for (const entry of readdirSync(base)) {
      const match = /^node-(\d+)$/.exec(entry);
      if (match === null || (config.kafkaNodes > 1 && Number(match[1]) <= config.kafkaNodes)) continue;
      files.push({ pidFile: join(base, entry, "kafka.pid"), logFile: join(base, entry, "kafka.out") });
    }
  }
  return files;
}

/** The cluster id the nodes' storage was formatted with (any formatted node tells), else a new one. */
function clusterIdOf(nodes: readonly KafkaNode[]): string {
  for (const node of nodes) {
    const meta = join(node.data, "meta.properties");
    const id = existsSync(meta) ? /^cluster\.id=(.+)$/m.exec(readFileSync(meta, "utf8"))?.[1]?.trim() : undefined;
    if (id) return id;
  }
  return newClusterId();
}

/**
 * A new cluster id as Kafka makes one (`Uuid.randomUuid`): 16 random bytes in base64url, drawn again
 * while the text starts with "-", which the storage tool would read as an option, not a value.
 */
export function newClusterId(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

/** Writes a node's configuration and formats its storage on first start; starts its JVM unless it runs. */
export function launchKafkaNode(
  config: StackConfig,
  node: KafkaNode,
  clusterId = clusterIdOf(kafkaNodes(config)),
): void {
  if (runningPid(node.files) !== undefined) return;
  const java = findJava(17, "Apache Kafka 4.1");
  const libs = kafkaLibs(config);
  for (const dir of [node.data, node.logs]) mkdirSync(dir, { recursive: true });
  writeFileSync(node.properties, serverProperties(config, node));
  writeFileSync(node.log4j, log4j);
  if (!existsSync(join(node.data, "meta.properties"))) formatStorage(config, node, clusterId, java.path, libs);
  startDetached(java.path, [...javaArgs(config, node, libs), "kafka.Kafka", node.properties], node.files);
}

/**
 * Formats a node's storage: a format that fails is tried once more on an emptied folder (it writes
 * nothing a second try would trip on), and the error names how each try ended and what it printed.
 */
function formatStorage(config: StackConfig, node: KafkaNode, clusterId: string, java: string, libs: string): void {
  const standalone = config.kafkaNodes === 1 ? ["--standalone"] : [];
  const args = [
    ...javaArgs(config, node, libs),
    "kafka.tools.StorageTool",
    "format",
    `--cluster-id=${clusterId}`,
    "-c",
    node.properties,
    ...standalone,
    ...scramUsers(config),
  ];
  let outcome = "";
  for (let attempt = 1; attempt <= 2; attempt++) {
    const started = Date.now();
    const format = spawnSync(java, args, { encoding: "utf8", timeout: 120_000 });
    if (format.status === 0) return;
    const how =
      format.status !== null
        ? `exit code ${format.status}`
        : `${format.error ? `${format.error.message}, ` : ""}signal ${format.signal ?? "none"}`;
    outcome += `attempt ${attempt}: ${how} after ${((Date.now() - started) / 1000).toFixed(1)} s\n${format.stdout ?? ""}${format.stderr ?? ""}\n`;
    rmSync(node.data, { recursive: true, force: true });
    mkdirSync(node.data, { recursive: true });
    if (attempt === 1) process.stderr.write(`formatting Kafka node ${node.id} again: ${outcome}`);
  }
  throw new Error(`formatting the storage of Kafka node ${node.id} (${node.data}) failed:\n${outcome}`);
}

/** `--add-scram` arguments: in secured mode every principal gets SCRAM-SHA-256 and SCRAM-SHA-512 credentials at format time. */
function scramUsers(config: StackConfig): string[] {
  if (config.security !== "secured") return [];
  const { passwords } = ensureSecrets(config);
  return principals.flatMap((p) =>
    ["SCRAM-SHA-256", "SCRAM-SHA-512"].flatMap((m) => ["--add-scram", `${m}=[name=${p},password=${passwords[p]}]`]),
  );
}

function diagnostics(nodes: readonly KafkaNode[]): string {
  return nodes
    .map((n) => `--- node ${n.id} ---\n${tail(n.files.logFile, 10)}\n${tail(join(n.logs, "server.log"))}`)
    .join("\n");
}

/** Resolves when `node` answers metadata requests itself. */
export async function waitForKafkaNode(node: KafkaNode, timeoutMs = 120_000, client?: ClientConfig): Promise<void> {
  await waitUntil(
    `Kafka node ${node.id} at ${node.address}`,
    () => brokerAnswers(node.address, client),
    timeoutMs,
    () => diagnostics([node]),
    () => runningPid(node.files) !== undefined,
  );
}

/**
 * Starts every node that does not run (all at once: a quorum of several needs its voters up
 * together), formatting storage on first start. Resolves when the cluster answers with every node.
 */
export async function startKafka(config: StackConfig, timeoutMs = 180_000, client?: ClientConfig): Promise<string> {
  const nodes = kafkaNodes(config);
  const clash = otherLayouts(config).find((files) => runningPid(files) !== undefined);
  if (clash !== undefined) {
    throw new Error(
      `a Kafka node of another node count runs from ${config.dataDir} (${clash.pidFile}); stop it first (npm run infra:down with that A2A_LEDGER_KAFKA_NODES)`,
    );
  }
  const clusterId = clusterIdOf(nodes);
  for (const node of nodes) launchKafkaNode(config, node, clusterId);
  const brokers = brokersOf(config);
  await waitUntil(
    `Kafka (${nodes.length} node${nodes.length === 1 ? "" : "s"}) at ${brokers}`,
    () => clusterAnswers(brokers, nodes.length, client),
    timeoutMs,
    () => diagnostics(nodes),
    () => nodes.every((n) => runningPid(n.files) !== undefined),
  );
  return brokers;
}

/** The pid of a node's JVM, when it runs. */
export const kafkaNodePid = (node: KafkaNode): number | undefined => runningPid(node.files);

/** Sends a signal to a node's JVM (SIGKILL, SIGSTOP, SIGCONT, …); false when it does not run. */
export function signalKafkaNode(node: KafkaNode, signal: NodeJS.Signals): boolean {
  const pid = runningPid(node.files);
  if (pid === undefined) return false;
  process.kill(pid, signal);
  return true;
}

/** Stops one node (SIGTERM, SIGKILL after the grace); resolves once it is gone. */
export async function stopKafkaNode(node: KafkaNode, graceMs = 60_000): Promise<boolean> {
  const pid = runningPid(node.files);
  // A stalled (SIGSTOPped) JVM cannot act on SIGTERM.
  if (pid !== undefined && isAlive(pid)) process.kill(pid, "SIGCONT");
  return stopProcess(node.files, graceMs);
}

/** Stops every node of this data directory, of any node count. */
export async function stopKafka(config: StackConfig): Promise<boolean> {
  const files = [...kafkaNodes(config).map((n) => n.files), ...otherLayouts(config)];
  const stopped = await Promise.all(
    files.map(async (f) => {
      const pid = runningPid(f);
      if (pid !== undefined) process.kill(pid, "SIGCONT");
      return stopProcess(f, 60_000);
    }),
  );
  return stopped.some(Boolean);
}
