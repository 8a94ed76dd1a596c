/**
 * Schema evolution on the real registry and broker: records written with an older version of an
 * event's schema decode as the catalogue's version, with the defaults of the fields added since.
 * Every version lives in a test-only subject; the shipped subjects and catalogue are not touched.
 */
import { randomUUID } from "node:crypto";
import avro from "avsc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, endpointsFromEnv, type Admin } from "@a2a-ledger/kafka";
import { createTestTopic, readMessages } from "@a2a-ledger/kafka/testing";
import { avroSchemas } from "./generated/avro-schemas.ts";
import type { Observation } from "./generated/types.ts";
import { setSubjectCompatibility } from "./registry-admin.ts";
import { type LedgerRecord, Serde, SerdeError, WireFormatError } from "./serde.ts";
import { catalogue, type SubjectSchema } from "./subjects.ts";
import { sampleObservation } from "./testing/samples.ts";

const { brokers, registryUrl } = endpointsFromEnv();
const kafka = createKafka({ brokers, clientId: "serde-evolution-test" });
const run = randomUUID().slice(0, 8);
const testSubject = (typeName: string) => `test.evolution.${run}.${typeName}`;
let admin: Admin;
const topics: string[] = [];

interface RecordSchema {
  type: "record";
  name: string;
  namespace: string;
  fields: { name: string; type: unknown; default?: unknown }[];
}

const shipped = (typeName: keyof typeof avroSchemas.observations) =>
  structuredClone(avroSchemas.observations[typeName]) as unknown as RecordSchema;

