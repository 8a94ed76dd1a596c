/**
 * Decisions recorded before the trust policy was data (no `policyVersion` in their writer schema)
 * decode, with the serde's reader schema, as naming no version (the field's default, null).
 */
import { randomUUID } from "node:crypto";
import avro from "avsc";
import { describe, expect, it } from "vitest";
import { endpointsFromEnv } from "@a2a-ledger/kafka";
import { avroSchemas } from "./generated/avro-schemas.ts";
import { Serde } from "./serde.ts";
import { sampleDecision } from "./testing/samples.ts";

const { registryUrl } = endpointsFromEnv();

interface RecordSchema {
  name: string;
  fields: { name: string }[];
}

describe("a decision written before policyVersion existed", () => {
  it("decodes with policyVersion null, every other field as written", async () => {
    // given TaskFailed's schema as it was before the field, registered (a test-only subject)
    const before = structuredClone(avroSchemas.decisions.TaskFailed) as unknown as RecordSchema;
    before.fields = before.fields.filter((f) => f.name !== "policyVersion");
    expect(before.fields.length).toBe((avroSchemas.decisions.TaskFailed as unknown as RecordSchema).fields.length - 1);
    const subject = `test.policy-version.${randomUUID().slice(0, 8)}.TaskFailed`;
    const response = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
      method: "POST",
      headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
      body: JSON.stringify({ schema: JSON.stringify(before) }),
    });
    const { id } = (await response.json()) as { id: number };
    // when a record written with it is decoded by the current catalogue
    const { type: _type, policyVersion: _v, ...old } = sampleDecision("TaskFailed");
    const header = Buffer.alloc(5);
    header.writeInt32BE(id, 1);
    const bytes = Buffer.concat([header, avro.Type.forSchema(before as unknown as avro.Schema).toBuffer(old)]);
    const { record } = await new Serde(registryUrl).decode(bytes);
    // then it names no policy version
    expect(record).toEqual({ type: "TaskFailed", ...old, policyVersion: null });
  });
});
