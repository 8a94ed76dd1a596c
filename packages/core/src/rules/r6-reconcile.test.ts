import { describe, it } from "vitest";
import type { TaskState } from "@a2a-ledger/schemas";
import { agentCard, events } from "../../test/builders.ts";
import { givenEach as given, givenV1 } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";

const all: TaskState[] = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
];

function mesh(
  e: ReturnType<typeof events>,
  workers: { id: string; modes: string[]; verified?: boolean; states?: TaskState[] }[],
) {
  return workers.flatMap((w) => {
    const card = agentCard({
      org: w.id,
      skills: [{ id: "summarize", outputModes: ["text/plain", "text/markdown", "application/pdf"] }],
    });
    return [
      e.card(w.id, card, { at: 1 }),
      ...(w.verified === false
        ? []
        : [e.probe(w.id, cardHash(card), { at: 2, states: w.states ?? all, modes: w.modes, durable: true })]),
    ];
  });
}

describe("R6 reconciliation", () => {
  it("picks the first eligible worker by workerId, whatever the log order", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-zeta", modes: ["text/plain"] },
        { id: "w-lost", modes: ["text/plain"] },
        { id: "w-alpha", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10 }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate" },
        {
          type: "RedispatchCommanded",
          targetWorkerId: "w-alpha",
          candidates: [
            { workerId: "w-alpha", eligible: true },
            { workerId: "w-lost", eligible: false },
            { workerId: "w-zeta", eligible: true },
          ],
        },
      ]);
  });

  it("requires verified output modes within the dispatch's accepted modes", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["application/pdf"] },
        { id: "w-b", modes: ["text/markdown"] },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10, accepted: ["text/*"] }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate" },
        { type: "RedispatchCommanded", targetWorkerId: "w-b", acceptedOutputModes: ["text/*"] },
      ]);
  });

  it("never picks a worker whose card is not verified yet (negotiation uses V, not A)", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["text/plain"], verified: false },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10 }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate" },
        {
          type: "ReconciliationBlocked",
          candidates: [
            { workerId: "w-a", eligible: false, reason: expectReason("not verified") },
            { workerId: "w-lost", eligible: false },
          ],
        },
      ]);
  });

  it("restarts a lost working task from scratch on a worker that verifies completion", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["text/plain"], states: ["TASK_STATE_WORKING"] },
        { id: "w-b", modes: ["text/plain"] },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10 }),
      e.state("t", "w-lost", "s1", "working", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate", lastState: "TASK_STATE_WORKING" },
        { type: "RedispatchCommanded", targetWorkerId: "w-b", resumeState: null, attempt: 2 },
      ]);
  });

  it("numbers the re-dispatch after every earlier attempt of the correlation", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["text/plain"] },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10, attempt: 3 }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([{ type: "TaskIndeterminate" }, { type: "RedispatchCommanded", attempt: 4, correlationId: "t" }]);
  });
});

import { expect } from "vitest";
function expectReason(fragment: string): unknown {
  return expect.stringContaining(fragment);
}
