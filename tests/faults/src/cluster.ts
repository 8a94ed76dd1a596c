/**
 * The cluster the fault tests break: the running stack when it is the launcher's own cluster of three
 * or more nodes (as `npm test` starts it), otherwise a private three-node cluster and registry on ports
 * of their own, stopped at the end. Its nodes are signalled through the launcher's pid files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  brokersOf,
  down,
  type KafkaNode,
  kafkaNodePid,
  kafkaNodes,
  launchKafkaNode,
  loadConfig,
  readStackState,
  signalKafkaNode,
  type StackConfig,
  stopKafkaNode,
  up,
  waitForKafkaNode,
} from "@a2a-ledger/infra";
import { type Admin, createKafka, logLevel } from "@a2a-ledger/kafka";

export interface ClusterUnderTest {
  brokers: string;
  registryUrl: string;
  config: StackConfig;
  nodes: KafkaNode[];
  /** Whether this suite started the cluster (and stops it). */
  private: boolean;
}

/** Ports of a private cluster, away from the stack's defaults (19092…, 18081). */
const privatePorts = {
  A2A_LEDGER_KAFKA_PORT: "19292",
  A2A_LEDGER_KAFKA_CONTROLLER_PORT: "19293",
  A2A_LEDGER_REGISTRY_PORT: "18281",
};

export async function acquireCluster(log: (line: string) => void = () => undefined): Promise<ClusterUnderTest> {
  const env = { ...process.env, KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "" };
  const shared = loadConfig(env);
  const state = readStackState(shared);
  if (state?.strategy === "native" && (state.kafkaNodes ?? 1) >= 3) {
    const config = { ...shared, kafkaNodes: state.kafkaNodes ?? 3, dataDir: state.dataDir ?? shared.dataDir };
    if (brokersOf(config) === state.brokers) {
      log(`using the running ${config.kafkaNodes}-node cluster ${state.brokers}`);
      return {
        brokers: state.brokers,
        registryUrl: state.registryUrl,
        config,
        nodes: kafkaNodes(config),
        private: false,
      };
    }
  }
  const config = loadConfig({
    ...env,
    ...privatePorts,
    A2A_LEDGER_STACK: "native",
    A2A_LEDGER_KAFKA_NODES: "3",
    A2A_LEDGER_DATA_DIR: mkdtempSync(join(tmpdir(), "fault-cluster-")),
  });
  log(`starting a private 3-node cluster in ${config.dataDir}`);
  const started = await up(config, log);
  return {
    brokers: started.brokers,
    registryUrl: started.registryUrl,
    config,
    nodes: kafkaNodes(config),
    private: true,
  };
}

export async function releaseCluster(cluster: ClusterUnderTest): Promise<void> {
  if (!cluster.private) return;
  await down(cluster.config);
  rmSync(cluster.config.dataDir, { recursive: true, force: true });
}

export const quietAdmin = (brokers: string): Admin =>
  createKafka({ brokers, clientId: "fault-cluster", logLevel: logLevel.NOTHING, retries: 10 }).admin();

/** An admin of every broker but `node`: it watches the cluster while that node is down or stalled. */
export const quietAdminWithout = (cluster: ClusterUnderTest, node: KafkaNode): Admin =>
  quietAdmin(
    cluster.brokers
      .split(",")
      .filter((b) => b !== node.address)
      .join(","),
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` answers a value; throws naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 120_000,
  everyMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms${last === undefined ? "" : ` (last error: ${last instanceof Error ? last.message : String(last)})`}`,
      );
    await sleep(everyMs);
  }
}

/** The node ids leading each partition of `topic`. */
export async function leaders(admin: Admin, topic: string): Promise<number[]> {
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  return (metadata.topics[0]?.partitions ?? []).sort((a, b) => a.partitionId - b.partitionId).map((p) => p.leader);
}

