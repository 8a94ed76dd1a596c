import { describe, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { givenV1 as given } from "../../test/given.ts";

describe("R10 last observed state over all observers", () => {
  it("corrects an orchestrator that restarted with a stale view: the proxy's newer state wins", () => {
    const e = events();
    given([
      e.card("w1", agentCard({ org: "Acme" }), { at: 1 }),
      e.dispatch("t", "w1", { at: 10 }),
      e.state("t", "w1", "s1", "working", { at: 11, observer: "orchestrator" }),
      e.state("t", "w1", "s1", "input-required", { at: 20, observer: "proxy", via: "stream" }),
      // the orchestrator restarts and reports what it had persisted, seen at t=11
      e.state("t", "w1", "s1", "working", { at: 11, observer: "orchestrator-restarted" }),
    ])
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate", lastState: "TASK_STATE_INPUT_REQUIRED", lastObserver: "proxy" },
        { type: "ReconciliationBlocked" },
      ]);
  });

  it("takes a later observation from any observer as the last state", () => {
    const e = events();
    given([
      e.dispatch("t", "w1", { at: 10 }),
      e.state("t", "w1", "s1", "input-required", { at: 20, observer: "proxy" }),
      e.state("t", "w1", "s1", "working", { at: 30, observer: "worker" }),
    ])
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate", lastState: "TASK_STATE_WORKING", lastObserver: "worker" },
        { type: "ReconciliationBlocked" },
      ]);
  });
});
