import avro from "avsc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, endpointsFromEnv, type Admin } from "@a2a-ledger/kafka";
import { createTestTopic, readMessages } from "@a2a-ledger/kafka/testing";
import { avroSchemas } from "./generated/avro-schemas.ts";
import { type LedgerRecord, Serde, SerdeError, WireFormatError } from "./serde.ts";
import { allSamples } from "./testing/samples.ts";
import { avroType, type SchemaGroup } from "./validate.ts";

const { brokers, registryUrl } = endpointsFromEnv();
const kafka = createKafka({ brokers, clientId: "serde-test" });
const serde = new Serde(registryUrl);
let admin: Admin;
let topic: string;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  topic = await createTestTopic(admin, "serde");
  await serde.registerAll();
});
afterAll(async () => {
  await admin.deleteTopics({ topics: [topic] });
  await admin.disconnect();
});

/** avsc's random generator gives a valid value of any schema: arbitrary records, not only samples. */
function randomRecords(): LedgerRecord[] {
  return (Object.keys(avroSchemas) as SchemaGroup[]).flatMap((group) =>
    Object.keys(avroSchemas[group]).map((typeName) => {
      const value = avroType(group, typeName as never).random() as unknown as Record<string, unknown>;
      return JSON.parse(JSON.stringify({ type: typeName, ...value })) as LedgerRecord;
    }),
  );
}

