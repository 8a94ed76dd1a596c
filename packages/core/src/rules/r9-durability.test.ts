import { describe, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { givenEach as given, givenV1 } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";

const states = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
] as const;

function probed(e: ReturnType<typeof events>, card: Record<string, unknown>) {
  return [
    e.card("w1", card, { at: 1 }),
    e.probe("w1", cardHash(card), {
      at: 2,
      corr: "probe-1",
      states: [...states],
      modes: ["text/plain"],
      canaries: [{ serverTaskId: "canary-1", state: "input-required" }],
    }),
  ];
}

describe("R9 durability", () => {
  it("revokes interrupted states and flags a durable claim when a parked canary answers TaskNotFound", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      states: ["submitted", "working", "input-required", "completed"],
      taskStore: "durable",
    });
    given(probed(e, card))
      .when(e.notFound("probe-1", "w1", "canary-1", { at: 50, observer: "dispatcher" }))
      .then([
        {
          type: "ContractViolation",
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: "canary-1",
          cardHash: cardHash(card),
        },
        {
          type: "CapabilitiesVerified",
          states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
          durable: false,
        },
      ]);
  });

  it("only revokes when the card made no durable claim, and the canary is never a lost task", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      states: ["submitted", "working", "input-required", "completed"],
      taskStore: "ephemeral",
    });
    given(probed(e, card))
      .when(e.notFound("probe-1", "w1", "canary-1", { at: 50 }))
      .then([{ type: "CapabilitiesVerified", durable: false }]);
  });

  it("after revocation, input-required is no longer verified and the worker is no longer a resume target", () => {
    const e = events();
    const card = agentCard({ org: "Acme", states: ["submitted", "working", "input-required", "completed"] });
    const other = agentCard({ org: "Other" });
    given([
      ...probed(e, card),
      e.notFound("probe-1", "w1", "canary-1", { at: 50 }),
      e.card("w0", other, { at: 1 }),
      e.dispatch("t", "w0", { at: 60 }),
      e.state("t", "w0", "s0", "input-required", { at: 61 }),
      e.dispatch("t2", "w1", { at: 65 }),
    ])
      .when(e.state("t2", "w1", "s1", "input-required", { at: 70 }), e.notFound("t", "w0", "s0", { at: 80 }))
      .then([
        {
          type: "ContractViolation",
          kind: "STATE_NOT_VERIFIED",
          workerId: "w1",
          observed: "TASK_STATE_INPUT_REQUIRED",
        },
        { type: "TaskIndeterminate", workerId: "w0" },
        {
          type: "ReconciliationBlocked",
          candidates: [
            { workerId: "w0", eligible: false },
            { workerId: "w1", eligible: false },
          ],
        },
      ]);
  });
});
