/**
 * Fault scenario 7: the dispatcher, its own process, is killed (SIGKILL) at the points where a crash
 * could make it send a re-dispatch twice — after its journal says "sending" and before the message
 * leaves, after the worker answered and before the journal says "dispatched", after "dispatched" and
 * before the ledger acknowledged its observations — and started again each time. The process is held at
 * each point by its test entry point (`held-dispatcher.ts --hold-at <point>`: the service's process with a hook,
 * no setting of a deployment), which announces the point in a log line; the test kills it there. Every re-dispatch reaches the worker (a real @a2a-js/sdk worker behind a recording
 * proxy process) at most once, counted by the worker's received messages.
 *
 * The first command is written before any dispatcher of the group ever joined: a new dispatcher runs it.
 * The observations topic is read by the oracle (`@a2a-ledger/kafka/oracle`: plain kafkajs, the registry client).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults as ingestDefaults, createIngestApp, type IngestApp } from "@a2a-ledger/ingest";
import {
  killHard,
  readyOnMessage,
  spawnService,
  stopChild,
  type ChildService,
  type LogEntry,
} from "@a2a-ledger/env/testing";
import {
  createKafka,
  ensureTopics,
  suffixedTopicNames,
  topicSpecs,
  type Admin,
  type Producer,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { copiesByEventId, readTopic } from "@a2a-ledger/kafka/oracle";
import type { Decision } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTappedAgent, type TappedAgent } from "../../proxy/test/tapped-agent.ts";
import { Journal } from "../src/journal.ts";
import { redispatchMessageId } from "../src/observations.ts";
import { dispatcherMain, endpoints, serde } from "./live-mesh.ts";

const proxyMain = fileURLToPath(new URL("../../proxy/src/main.ts", import.meta.url));
const heldDispatcher = fileURLToPath(new URL("./held-dispatcher.ts", import.meta.url));
const suffix = `crash-${randomUUID().slice(0, 8)}`;
const topics: TopicNames = suffixedTopicNames(suffix);
const dir = mkdtempSync(join(tmpdir(), "dispatcher-crash-"));

let admin: Admin;
let producer: Producer;
let ingest: IngestApp;
let ingestUrl: string;
let worker: TappedAgent;
let proxy: ChildService;
let workersFile: string;
const dispatchers: ChildService[] = [];

type Redispatch = Extract<Decision, { type: "RedispatchCommanded" }>;

function command(label: string): Redispatch {
  return {
    type: "RedispatchCommanded",
    decisionId: `lost-${label}-${suffix}:RedispatchCommanded:0`,
    correlationId: `order-${label}`,
    causeEventIds: [`lost-${label}`],
    rulesVersion: "default/2",
    policyVersion: null,
    decidedAt: Date.now(),
    workerId: "W2",
    targetWorkerId: "W1",
    fromServerTaskId: `w2-task-${label}`,
    skillId: "answer",
    attempt: 2,
    resumeState: null,
    acceptedOutputModes: ["application/json"],
    candidates: [],
  };
}

const write = async (c: Redispatch) =>
  void (await producer.send({
    topic: topics.commands,
    acks: -1,
    messages: [{ key: c.correlationId, value: await serde.encode(c) }],
  }));

/** SendMessage requests the worker received carrying this command's message. */
const received = (c: Redispatch) =>
  worker.exchanges.filter(
    (e) => e.method === "POST" && e.requestBody.toString("utf8").includes(redispatchMessageId(c.decisionId)),
  );

const linesOf = (service: ChildService): LogEntry[] =>
  service
    .output()
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogEntry];
      } catch {
        return [];
      }
    });

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startDispatcher(holdAt: string | null): Promise<ChildService> {
  const entry = holdAt === null ? [dispatcherMain] : [heldDispatcher, "--hold-at", holdAt];
  const service = await spawnService("dispatcher", process.execPath, ["--import", "tsx", ...entry], {
    env: {
      ...process.env,
      A2A_LEDGER_TOPIC_SUFFIX: suffix,
      A2A_LEDGER_DATA_DIR: dir,
      A2A_LEDGER_DISPATCHER_WORKERS_FILE: workersFile,
      A2A_LEDGER_DISPATCHER_INGEST_URL: ingestUrl,
      A2A_LEDGER_DISPATCHER_PORT: "0",
      A2A_LEDGER_DISPATCHER_SESSION_TIMEOUT_MS: "6000",
      A2A_LEDGER_DISPATCHER_LOG_LEVEL: "info",
    },
    ready: readyOnMessage("partitions assigned"),
    startTimeoutMs: 90_000,
  });
  dispatchers.push(service);
  return service;
}

const holding = (service: ChildService, c: Redispatch, point: string) =>
  until(`the dispatcher holding at ${point}`, () =>
    linesOf(service).find((l) => l.msg === "holding for a test" && l.decisionId === c.decisionId && l.point === point),
  );
const journalRow = (c: Redispatch) => {
  const journal = new Journal(join(dir, `dispatcher.${suffix}.sqlite`));
  try {
    return journal.get(c.decisionId);
  } finally {
    journal.close();
  }
};

