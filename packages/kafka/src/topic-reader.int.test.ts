/**
 * TopicReader against the shared Kafka stack: it must know a partition was read to its end even when
 * the last offsets hold no record a read_committed reader is given (transaction markers, aborted
 * records), on an empty topic, on a compacted topic with overwritten keys and tombstones, and while
 * the end keeps moving.
 */
import type { Admin, KafkaMessage } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AssignerProtocol, createKafka } from "./client.ts";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import { endOffsets } from "./end-offsets.ts";
import { createTestTopic, produceAll } from "./testing.ts";
import { type PartitionProgress, TopicReader } from "./topic-reader.ts";

const kafka = createKafka({ clientId: "topic-reader-test", brokers: endpointsFromEnv().brokers });
let admin: Admin;
const created: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.deleteTopics({ topics: created }).catch(() => undefined);
  await admin.disconnect();
});

async function topicOf(prefix: string, partitions: number, configs: Record<string, string> = {}): Promise<string> {
  const topic = await createTestTopic(admin, `topic-reader.${prefix}`, partitions, configs);
  created.push(topic);
  return topic;
}

/** A reader that keeps what it was handed, as "partition:offset key=value". */
function collecting(topic: string, options: ConstructorParameters<typeof TopicReader>[5] = {}) {
  const seen: string[] = [];
  const onRecord = (partition: number, m: KafkaMessage) =>
    void seen.push(`${partition}:${m.offset} ${m.key?.toString() ?? ""}=${m.value?.toString() ?? "null"}`);
  return { seen, reader: new TopicReader(kafka, admin, topic, onRecord, "topic-reader-test", options) };
}