/** Registers `schema` as the next version of `subject`; its registry id. */
async function registerVersion(subject: string, schema: RecordSchema): Promise<number> {
  const response = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schema: JSON.stringify(schema) }),
  });
  const body = (await response.json()) as { id?: number };
  if (response.status !== 200 || body.id === undefined)
    throw new Error(`registering in ${subject}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** The Confluent frame of `value` written with `schema` under `id`, as any other producer would write it. */
function framed(id: number, schema: RecordSchema, value: unknown): Buffer {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, avro.Type.forSchema(schema as avro.Schema).toBuffer(value)]);
}

/** Produces the records to a fresh topic and reads them back from the broker. */
async function throughKafka(values: Buffer[]): Promise<Buffer[]> {
  const topic = await createTestTopic(admin, "serde-evolution");
  topics.push(topic);
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: values.map((value) => ({ key: "k", value })) });
  await producer.disconnect();
  const messages = await readMessages(kafka, topic, values.length);
  return messages.map((m) => m.value as Buffer);
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await new Serde(registryUrl).registerAll();
});
afterAll(async () => {
  if (topics.length > 0) await admin.deleteTopics({ topics });
  await admin.disconnect();
});

describe("records of an older schema version decode as the catalogue's version", () => {
  it("an ArtifactEmitted written before append and lastChunk existed decodes with their defaults (false, null)", async () => {
    const current = shipped("ArtifactEmitted");
    const older: RecordSchema = {
      ...current,
      fields: current.fields.filter((f) => f.name !== "append" && f.name !== "lastChunk"),
    };
    const subject = testSubject("ArtifactEmitted");
    const v1 = await registerVersion(subject, older);
    await setSubjectCompatibility(registryUrl, subject, "BACKWARD");
    const v2 = await registerVersion(subject, current); // the registry accepts it: a BACKWARD-compatible change
    expect(v2).not.toBe(v1);

    const { type: _type, ...fields } = sampleObservation("ArtifactEmitted");
    const streamed = { ...fields, eventId: "streamed", append: true, lastChunk: false };
    const [oldBytes, newBytes] = await throughKafka([framed(v1, older, fields), framed(v2, current, streamed)]);

    const fresh = new Serde(registryUrl); // no id known yet: both writer schemas come from the registry
    const [oldRecord, newRecord] = await Promise.all([
      fresh.decode(oldBytes as Buffer),
      fresh.decode(newBytes as Buffer),
    ]);
    expect(oldRecord).toMatchObject({ schemaId: v1, typeName: "ArtifactEmitted", group: "observations" });
    expect(oldRecord.record).toEqual({ ...sampleObservation("ArtifactEmitted"), append: false, lastChunk: null });
    // The shape every reader sees: `type` first, then every field of the catalogue's schema in order.
    expect(Object.keys(oldRecord.record)).toEqual(["type", ...current.fields.map((f) => f.name)]);
    expect(newRecord.record).toEqual({ type: "ArtifactEmitted", ...streamed });
    expect(JSON.stringify(oldRecord.record)).toBe(
      JSON.stringify({ ...sampleObservation("ArtifactEmitted"), append: false, lastChunk: null }),
    );
  });

  it("after a catalogue change that adds a defaulted field, records of the previous version read with the default, and the previous catalogue still reads the new ones", async () => {
    const subject = testSubject("TaskStateObserved");
    const before: SubjectSchema[] = catalogue()
      .filter((s) => s.typeName === "TaskStateObserved")
      .map((s) => ({ ...s, subject }));
    const added = shipped("TaskStateObserved");
    added.fields.push({ name: "region", type: "string", default: "unknown" });
    const after: SubjectSchema[] = before.map((s) => ({ ...s, schema: JSON.stringify(added) }));

    const previous = new Serde(registryUrl, before);
    const previousIds = await previous.registerAll();
    const next = new Serde(registryUrl, after);
    const nextIds = await next.registerAll(); // BACKWARD on the subject: the registry checks the change
    expect(nextIds.get("TaskStateObserved")).not.toBe(previousIds.get("TaskStateObserved"));

    const old = sampleObservation("TaskStateObserved");
    const current = {
      ...sampleObservation("TaskStateObserved"),
      eventId: "ev-new",
      region: "eu-west",
    } as unknown as LedgerRecord;
    const [oldBytes, newBytes] = await throughKafka([await previous.encode(old), await next.encode(current)]);

    const reader = new Serde(registryUrl, after);
    expect((await reader.decode(oldBytes as Buffer)).record).toEqual({ ...old, region: "unknown" });
    expect((await reader.decode(newBytes as Buffer)).record).toEqual(current);
    // A reader of the previous catalogue (a service not yet upgraded) skips the field it does not know.
    const { region: _region, ...withoutRegion } = current as unknown as Observation & { region: string };
    expect((await new Serde(registryUrl, before).decode(newBytes as Buffer)).record).toEqual(withoutRegion);
  });
});

describe("records that cannot be read as the catalogue's are refused with a stable code", () => {
  it("a writer schema that does not resolve to the catalogue's (a required field missing) is SERDE_UNRESOLVABLE_SCHEMA", async () => {
    const current = shipped("TaskNotFoundObserved");
    const incompatible: RecordSchema = { ...current, fields: current.fields.filter((f) => f.name !== "serverTaskId") };
    const id = await registerVersion(testSubject("TaskNotFoundObserved"), incompatible);
    const { type: _type, serverTaskId: _id, ...fields } = sampleObservation("TaskNotFoundObserved");
    const serde = new Serde(registryUrl);
    const refused = await serde.decode(framed(id, incompatible, fields)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SerdeError);
    expect(refused).toMatchObject({
      code: "SERDE_UNRESOLVABLE_SCHEMA",
      message: new RegExp(
        `^schema id ${id} \\(a2a.ledger.v1.TaskNotFoundObserved\\) cannot be read as this catalogue's TaskNotFoundObserved`,
      ),
    });
    // The refusal is not remembered as a reader, and the Serde goes on reading good records.
    await expect(serde.decode(framed(id, incompatible, fields))).rejects.toMatchObject({
      code: "SERDE_UNRESOLVABLE_SCHEMA",
    });
    const good = sampleObservation("TaskNotFoundObserved");
    expect((await serde.decode(await serde.encode(good))).record).toEqual(good);
  });

  it("a record of the ledger's namespace whose type is not in the catalogue is SERDE_NOT_IN_CATALOGUE", async () => {
    const stranger: RecordSchema = {
      type: "record",
      name: "TaskTeleported",
      namespace: "a2a.ledger.v1",
      fields: [{ name: "eventId", type: "string" }],
    };
    const id = await registerVersion(testSubject("TaskTeleported"), stranger);
    const refused = await new Serde(registryUrl)
      .decode(framed(id, stranger, { eventId: "e" }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WireFormatError);
    expect(refused).toMatchObject({
      code: "SERDE_NOT_IN_CATALOGUE",
      message: `schema id ${id} is a2a.ledger.v1.TaskTeleported, not an event of this catalogue`,
    });
  });

  it("an unknown writer schema id is SERDE_UNKNOWN_SCHEMA_ID, each time it is met", async () => {
    const serde = new Serde(registryUrl);
    const bytes = Buffer.from([0, 0x7f, 0xff, 0xff, 0xf1, 0x02, 0x61]);
    const both = await Promise.all([
      serde.decode(bytes).catch((e: unknown) => e),
      serde.decode(bytes).catch((e: unknown) => e),
    ]);
    for (const refused of both) expect(refused).toMatchObject({ name: "SerdeError", code: "SERDE_UNKNOWN_SCHEMA_ID" });
  });
});
