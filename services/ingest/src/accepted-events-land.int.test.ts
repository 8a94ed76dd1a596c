/**
 * Against the real broker and registry: what got 202 is on the topic, in the partition of its key
 * (Java's murmur2), decodable with the registered schema, in order per key.
 */
import { parseObservation } from "@a2a-ledger/core";
import { describe, expect, it } from "vitest";
import { observation, sizedObservation } from "../test/observations.ts";
import { endOffsetSum, readTopic, servedTopic } from "../test/stack.ts";
import { partitionOf } from "@a2a-ledger/kafka";

const served = servedTopic("landing", { maxEvents: 1_000 });

const post = (body: string, contentType = "application/json") =>
  served.app.server.inject({
    method: "POST",
    url: "/v1/observations",
    headers: { "content-type": contentType },
    payload: body,
  });

describe("partitioning", () => {
  it("is Java's murmur2: toPositive(murmur2(utf8 key)) % partitions", () => {
    // Computed with org.apache.kafka.common.utils.Utils.murmur2 from kafka-clients 4.1.2.
    const java: Record<string, number> = {
      "21": 0,
      foobar: 0,
      "corr-1": 2,
      "a2a-ledger": 4,
      "c-0": 2,
      "c-17": 1,
      "correlation-42": 5,
      "日本語-key": 0,
    };
    for (const [key, partition] of Object.entries(java)) expect(partitionOf(key, 6), key).toBe(partition);
  });
});

describe("POST /v1/observations with Kafka up", () => {
  it("puts every accepted event on the topic, in its key's partition, decodable and in order per key", async () => {
    const run = `land-${Date.now()}`;
    // Four keys per partition: 24 random keys would leave some partition empty in ~8% of runs.
    const correlations: string[] = [];
    const perPartition = new Map<number, number>();
    for (let c = 0; correlations.length < 24 && c < 10_000; c++) {
      const key = `${run}-c${c}`;
      const p = partitionOf(key, 6);
      if ((perPartition.get(p) ?? 0) < 4) {
        perPartition.set(p, (perPartition.get(p) ?? 0) + 1);
        correlations.push(key);
      }
    }
    const sent: Record<string, unknown>[] = [];
    let next = 0;
    const batch = (n: number) =>
      Array.from({ length: n }, () => {
        const i = next++;
        const event = observation(run, i, correlations[i % correlations.length]!);
        sent.push(event);
        return event;
      });

    // One object, arrays, NDJSON, sequentially.
    expect((await post(JSON.stringify(batch(1)[0]))).json()).toEqual({ accepted: 1 });
    for (const size of [10, 250, 1_000]) {
      const response = await post(JSON.stringify(batch(size)));
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toEqual({ accepted: size });
    }
    const ndjson = batch(40)
      .map((e) => JSON.stringify(e))
      .join("\n");
    expect((await post(`${ndjson}\n`, "application/x-ndjson")).json()).toEqual({ accepted: 40 });

    // Concurrent batches leave together (group commit); order within each still holds.
    const concurrent = await Promise.all([0, 1, 2, 3, 4, 5].map(() => post(JSON.stringify(batch(100)))));
    for (const response of concurrent) expect(response.statusCode, response.body).toBe(202);

    const records = await readTopic(served.kafka, served.topic, sent.length);
    expect(records).toHaveLength(sent.length);
    expect(await endOffsetSum(served.admin, served.topic)).toBe(sent.length);

    const position = new Map(sent.map((e, i) => [e["eventId"] as string, i]));
    const lastSeen = new Map<string, number>();
    for (const record of records) {
      expect(record.partition, record.key).toBe(partitionOf(record.key, 6));
      const decoded = await served.app.serde.decode(record.value);
      expect(decoded.group).toBe("observations");
      const index = position.get((decoded.record as { eventId: string }).eventId)!;
      const expected = parseObservation(sent[index]);
      expect(expected.ok).toBe(true);
      if (expected.ok) expect(decoded.record).toEqual(expected.observation);
      expect(record.key).toBe(expected.ok ? expected.observation.correlationId : "");
      // Records of one key are in one partition, so offset order is the log order of that key.
      expect(index, `order of ${record.key}`).toBeGreaterThan(lastSeen.get(record.key) ?? -1);
      lastSeen.set(record.key, index);
    }
    expect(new Set(records.map((r) => r.partition)).size).toBe(6);
  });

  it("splits batches that would exceed a partition's record-batch limit, and all of it lands", async () => {
    const run = `big-${Date.now()}`;
    const before = await endOffsetSum(served.admin, served.topic);
    // 3 concurrent batches of 300 events of ~5 KB on one key: ~4.5 MB for one partition.
    const bodies = [0, 1, 2].map((b) =>
      JSON.stringify(
        Array.from({ length: 300 }, (_, i) => sizedObservation(run, b * 300 + i, `${run}-one-key`, 5_000)),
      ),
    );
    const responses = await Promise.all(bodies.map((body) => post(body)));
    for (const response of responses) expect(response.statusCode, response.body).toBe(202);
    expect(await endOffsetSum(served.admin, served.topic)).toBe(before + 900);
  });
});
