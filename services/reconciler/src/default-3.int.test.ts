/**
 * The reconciler runs default/3 when A2A_LEDGER_RULES names it: on Kafka it decides what a replay of
 * the same log with default/3 decides — the DESIGN §1 story (a task lost in input-required, so R9 for
 * tasks revokes w-acme's interrupted states) and a conformance probe asking for a task id nobody saw
 * (CLIENT_UNKNOWN_TASK, the enum symbol default/3 added, through the registry's schema).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSetV3, replay } from "@a2a-ledger/core";
import {
  byCorrelation,
  seededPolicy,
  fixture,
  kafkaSuite,
  designSection1Story,
  parseLines,
  produce,
  readDecisions,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { story } = designSection1Story();
const last = Math.max(...story.map((o) => o.occurredAt));
const probe = parseLines([
  JSON.stringify({
    type: "TaskNotFoundObserved",
    eventId: "tck-ev-1",
    correlationId: "task-42",
    occurredAt: last + 1,
    observer: "tck",
    workerId: "w-acme",
    serverTaskId: "tck-made-up-id",
    method: "GetTask",
    errorCode: "-32001",
  }),
]);
const [capabilityPhase, taskPhase] = [
  story.filter((o) => o.correlationId.startsWith("probe-")),
  [...story.filter((o) => !o.correlationId.startsWith("probe-")), ...probe],
];

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

describe("the reconciler with A2A_LEDGER_RULES=default/3", () => {
  it("decides on Kafka exactly what the replay with default/3 decides", async () => {
    const f = await fixture(admin, "default3");
    fixtures.push(f);
    const reconciler = await startInProcess(f, { A2A_LEDGER_RULES: "default/3" });
    running.push(reconciler);
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, taskPhase);
    await waitForGroupAtEnd(admin, f);

    const expected = replay([...story, ...probe], defaultRuleSetV3, { policy: seededPolicy() });
    expect(
      expected
        .filter((d) => d.correlationId === "task-42")
        .map((d) => (d.type === "ContractViolation" ? d.kind : d.type)),
    ).toEqual([
      "CapabilitiesVerified",
      "TaskIndeterminate",
      "RedispatchCommanded",
      "OUTPUT_MODE_NOT_ADVERTISED",
      "DIVERGENT_ARTIFACTS",
      "TaskReconciled",
      "CLIENT_UNKNOWN_TASK",
    ]);
    const decisions = await readDecisions(f.topics.decisions);
    expect(new Set(decisions.map((d) => d.rulesVersion))).toEqual(new Set(["default/3"]));
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
  }, 120_000);
});
