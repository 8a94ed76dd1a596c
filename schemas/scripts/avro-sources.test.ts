import avro from "avsc";
import { describe, expect, it } from "vitest";
import { readSources, resolveEvents } from "./avro-sources.ts";

const commonObservation = ["eventId", "correlationId", "occurredAt", "observer", "workerId"];
const commonDecision = ["decisionId", "correlationId", "causeEventIds", "rulesVersion", "decidedAt", "workerId"];

describe("the Avro catalogue", () => {
  const events = resolveEvents();

  it("holds every observation and decision of DESIGN §3, the guards' EmissionRefused (§10), the operator's OperatorResolved and retention's CorrelationExpired", () => {
    expect(
      events
        .filter((e) => e.group === "observations")
        .map((e) => e.name)
        .sort(),
    ).toEqual([
      "AgentCardObserved",
      "ArtifactEmitted",
      "EmissionRefused",
      "OperatorResolved",
      "ProbeCompleted",
      "TaskDispatched",
      "TaskNotFoundObserved",
      "TaskStateObserved",
    ]);
    expect(
      events
        .filter((e) => e.group === "decisions")
        .map((e) => e.name)
        .sort(),
    ).toEqual([
      "CapabilitiesVerified",
      "CardChanged",
      "ContractViolation",
      "CorrelationExpired",
      "ProbeRequested",
      "ReconciliationBlocked",
      "RedispatchCommanded",
      "TaskFailed",
      "TaskIndeterminate",
      "TaskReconciled",
    ]);
  });

  it("resolves each event into a self-contained schema that avsc accepts", () => {
    for (const event of events)
      expect(() => avro.Type.forSchema(event.schema as avro.Schema), event.name).not.toThrow();
  });

  it("starts every observation and decision with the common fields", () => {
    for (const event of events) {
      const fields = (event.schema as { fields: { name: string }[] }).fields.map((f) => f.name);
      if (event.group === "observations") expect(fields.slice(0, 5), event.name).toEqual(commonObservation);
      if (event.group === "decisions") expect(fields.slice(0, 6), event.name).toEqual(commonDecision);
    }
  });

  it("uses the v1.0 TaskState names as the enum", () => {
    const taskState = readSources().find((s) => s.fullName === "a2a.ledger.v1.TaskState");
    expect(taskState?.schema.symbols).toContain("TASK_STATE_INPUT_REQUIRED");
    expect(taskState?.schema.symbols).not.toContain("input-required");
  });
});
