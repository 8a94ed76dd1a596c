/**
 * kafkajs resolves and commits a fetch of only transaction markers itself, before the projector's
 * END_BATCH_PROCESS handler stores that move in the database. A projector killed in between restarts
 * with Kafka's committed offset past the database's, and nothing new to fetch: unless it seeks back to
 * the database's offset at assignment, its stored offset stays one marker behind the end, and
 * /v1/staleness reports a lag that never clears.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Admin } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import { deleteTopics, type Fixture, fixture, kafka, serde, startProjector, waitFor } from "../test/pipeline.ts";
import { activeGeneration } from "./store/generations.ts";
import { tableNames } from "./store/schema.ts";

let admin: Admin;
let f: Fixture;
const dir = mkdtempSync(join(tmpdir(), "projector-markers-"));

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  f = await fixture(admin, "projector-markers", { A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite") });
});

afterAll(async () => {
  if (f !== undefined) await deleteTopics(admin, f);
  await admin?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const dispatched: Observation = {
  type: "TaskDispatched",
  eventId: "markers-d1",
  correlationId: "markers-task",
  occurredAt: Date.parse("2025-06-02T09:00:00Z"),
  observer: "orchestrator",
  workerId: "w-markers",
  skillId: "summarize",
  messageId: "m1",
  acceptedOutputModes: ["text/plain"],
  attempt: 1,
  cardHash: null,
} as Observation;

it("restarted with Kafka's committed offset past a marker the database never stored, seeks back and reports no lag", async () => {
  const topic = f.topics.observations;
  // One committed transaction: the record, then its commit marker.
  const producer = kafka.producer({ transactionalId: `${f.suffix}-markers`, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  let partition: number;
  try {
    const tx = await producer.transaction();
    const [meta] = await tx.send({
      topic,
      acks: -1,
      messages: [{ key: dispatched.correlationId, value: await serde.encodeValidated(dispatched) }],
    });
    partition = (meta as { partition: number }).partition;
    await tx.commit();
  } finally {
    await producer.disconnect();
  }
  const lagOf = async (server: Awaited<ReturnType<typeof startProjector>>["server"]) => {
    const body = (await server.inject({ method: "GET", url: "/v1/staleness" })).json() as {
      topics: {
        topic: string;
        partitions: { partition: number; endOffset: number | null; lagRecords: number | null }[];
      }[];
    };
    return body.topics.find((t) => t.topic === topic)?.partitions.find((p) => p.partition === partition);
  };

  const first = await startProjector(f, {});
  let end: number;
  try {
    const caughtUp = await waitFor(
      "the first projector to read past the marker",
      async () => {
        const p = await lagOf(first.server);
        return p?.lagRecords === 0 && p.endOffset === 2 ? p : undefined;
      },
      60_000,
    );
    end = caughtUp.endOffset as number;
    // The database, as a kill between kafkajs's commit and the handler's write leaves it: at the marker.
    const gen = (await first.store.read(activeGeneration)) as number;
    await first.store.write((tx) =>
      tx.run(`UPDATE ${tableNames(gen).offset} SET next_offset = ? WHERE topic = ? AND log_partition = ?`, [
        end - 1,
        topic,
        partition,
      ]),
    );
    // A running consumer has nothing left to fetch: the lag stays.
    expect((await lagOf(first.server))?.lagRecords).toBe(1);
  } finally {
    await first.stop();
  }
  const [committed] = await admin.fetchOffsets({ groupId: `projector-${f.suffix}`, topics: [topic] });
  expect(committed?.partitions.find((p) => p.partition === partition)?.offset).toBe(String(end));

  const second = await startProjector(f, {});
  try {
    const settled = await waitFor(
      "the restarted projector to store the offset past the marker",
      async () => ((await lagOf(second.server))?.lagRecords === 0 ? true : undefined),
      30_000,
    );
    expect(settled).toBe(true);
  } finally {
    await second.stop();
  }
}, 180_000);
