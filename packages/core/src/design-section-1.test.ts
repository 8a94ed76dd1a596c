import { describe, expect, it } from "vitest";
import { designSection1 } from "../test/design-section-1.ts";
import { givenEach as given } from "../test/given.ts";
import { given as givenOne } from "../test/given.ts";
import { restartFromScratchRuleSet } from "./rules/rule-sets.ts";
import { restartFromScratchRuleSetV1 } from "./v1/rules/rule-sets.ts";

describe("DESIGN §1: a lost input-required task on an in-memory worker", () => {
  it("requests a probe of every worker on first contact and records what each probe verified", () => {
    const s = designSection1();
    given([])
      .when(...s.cards, ...s.probes)
      .then([
        { type: "ProbeRequested", workerId: "w-acme", reason: "first-contact" },
        { type: "ProbeRequested", workerId: "w-beta", reason: "first-contact" },
        { type: "ProbeRequested", workerId: "w-gamma", reason: "first-contact" },
        {
          type: "CapabilitiesVerified",
          workerId: "w-acme",
          states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
        },
        {
          type: "CapabilitiesVerified",
          workerId: "w-beta",
          states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
        },
        { type: "CapabilitiesVerified", workerId: "w-gamma", durable: true },
      ]);
  });

  it("runs the first attempt without decisions (v0.3 input-required is advertised and verified)", () => {
    const s = designSection1();
    given([...s.cards, ...s.probes])
      .when(...s.firstAttempt)
      .thenNothing();
  });

  it("makes the lost task indeterminate, not failed, and re-dispatches it to the worker that verifies input-required", () => {
    const s = designSection1();
    const [indeterminate, redispatch] = given([...s.cards, ...s.probes, ...s.firstAttempt])
      .when(s.lost)
      .then([
        {
          type: "TaskIndeterminate",
          correlationId: "task-42",
          workerId: "w-acme",
          serverTaskId: "acme-t1",
          lastState: "TASK_STATE_INPUT_REQUIRED",
          lastObserver: "proxy",
        },
        {
          type: "RedispatchCommanded",
          correlationId: "task-42",
          targetWorkerId: "w-gamma",
          fromServerTaskId: "acme-t1",
          skillId: "summarize",
          attempt: 2,
          resumeState: "TASK_STATE_INPUT_REQUIRED",
          acceptedOutputModes: ["text/plain", "text/markdown"],
        },
      ]);
    expect(redispatch?.type === "RedispatchCommanded" && redispatch.candidates).toEqual([
      { workerId: "w-acme", eligible: false, reason: expect.stringContaining("lost the task") },
      { workerId: "w-beta", eligible: false, reason: expect.stringContaining("lack TASK_STATE_INPUT_REQUIRED") },
      { workerId: "w-gamma", eligible: true, reason: expect.stringContaining("verifies TASK_STATE_INPUT_REQUIRED") },
    ]);
    expect(indeterminate?.decidedAt).toBe(s.lost.occurredAt);
  });

  it("blocks reconciliation when no worker verifies the interrupted state", () => {
    const s = designSection1({ withGamma: false });
    given([...s.cards, ...s.probes, ...s.firstAttempt])
      .when(s.lost)
      .then([
        { type: "TaskIndeterminate", lastState: "TASK_STATE_INPUT_REQUIRED" },
        {
          type: "ReconciliationBlocked",
          lastState: "TASK_STATE_INPUT_REQUIRED",
          reason: expect.stringContaining("no worker verifies TASK_STATE_INPUT_REQUIRED"),
          candidates: [
            { workerId: "w-acme", eligible: false },
            { workerId: "w-beta", eligible: false },
          ],
        },
      ]);
  });

  it.each([restartFromScratchRuleSetV1, restartFromScratchRuleSet])(
    "with $rulesVersion, restarts on a worker that verifies completion instead of blocking",
    (ruleSet) => {
      const s = designSection1({ withGamma: false });
      givenOne([...s.cards, ...s.probes, ...s.firstAttempt], { ruleSet })
        .when(s.lost)
        .then([
          { type: "TaskIndeterminate", rulesVersion: ruleSet.rulesVersion },
          { type: "RedispatchCommanded", targetWorkerId: "w-beta", resumeState: null, attempt: 2 },
        ]);
    },
  );

  it("second attempt: a new server task id under the same correlation, checked against the card in force at emission, divergent from attempt 1, then reconciled", () => {
    const s = designSection1();
    const decisions = given([...s.cards, ...s.probes, ...s.firstAttempt, s.lost])
      .when(...s.secondAttempt)
      .then([
        {
          type: "ContractViolation",
          kind: "OUTPUT_MODE_NOT_ADVERTISED",
          workerId: "w-gamma",
          serverTaskId: "gamma-t9",
          observed: "text/markdown",
          allowed: ["text/plain"],
        },
        {
          type: "ContractViolation",
          kind: "DIVERGENT_ARTIFACTS",
          serverTaskId: "gamma-t9",
          observed: "text/markdown",
          allowed: ["text/plain"],
        },
        { type: "TaskReconciled", serverTaskId: "gamma-t9", state: "TASK_STATE_COMPLETED", attempt: 2 },
      ]);
    expect(decisions[1]?.causeEventIds).toHaveLength(2);
  });
});