describe("Avro serde on the real registry and broker", () => {
  it("round-trips every event type: produce Avro, consume, decode equals the input", async () => {
    const records = [...allSamples(), ...randomRecords()];
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    await producer.send({
      topic,
      acks: -1,
      messages: await Promise.all(records.map(async (r) => ({ key: "k", value: await serde.encode(r) }))),
    });
    await producer.disconnect();

    const messages = await readMessages(kafka, topic, records.length);
    const fresh = new Serde(registryUrl); // no cached ids: every schema comes from the registry
    const decoded = await Promise.all(messages.map((m) => fresh.decode(m.value as Buffer)));
    expect(decoded.map((d) => d.record)).toEqual(records);
    expect(new Set(decoded.map((d) => d.typeName)).size).toBe(
      Object.values(avroSchemas).reduce((n, g) => n + Object.keys(g).length, 0),
    );
  });

  it("encodeValidated writes the bytes encode writes, and they decode to the input through the registry", async () => {
    const records = [...allSamples(), ...randomRecords(), ...randomRecords()];
    const fast = await Promise.all(records.map((r) => new Serde(registryUrl).encodeValidated(r)));
    const safe = await Promise.all(records.map((r) => serde.encode(r)));
    expect(fast).toEqual(safe);

    const validatedTopic = await createTestTopic(admin, "serde-validated");
    try {
      const producer = kafka.producer({ idempotent: true });
      await producer.connect();
      await producer.send({ topic: validatedTopic, acks: -1, messages: fast.map((value) => ({ key: "k", value })) });
      await producer.disconnect();
      const messages = await readMessages(kafka, validatedTopic, records.length);
      const fresh = new Serde(registryUrl);
      const decoded = await Promise.all(messages.map((m) => fresh.decode(m.value as Buffer)));
      expect(decoded.map((d) => d.record)).toEqual(records);
    } finally {
      await admin.deleteTopics({ topics: [validatedTopic] });
    }
  });

  it("encodeValidated frames records larger than its scratch buffer", async () => {
    const big = { ...allSamples()[0], card: "x".repeat(200_000) } as LedgerRecord;
    const framed = await serde.encodeValidated(big);
    expect(framed).toEqual(await serde.encode(big));
    expect((await serde.encodeValidated(allSamples()[1]!)).length).toBeLessThan(1_000);
    expect((await serde.decode(framed)).record).toEqual(big);
  });

  it("encodeValidated still refuses a value of the wrong type", async () => {
    const bad = { ...allSamples()[0], occurredAt: "yesterday" } as unknown as LedgerRecord;
    await expect(serde.encodeValidated(bad)).rejects.toThrow();
  });

  it("registers each subject with BACKWARD compatibility, idempotently with stable ids", async () => {
    const first = await serde.registerAll();
    const second = await new Serde(registryUrl).registerAll();
    expect(second).toEqual(first);
    const response = await fetch(`${registryUrl}/config/a2a.ledger.v1.TaskDispatched`);
    expect(await response.json()).toMatchObject({ compatibilityLevel: "BACKWARD" });
  });

  it("decodes the catalogue's own schema ids directly to the same records, and refuses their truncated bytes", async () => {
    const fresh = new Serde(registryUrl);
    const records = allSamples();
    const bytes = await Promise.all(records.map((r) => serde.encode(r)));
    const viaRegistry = await Promise.all(bytes.map((b) => fresh.decode(b)));
    const direct = await Promise.all(bytes.map((b) => fresh.decode(b)));
    expect(direct).toEqual(viaRegistry);
    expect(direct.map((d) => d.record)).toEqual(records);
    const truncated = (bytes[0] as Buffer).subarray(0, (bytes[0] as Buffer).length - 3);
    await expect(fresh.decode(truncated)).rejects.toMatchObject({ code: "SERDE_BAD_BYTES", message: /truncated/ });
    await expect(fresh.decode(Buffer.concat([bytes[0] as Buffer, Buffer.from([1])]))).rejects.toMatchObject({
      code: "SERDE_BAD_BYTES",
      message: /1 bytes after the record/,
    });
  });

  it("refuses bytes that are not in the Confluent wire format", async () => {
    await expect(serde.decode(Buffer.from('{"type":"TaskDispatched"}'))).rejects.toBeInstanceOf(WireFormatError);
    await expect(serde.decode(Buffer.alloc(3))).rejects.toMatchObject({
      name: "WireFormatError",
      code: "SERDE_NOT_WIRE_FORMAT",
    });
  });

  it("refuses a schema id the registry does not know", async () => {
    const framed = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0]), Buffer.from([2, 0x61])]);
    const refused = await serde.decode(framed).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SerdeError);
    expect(refused).not.toBeInstanceOf(WireFormatError);
    expect(refused).toMatchObject({
      code: "SERDE_UNKNOWN_SCHEMA_ID",
      message: "schema id 2147483632 is not in the registry",
    });
  });

  it("refuses a record that does not match its schema", async () => {
    const bad = { ...allSamples()[0], occurredAt: "yesterday", etag: 7 } as unknown as LedgerRecord;
    await expect(serde.encode(bad)).rejects.toMatchObject({
      code: "SERDE_INVALID_RECORD",
      message: /AgentCardObserved record does not fit its schema at occurredAt, etag/,
    });
    await expect(
      serde.encode({ ...allSamples()[0], type: "NoSuchEvent" } as unknown as LedgerRecord),
    ).rejects.toMatchObject({ code: "SERDE_UNKNOWN_EVENT_TYPE" });
  });

  it("refuses a schema id of a record that is not an event of the catalogue", async () => {
    const foreign = JSON.stringify({
      type: "record",
      name: "Foreign",
      namespace: "elsewhere",
      fields: [{ name: "x", type: "int" }],
    });
    const response = await fetch(`${registryUrl}/subjects/test.foreign.Foreign/versions`, {
      method: "POST",
      headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
      body: JSON.stringify({ schema: foreign }),
    });
    const { id } = (await response.json()) as { id: number };
    const body = avro.Type.forSchema(JSON.parse(foreign) as avro.Schema).toBuffer({ x: 1 });
    const header = Buffer.alloc(5);
    header.writeInt32BE(id, 1);
    await expect(serde.decode(Buffer.concat([header, body]))).rejects.toMatchObject({
      name: "WireFormatError",
      code: "SERDE_NOT_IN_CATALOGUE",
      message: /elsewhere.Foreign, not an event of this catalogue/,
    });
  });
});
