import avro from "avsc";
import { describe, expect, it } from "vitest";
import { avroSchemas } from "./generated/avro-schemas.ts";
import { allSamples, sampleObservation } from "./testing/samples.ts";
import { avroType, isValidRecord, validateRecord, type SchemaGroup } from "./validate.ts";

const strip = <T extends { type: string }>(r: T) => {
  const { type: _type, ...rest } = r;
  return rest;
};

describe("validateRecord", () => {
  it("accepts a well-formed observation", () => {
    expect(validateRecord("observations", "TaskStateObserved", strip(sampleObservation("TaskStateObserved")))).toEqual(
      [],
    );
  });

  it("names the path and the expectation of every wrong field", () => {
    const record = {
      ...strip(sampleObservation("ArtifactEmitted")),
      occurredAt: 1.5,
      parts: [{ kind: "TEXT", mediaType: 3, sizeBytes: 1 }],
    };
    expect(validateRecord("observations", "ArtifactEmitted", record)).toEqual([
      { path: "occurredAt", message: "expected an integer (long), got number 1.5" },
      { path: "parts[0].mediaType", message: "expected null or string, got number 3" },
    ]);
  });

  it("reports v0.3 spellings as invalid: normalization happens before validation", () => {
    const issues = validateRecord("observations", "TaskStateObserved", {
      ...strip(sampleObservation("TaskStateObserved")),
      state: "working",
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe("state");
  });

  it("reports unknown fields, nested ones too", () => {
    const record = { ...strip(sampleObservation("ArtifactEmitted")), extra: true };
    (record.parts[0] as unknown as Record<string, unknown>).hidden = 1;
    expect(validateRecord("observations", "ArtifactEmitted", record)).toEqual([
      { path: "parts[0].hidden", message: "unknown field" },
      { path: "extra", message: "unknown field" },
    ]);
  });

  it("reports a missing required field", () => {
    const { eventId: _eventId, ...record } = strip(sampleObservation("TaskDispatched"));
    expect(validateRecord("observations", "TaskDispatched", record)).toEqual([
      { path: "eventId", message: "expected string, got missing" },
    ]);
  });
});

describe("isValidRecord, the one-check fast path of validateRecord", () => {
  const groupOf = (type: string): SchemaGroup =>
    (Object.keys(avroSchemas) as SchemaGroup[]).find((g) => Object.hasOwn(avroSchemas[g], type))!;

  it("accepts every sample, as validateRecord does", () => {
    for (const sample of allSamples()) {
      const { type, ...fields } = sample;
      expect(isValidRecord(groupOf(type), type as never, fields), type).toBe(true);
      expect(validateRecord(groupOf(type), type as never, fields), type).toEqual([]);
    }
  });

  it("rejects exactly what validateRecord reports: wrong types, missing and unknown fields at any depth", () => {
    const artifact = strip(sampleObservation("ArtifactEmitted"));
    const probe = strip(sampleObservation("ProbeCompleted"));
    const broken: [string, Record<string, unknown>][] = [
      ["ArtifactEmitted", { ...artifact, occurredAt: 1.5 }],
      ["ArtifactEmitted", { ...artifact, extra: true }],
      ["ArtifactEmitted", { ...artifact, extra: undefined }],
      ["ArtifactEmitted", { ...artifact, parts: [{ ...artifact.parts[0], hidden: 1 }] }],
      ["ArtifactEmitted", { ...artifact, parts: [{ ...artifact.parts[0], mediaType: 3 }] }],
      ["ProbeCompleted", { ...probe, parkedCanaries: [{ serverTaskId: "c", state: "TASK_STATE_WORKING", note: "x" }] }],
      ["ProbeCompleted", { ...probe, durable: "yes" }],
      ["TaskDispatched", { ...strip(sampleObservation("TaskDispatched")), eventId: undefined }],
    ];
    for (const [type, record] of broken) {
      expect(isValidRecord("observations", type as never, record), JSON.stringify(record)).toBe(false);
      expect(validateRecord("observations", type as never, record).length, JSON.stringify(record)).toBeGreaterThan(0);
    }
  });

  it("relies on unwrapped unions holding at most one record, array or map branch, which every schema keeps", () => {
    const unions: string[] = [];
    const visit = (type: avro.Type, path: string, seen: Set<avro.Type>): void => {
      if (seen.has(type)) return;
      seen.add(type);
      if (type instanceof avro.types.RecordType) for (const f of type.fields) visit(f.type, `${path}.${f.name}`, seen);
      else if (type instanceof avro.types.ArrayType) visit(type.itemsType, `${path}[]`, seen);
      else if (type instanceof avro.types.MapType) visit(type.valuesType, `${path}{}`, seen);
      else if (type instanceof avro.types.UnwrappedUnionType) {
        if (
          type.types.filter(
            (t) =>
              t instanceof avro.types.RecordType ||
              t instanceof avro.types.ArrayType ||
              t instanceof avro.types.MapType,
          ).length > 1
        )
          unions.push(path);
        for (const t of type.types) visit(t, path, seen);
      }
    };
    for (const group of Object.keys(avroSchemas) as SchemaGroup[]) {
      for (const name of Object.keys(avroSchemas[group]))
        visit(avroType(group, name as never), `${group}/${name}`, new Set());
    }
    expect(unions).toEqual([]);
  });
});