async function transactional(
  topic: string,
  run: (
    send: (messages: { partition: number; key: string; value: string | null }[]) => Promise<void>,
  ) => Promise<"commit" | "abort">,
): Promise<void> {
  const producer = kafka.producer({
    transactionalId: `${topic}-${Math.random()}`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  try {
    const tx = await producer.transaction();
    const outcome = await run(async (messages) => void (await tx.send({ topic, messages })));
    await (outcome === "commit" ? tx.commit() : tx.abort());
  } finally {
    await producer.disconnect();
  }
}

/**
 * Waits (bounded) until every partition's high watermark is `high`. Commit and abort return once the
 * coordinator has decided; on three nodes the markers reach the partitions' high watermarks a moment
 * later, and a reader asked for the end before then is rightly told the earlier one.
 */
async function markersWritten(topic: string, high: string): Promise<void> {
  let seen: string[] = [];
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    seen = (await endOffsets(admin, topic)).map((p) => p.high);
    if (seen.every((h) => h === high)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${topic}: the end offsets stayed ${seen.join(", ")}, not ${high}, for 30 s`);
}

describe("TopicReader", () => {
  it("is caught up at once on an empty topic, with each partition's end offset 0", async () => {
    const topic = await topicOf("empty", 2);
    const { seen, reader } = collecting(topic);
    await reader.start();
    try {
      expect(await reader.caughtUp(10_000)).toEqual({ 0: "0", 1: "0" });
      expect(seen).toEqual([]);
    } finally {
      await reader.stop();
    }
  });

  it("reaches the end under read_committed when the last offsets are an aborted transaction and commit markers", async () => {
    const topic = await topicOf("aborted", 1);
    await transactional(
      topic,
      async (send) => (
        await send([
          { partition: 0, key: "a", value: "1" },
          { partition: 0, key: "b", value: "2" },
        ]),
        "commit"
      ),
    );
    await transactional(topic, async (send) => (await send([{ partition: 0, key: "c", value: "never" }]), "abort"));
    await markersWritten(topic, "5");
    const { seen, reader } = collecting(topic);
    await reader.start();
    try {
      const ends = await reader.caughtUp(30_000);
      // Two records, a commit marker, an aborted record and its abort marker: the end is past all of them.
      expect(Number(ends[0])).toBe(5);
      expect(seen).toEqual(["0:0 a=1", "0:1 b=2"]);
      expect(reader.position(0)).toBe(5n);
    } finally {
      await reader.stop();
    }
  });

  it("reads a compacted topic with overwritten keys, tombstones and transaction gaps to its end", async () => {
    const topic = await topicOf("compacted", 2, {
      "cleanup.policy": "compact",
      "segment.ms": "100",
      "min.cleanable.dirty.ratio": "0.01",
      "delete.retention.ms": "100",
    });
    for (let round = 0; round < 3; round++) {
      await transactional(
        topic,
        async (send) => (
          await send(
            [0, 1].flatMap((partition) => [
              { partition, key: `k${partition}`, value: `v${round}` },
              { partition, key: `gone${partition}`, value: round === 2 ? null : "x" },
            ]),
          ),
          "commit"
        ),
      );
    }
    const last = new Map<string, string>();
    const reader = new TopicReader(
      kafka,
      admin,
      topic,
      (_p, m) => {
        if (m.value === null) last.delete(m.key?.toString() ?? "");
        else last.set(m.key?.toString() ?? "", m.value.toString());
      },
      "topic-reader-test",
    );
    await reader.start();
    try {
      await markersWritten(topic, "9");
      const ends = await reader.caughtUp(30_000);
      // Per partition: 3 transactions of 2 records and a commit marker each.
      expect(ends).toEqual({ 0: "9", 1: "9" });
      expect(Object.fromEntries(last)).toEqual({ k0: "v2", k1: "v2" });
    } finally {
      await reader.stop();
    }
  });

  it("reads past a batch the cleaner emptied at the end of a segment (kafkajs 2.2.4 alone fetched it forever)", async () => {
    // P1's batch (offset 0) is overwritten by P2's (offset 1, in the next segment). The cleaner keeps
    // P1's batch, emptied, as P1's last one, and, P2's batch filling a segment of its own, in a segment
    // of its own. A fetch reads within one segment, so a fetch from 0 returns that batch alone: no
    // record, and kafkajs 2.2.4 fetched offset 0 again and again.
    const topic = await topicOf("emptied", 1, {
      "cleanup.policy": "compact",
      "segment.ms": "100",
      "segment.bytes": String(1024 * 1024),
      "max.message.bytes": String(4 * 1024 * 1024),
      "min.cleanable.dirty.ratio": "0.01",
      "min.compaction.lag.ms": "0",
    });
    const send = async (key: string, value: string) => {
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        await producer.send({ topic, acks: -1, messages: [{ partition: 0, key, value }] });
      } finally {
        await producer.disconnect();
      }
      // The next append rolls the segment (segment.ms 100), so this batch becomes cleanable.
      await new Promise((r) => setTimeout(r, 300));
    };
    await send("a", "first");
    // P2's batch just under a segment: with P1's beside it, more than the cleaner merges into one.
    await send("a", "x".repeat(1024 * 1024 - 120));
    await send("b", "last");
    const deadline = Date.now() + 90_000;
    let seen: string[] = [];
    // Until the cleaner ran (every 15 s by default): offset 0's record is gone, its batch kept.
    while (Date.now() < deadline) {
      const { seen: now, reader } = collecting(topic);
      await reader.start();
      try {
        await reader.caughtUp({ stallMs: 10_000 });
      } finally {
        await reader.stop();
      }
      seen = now.map((line) => line.slice(0, line.indexOf("=")));
      if (!seen.includes("0:0 a")) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(seen).toEqual(["0:1 a", "0:2 b"]);
  }, 120_000);

  it("keeps reading while the end moves, and caughtUp waits for the end it saw when called", async () => {
    const topic = await topicOf("moving", 3);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    let sent = 0;
    let producing = true;
    const writer = (async () => {
      while (producing) {
        await producer.send({
          topic,
          acks: -1,
          messages: Array.from({ length: 30 }, (_, i) => ({
            partition: (sent + i) % 3,
            key: `k${sent + i}`,
            value: String(sent + i),
          })),
        });
        sent += 30;
      }
    })();
    const { seen, reader } = collecting(topic);
    try {
      await new Promise((r) => setTimeout(r, 500));
      await reader.start();
      const first = await reader.caughtUp(30_000);
      const firstTotal = Object.values(first).reduce((n, o) => n + Number(o), 0);
      expect(firstTotal).toBeGreaterThan(0);
      expect(seen.length).toBeGreaterThanOrEqual(firstTotal);
      await new Promise((r) => setTimeout(r, 500));
      const second = await reader.caughtUp(30_000);
      for (const p of [0, 1, 2]) expect(BigInt(second[p] as string)).toBeGreaterThanOrEqual(BigInt(first[p] as string));
      expect(seen.length).toBeGreaterThanOrEqual(Object.values(second).reduce((n, o) => n + Number(o), 0));
      producing = false;
      await writer;
      const final = await reader.caughtUp(30_000);
      const total = Object.values(final).reduce((n, o) => n + Number(o), 0);
      expect(total).toBe(sent);
      expect(new Set(seen).size).toBe(sent);
    } finally {
      producing = false;
      await writer.catch(() => undefined);
      await producer.disconnect();
      await reader.stop();
    }
  });

  it("starts at the end with from: end, handing over only what is written after start", async () => {
    const topic = await topicOf("from-end", 1);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: [{ key: "old", value: "before" }] });
      const { seen, reader } = collecting(topic, { from: "end" });
      await reader.start();
      try {
        await producer.send({ topic, acks: -1, messages: [{ key: "new", value: "after" }] });
        await reader.caughtUp(30_000);
        expect(seen).toEqual(["0:1 new=after"]);
      } finally {
        await reader.stop();
      }
    } finally {
      await producer.disconnect();
    }
  });

  it("reads only the partitions it is given: its group assigns it nothing else", async () => {
    const topic = await topicOf("subset", 3);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: [0, 1, 2].flatMap((partition) => [
          { partition, key: `a${partition}`, value: "1" },
          { partition, key: `b${partition}`, value: "2" },
        ]),
      });
    } finally {
      await producer.disconnect();
    }
    const { seen, reader } = collecting(topic, { partitions: [1] });
    await reader.start();
    try {
      expect(await reader.caughtUp(30_000)).toEqual({ 1: "2" });
      expect(seen).toEqual(["1:0 a1=1", "1:1 b1=2"]);
      const [group] = (await admin.describeGroups([reader.groupId])).groups;
      const assigned = (group?.members ?? []).map(
        (m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment,
      );
      expect(assigned).toEqual([{ [topic]: [1] }]);
      await expect(reader.caughtUp(30_000, new Set([0, 1]))).rejects.toThrow(
        /partitions 0 are not among the partitions this reader reads/,
      );
    } finally {
      await reader.stop();
    }
  });

  it("with a stall guard, waits for as long as the read moves, reporting progress and each partition's end", async () => {
    const topic = await topicOf("slow", 2);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: Array.from({ length: 200 }, (_, i) => ({ partition: i % 2, key: `k${i}`, value: String(i) })),
      });
    } finally {
      await producer.disconnect();
    }
    // 10 ms per record: the read takes about 2 s, twice the stall guard and twice a total limit of the same length.
    const slow = () =>
      new TopicReader(kafka, admin, topic, () => new Promise((r) => setTimeout(r, 10)), "topic-reader-test");
    const limited = slow();
    await limited.start();
    try {
      await expect(limited.caughtUp(1_000)).rejects.toThrow(/did not reach the end of partitions .* within 1000 ms/);
    } finally {
      await limited.stop();
    }
    const reader = slow();
    const reports: PartitionProgress[][] = [];
    const reached: [number, string][] = [];
    await reader.start();
    const started = Date.now();
    try {
      const ends = await reader.caughtUp({
        stallMs: 1_000,
        progressEveryMs: 200,
        progress: (p) => void reports.push([...p]),
        reached: (partition, end) => void reached.push([partition, end]),
      });
      expect(Date.now() - started).toBeGreaterThan(1_000);
      expect(ends).toEqual({ 0: "100", 1: "100" });
      expect(reached.sort()).toEqual([
        [0, "100"],
        [1, "100"],
      ]);
      const remaining = reports.map((r) => r.reduce((n, p) => n + Number(p.end - p.position), 0));
      expect(remaining.length).toBeGreaterThan(2);
      expect(remaining[remaining.length - 1]).toBe(0);
      expect(remaining.some((n) => n > 0 && n < 200)).toBe(true);
    } finally {
      await reader.stop();
    }
  });

  it("reads on after its handler failed once: the record is handed over again, and the failure ends the waits only until it is handled", async () => {
    const topic = await topicOf("transient", 1);
    await produceAll(kafka, topic, ["a", "b", "c"], { key: (k) => k, encode: async (k) => Buffer.from(k) });
    // The capability table's reader decodes each snapshot through the schema registry: one lookup that
    // failed (a registry that did not answer in time) must not fail every later wait for the reader's life.
    let failures = 0;
    const handled: string[] = [];
    const reader = new TopicReader(
      kafka,
      admin,
      topic,
      (_partition, m) => {
        const key = m.key?.toString() ?? "";
        if (key === "b" && failures === 0) {
          failures++;
          throw new Error("the registry did not answer");
        }
        handled.push(key);
      },
      "topic-reader-test",
    );
    await reader.start();
    try {
      const errors: string[] = [];
      let reached = false;
      for (const deadline = Date.now() + 30_000; !reached && Date.now() < deadline; ) {
        try {
          await reader.caughtUp(10_000);
          reached = true;
        } catch (error) {
          errors.push(String(error));
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(failures).toBe(1);
      expect(reached, `every wait failed: ${errors.slice(-3).join("; ")}`).toBe(true);
      expect(errors.every((e) => e.includes("the registry did not answer"))).toBe(true);
      expect(handled).toEqual(["a", "b", "c"]);
      expect(reader.failed).toBeUndefined();
    } finally {
      await reader.stop();
    }
  });

  it("with a stall guard, fails with the partitions and positions once nothing moves for that long", async () => {
    const topic = await topicOf("stalled", 1);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: [
          { key: "a", value: "1" },
          { key: "b", value: "2" },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    let release = (): void => undefined;
    const held = new Promise<void>((r) => (release = r));
    const reader = new TopicReader(kafka, admin, topic, () => held, "topic-reader-test");
    await reader.start();
    try {
      await expect(reader.caughtUp({ stallMs: 1_500 })).rejects.toThrow(
        /made no progress for 1500 ms: partitions 0 \(at 0 of 2\) did not reach their end/,
      );
    } finally {
      release();
      await reader.stop();
    }
  });
});
