/**
 * The reconciled rule (reconciled.ts): TaskReconciled ends a lost correlation when a later attempt, or the
 * lost task itself, reaches a terminal state. The `default/2` block holds what default/2 changed, as a spec
 * that fails on default/1 (`fixedInDefault2`, test/given.ts).
 */
import { describe, expect, it } from "vitest";
import { events, mesh } from "../../test/builders.ts";
import { fixedInDefault2 } from "../../test/given.ts";

describe("default/2", () => {
  describe("indeterminate is not forever", () => {
    it("reconciles a correlation whose lost task is seen again in a terminal state", () => {
      const e = events();
      const story = [
        ...mesh(e, { w3Skill: "translate" }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
      ];
      fixedInDefault2(story)
        .when(e.state("t", "w1", "a1", "completed", { at: 130, observer: "proxy" }))
        .then([
          {
            type: "TaskReconciled",
            workerId: "w1",
            serverTaskId: "a1",
            state: "TASK_STATE_COMPLETED",
            attempt: 1,
            reason: expect.stringContaining("reappeared"),
          },
        ]);
    });
  });
});