beforeAll(async () => {
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: `dispatcher-crash-${suffix}` });
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics));
  await serde.registerAll();
  producer = kafka.producer({ idempotent: true });
  await producer.connect();
  ingest = createIngestApp(
    {
      ...ingestDefaults,
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topic: topics.observations,
      tokens: [],
      logLevel: "silent",
      port: 0,
    },
    { logger: false },
  );
  ingestUrl = await ingest.server.listen({ host: "127.0.0.1", port: 0 });
  worker = await startTappedAgent("w1");
  proxy = await spawnService("proxy", process.execPath, ["--import", "tsx", proxyMain], {
    env: {
      ...process.env,
      A2A_LEDGER_PROXY_WORKER_ID: "W1",
      A2A_LEDGER_PROXY_UPSTREAM_URL: worker.url,
      A2A_LEDGER_PROXY_PORT: "0",
      A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
      A2A_LEDGER_PROXY_INGEST_URL: ingestUrl,
      A2A_LEDGER_PROXY_SPOOL_DIR: join(dir, "proxy-W1"),
      A2A_LEDGER_PROXY_FLUSH_DELAY_MS: "20",
      A2A_LEDGER_PROXY_LOG_LEVEL: "info",
    },
    ready: readyOnMessage("listening"),
  });
  workersFile = join(dir, "workers.json");
  const redispatch = { message: "delay-ms=400 {correlationId}: answer again (attempt {attempt})" };
  writeFileSync(
    workersFile,
    JSON.stringify({
      workers: { W1: { url: String(proxy.readyEntry.url), workerUrl: worker.url, skills: { answer: { redispatch } } } },
    }),
  );
});

afterAll(async () => {
  for (const d of dispatchers) await killHard(d.child);
  if (proxy !== undefined) await stopChild(proxy.child, 5_000);
  await worker?.close();
  await ingest?.server.close();
  await producer?.disconnect();
  await admin?.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
  await admin?.disconnect();
});

describe("the dispatcher killed around a re-dispatch (scenario 7)", () => {
  it("sends each re-dispatch to the worker at most once, whichever point it was killed at, and runs commands written before it first joined", async () => {
    const beforeSend = command("before-send");
    const afterSend = command("after-send");
    const afterDispatched = command("after-dispatched");

    // 1. Written before any dispatcher of the group joined. Killed after "sending", before the message left.
    await write(beforeSend);
    const first = await startDispatcher("before-send");
    await holding(first, beforeSend, "before-send");
    expect(journalRow(beforeSend)?.status).toBe("sending");
    await killHard(first.child);
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(received(beforeSend)).toHaveLength(0);

    // 2. Killed after the worker answered, before "dispatched" was written.
    const second = await startDispatcher("after-send");
    await until("the unsent command abandoned", () => journalRow(beforeSend)?.status === "abandoned");
    await write(afterSend);
    await holding(second, afterSend, "after-send");
    expect(received(afterSend)).toHaveLength(1);
    await killHard(second.child);

    // 3. Killed after "dispatched" was written, before the ledger acknowledged the observations.
    const third = await startDispatcher("after-dispatched");
    await until("the answered command abandoned", () => journalRow(afterSend)?.status === "abandoned");
    await write(afterDispatched);
    await holding(third, afterDispatched, "after-dispatched");
    expect(journalRow(afterDispatched)?.status).toBe("dispatched");
    await killHard(third.child);

    // 4. A dispatcher without the hook: the kept observations are recorded; then every command is replayed.
    const fourth = await startDispatcher(null);
    await until("the dispatched command recorded", () => journalRow(afterDispatched)?.status === "done");
    for (const c of [beforeSend, afterSend, afterDispatched]) await write(c);
    await until(
      "the replays seen as duplicates",
      () => [beforeSend, afterSend, afterDispatched].every((c) => (journalRow(c)?.deliveries ?? 0) >= 3) || undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // At most once each, counted where it matters: at the worker.
    expect([beforeSend, afterSend, afterDispatched].map((c) => received(c).length)).toEqual([0, 1, 1]);
    expect([beforeSend, afterSend, afterDispatched].map((c) => journalRow(c)?.status)).toEqual([
      "abandoned",
      "abandoned",
      "done",
    ]);
    const alerts = [second, third, fourth]
      .flatMap(linesOf)
      .filter((l) => l.alert === "DISPATCHER_OUTCOME_UNKNOWN")
      .map((l) => l.decisionId);
    expect(alerts).toEqual([beforeSend.decisionId, afterSend.decisionId]);

    // What the ledger holds, read independently: the proxy saw each message the worker received, once;
    // the dispatcher's own record of the one that reached "dispatched", with one payload.
    const atLeast = 1;
    const records = await readTopic({
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topic: topics.observations,
      atLeast,
      settleMs: 3_000,
    });
    for (const [eventId, c] of copiesByEventId(records))
      expect(c.payloads.size, `eventId ${eventId} carries one payload`).toBe(1);
    const dispatched = records
      .filter((r) => r.type === "TaskDispatched")
      .map((r) => r.value as Record<string, unknown>);
    const of = (c: Redispatch, observer: string) =>
      dispatched.filter((v) => v["messageId"] === redispatchMessageId(c.decisionId) && v["observer"] === observer);
    expect(
      [beforeSend, afterSend, afterDispatched].map((c) => new Set(of(c, "proxy:W1").map((v) => v["eventId"])).size),
    ).toEqual([0, 1, 1]);
    expect(
      [beforeSend, afterSend, afterDispatched].map((c) => new Set(of(c, "dispatcher").map((v) => v["eventId"])).size),
    ).toEqual([0, 0, 1]);
    // The dispatch is stamped when it was sent: before the worker received it, not when the worker answered.
    const stamped = of(afterDispatched, "dispatcher")[0] as Record<string, unknown>;
    const arrived = (received(afterDispatched)[0] as { receivedAt: number }).receivedAt;
    const answered = records.find(
      (r) =>
        r.type === "TaskStateObserved" &&
        r.value?.["observer"] === "dispatcher" &&
        r.value["correlationId"] === afterDispatched.correlationId,
    )?.value as Record<string, unknown>;
    expect(Number(stamped["occurredAt"])).toBeLessThanOrEqual(arrived);
    expect(Number(answered["occurredAt"]) - Number(stamped["occurredAt"])).toBeGreaterThanOrEqual(400);
  });
});
