import { describe, expect, it } from "vitest";
import { sampleObservation } from "./testing/samples.ts";
import { validateRecord } from "./validate.ts";

const strip = <T extends { type: string }>(r: T) => {
  const { type: _type, ...rest } = r;
  return rest;
};

describe("validateRecord", () => {
  it("accepts a well-formed observation", () => {
    expect(validateRecord("observations", "TaskStateObserved", strip(sampleObservation("TaskStateObserved")))).toEqual([]);
  });

  it("names the path and the expectation of every wrong field", () => {
    const record = { ...strip(sampleObservation("ArtifactEmitted")), occurredAt: 1.5, parts: [{ kind: "TEXT", mediaType: 3, sizeBytes: 1 }] };
    expect(validateRecord("observations", "ArtifactEmitted", record)).toEqual([
      { path: "occurredAt", message: "expected an integer (long), got number 1.5" },
      { path: "parts[0].mediaType", message: "expected null or string, got number 3" },
    ]);
  });

  it("reports v0.3 spellings as invalid: normalization happens before validation", () => {
    const issues = validateRecord("observations", "TaskStateObserved", { ...strip(sampleObservation("TaskStateObserved")), state: "working" });
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
    expect(validateRecord("observations", "TaskDispatched", record)).toEqual([{ path: "eventId", message: "expected string, got missing" }]);
  });
});
