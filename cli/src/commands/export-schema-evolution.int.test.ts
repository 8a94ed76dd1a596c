/**
 * `export --kafka` over a topic holding records of two versions of an observation schema (a
 * test-only subject: the older version without `append` and `lastChunk`, then the catalogue's): every
 * record comes out as the catalogue's version, the older ones with the defaults. `replay --kafka`
 * reads the topic through the same decoder (observation-topic.ts).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import avro from "avsc";
import type { Admin } from "@a2a-ledger/kafka";
import { createTestTopic } from "@a2a-ledger/kafka/testing";
import { avroSchemas, type Observation } from "@a2a-ledger/schemas";
import { setSubjectCompatibility } from "@a2a-ledger/schemas/serde";
import { sampleObservation } from "@a2a-ledger/schemas/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpoints, kafka, serde } from "../../test/ledger-stack.ts";
import { run } from "../../test/run.ts";

interface RecordSchema {
  type: "record";
  name: string;
  namespace: string;
  fields: { name: string }[];
}

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-export-evolution-"));
let admin: Admin;
let topic: string;

async function registerVersion(subject: string, schema: RecordSchema): Promise<number> {
  const response = await fetch(`${endpoints.registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schema: JSON.stringify(schema) }),
  });
  const body = (await response.json()) as { id?: number };
  if (response.status !== 200 || body.id === undefined)
    throw new Error(`registering in ${subject}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  topic = await createTestTopic(admin, "export-evolution");
});
afterAll(async () => {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

describe("export --kafka of records written with an older schema version", () => {
  it("writes them as the catalogue's version, with the defaults of the fields added since", async () => {
    const current = structuredClone(avroSchemas.observations.ArtifactEmitted) as unknown as RecordSchema;
    const older: RecordSchema = {
      ...current,
      fields: current.fields.filter((f) => f.name !== "append" && f.name !== "lastChunk"),
    };
    const subject = `test.export-evolution.${randomUUID().slice(0, 8)}.ArtifactEmitted`;
    const v1 = await registerVersion(subject, older);
    await setSubjectCompatibility(endpoints.registryUrl, subject, "BACKWARD");
    const v2 = await registerVersion(subject, current);

    const base = sampleObservation("ArtifactEmitted");
    const written = [
      { ...base, eventId: "written-v1" },
      { ...base, eventId: "written-v2", append: true, lastChunk: true },
    ];
    const frame = (id: number, schema: RecordSchema, o: Observation) => {
      const header = Buffer.alloc(5);
      header.writeInt32BE(id, 1);
      const { type: _type, ...fields } = o;
      return Buffer.concat([header, avro.Type.forSchema(schema as unknown as avro.Schema).toBuffer(fields)]);
    };
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    await producer.send({
      topic,
      acks: -1,
      messages: [
        { key: base.correlationId, value: frame(v1, older, written[0] as Observation) },
        { key: base.correlationId, value: frame(v2, current, written[1] as Observation) },
      ],
    });
    await producer.disconnect();

    const file = join(dir, "evolution.ndjson");
    const exported = await run(["export", "--kafka", "--topic", topic, "--output", file]);
    expect(exported.stderr).toContain("exported 2 of 2 observations");
    expect(exported.code).toBe(0);
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    expect(lines.map((l) => JSON.parse(l) as Observation)).toEqual([
      { ...written[0], append: false, lastChunk: null },
      written[1],
    ]);
    expect(lines[0]).toBe(JSON.stringify({ ...written[0], append: false, lastChunk: null }));
  }, 120_000);
});