/** The node leading most partitions of `topic`. */
export async function busiestLeader(admin: Admin, topic: string): Promise<number> {
  const counts = new Map<number, number>();
  for (const l of await leaders(admin, topic)) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] as number;
}

/** Java's String.hashCode, as Kafka places a transactional id on a partition of __transaction_state. */
export function javaHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The node coordinating each transactional id: the leader of partition
 * `Utils.abs(hashCode(id)) % partitions` of __transaction_state (Kafka's TransactionStateManager).
 */
export async function transactionCoordinators(
  admin: Admin,
  transactionalIds: readonly string[],
): Promise<Map<string, number>> {
  const metadata = await admin.fetchTopicMetadata({ topics: ["__transaction_state"] });
  const partitions = metadata.topics[0]?.partitions ?? [];
  if (partitions.length === 0) throw new Error("__transaction_state does not exist yet: no transaction has begun");
  const byId = new Map(partitions.map((p) => [p.partitionId, p.leader]));
  return new Map(
    transactionalIds.map((id) => [id, byId.get((javaHashCode(id) & 0x7fffffff) % partitions.length) as number]),
  );
}

/** Every partition of `topics` (and of the internal topics) has its full replica set in sync and a leader. */
export async function fullyReplicated(admin: Admin, topics: readonly string[]): Promise<boolean> {
  const metadata = await admin.fetchTopicMetadata({ topics: [...topics, "__consumer_offsets", "__transaction_state"] });
  return metadata.topics.every((t) => t.partitions.every((p) => p.leader >= 0 && p.isr.length === p.replicas.length));
}

export function nodeById(cluster: ClusterUnderTest, id: number): KafkaNode {
  const node = cluster.nodes.find((n) => n.id === id);
  if (node === undefined) throw new Error(`no node ${id} in ${cluster.nodes.map((n) => n.id).join(", ")}`);
  return node;
}

export const killNode = (node: KafkaNode) => signalKafkaNode(node, "SIGKILL");
export const stallNode = (node: KafkaNode) => signalKafkaNode(node, "SIGSTOP");
export const resumeNode = (node: KafkaNode) => signalKafkaNode(node, "SIGCONT");

/** Starts a node that is down and waits until it answers. */
export async function restartNode(cluster: ClusterUnderTest, node: KafkaNode): Promise<void> {
  launchKafkaNode(cluster.config, node);
  await waitForKafkaNode(node, 180_000);
}

/**
 * A controlled restart: SIGTERM (the broker hands its leaderships over), then start it again. It proves
 * the fault took place: the node's process ran before, was stopped, and a new process runs after;
 * otherwise it throws (a bounce that did nothing must not pass for one).
 */
export async function bounceNode(
  cluster: ClusterUnderTest,
  node: KafkaNode,
): Promise<{ stoppedPid: number; startedPid: number }> {
  const stoppedPid = kafkaNodePid(node);
  if (stoppedPid === undefined || !(await stopKafkaNode(node, 120_000)))
    throw new Error(`node ${node.id} was not running: there was nothing to bounce`);
  if (kafkaNodePid(node) !== undefined) throw new Error(`node ${node.id} still runs after its stop`);
  await restartNode(cluster, node);
  const startedPid = kafkaNodePid(node);
  if (startedPid === undefined || startedPid === stoppedPid)
    throw new Error(`node ${node.id} did not come back as a new process (pid ${startedPid ?? "none"})`);
  return { stoppedPid, startedPid };
}

/** After a scenario: every node runs (none left stalled) and every partition is fully replicated again. */
export async function healCluster(cluster: ClusterUnderTest, admin: Admin, topics: readonly string[]): Promise<void> {
  for (const node of cluster.nodes) {
    resumeNode(node);
    if (
      !(await waitForKafkaNode(node, 5_000).then(
        () => true,
        () => false,
      ))
    )
      await restartNode(cluster, node);
  }
  await eventually(
    "every partition fully replicated",
    async () => ((await fullyReplicated(admin, topics)) ? true : undefined),
    240_000,
    1_000,
  );
}
