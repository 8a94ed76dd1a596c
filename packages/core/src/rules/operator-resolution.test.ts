/**
 * The resolve rule (operator-resolution.ts, new in default/4): an operator's resolution of a blocked
 * correlation — fail it, re-dispatch it to a named worker, or restart it from scratch — carried out by the
 * rules, or the correlation kept blocked saying why. The `default/4` block holds it as specs that fail on
 * default/3 (`fixedInDefault4`, test/given.ts).
 */
import { describe, expect, it } from "vitest";
import { all, events, probed } from "../../test/builders.ts";
import { fixedInDefault4, given } from "../../test/given.ts";
import { replay } from "../replay.ts";
import { defaultRuleSetV4 } from "./rule-sets.ts";

describe("default/4", () => {
  describe("an operator resolves a blocked correlation, and the rules carry it out", () => {
    /** t lost on w1 in input-required; w2 verifies only WORKING and COMPLETED, so nobody may resume it: blocked. */
    function blocked(e: ReturnType<typeof events>) {
      return [
        ...probed(e, {
          w1: { states: all },
          w2: { states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"] },
        }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
      ];
    }

    it("blocks the loss first (the queue the operator reads)", () => {
      const e = events();
      const history = blocked(e);
      expect(replay(history, defaultRuleSetV4).map((d) => d.type)).toContain("ReconciliationBlocked");
    });

    it("fails the lost task, naming who resolved it and why", () => {
      const e = events();
      fixedInDefault4(blocked(e))
        .when(
          e.resolve("t", "FAIL", { at: 200, reason: "the customer withdrew", principal: "operator:alice#0a1b2c3d" }),
        )
        .then([
          {
            type: "TaskFailed",
            workerId: "w1",
            serverTaskId: "a1",
            lastState: "TASK_STATE_INPUT_REQUIRED",
            reason: "resolved by operator:alice#0a1b2c3d: the customer withdrew",
          },
        ]);
    });

    it("re-dispatches to the named worker, resuming the interrupted state, whatever the table's verdict", () => {
      const e = events();
      const spec = fixedInDefault4(blocked(e)).when(e.resolve("t", "REDISPATCH", { at: 200, worker: "w2" }));
      const [command] = spec.then([
        {
          type: "RedispatchCommanded",
          workerId: "w1",
          targetWorkerId: "w2",
          fromServerTaskId: "a1",
          attempt: 2,
          resumeState: "TASK_STATE_INPUT_REQUIRED",
        },
      ]);
      // The verdicts it overrode stay on the command: w2 does not verify input-required.
      expect(command).toMatchObject({
        candidates: expect.arrayContaining([{ workerId: "w2", eligible: false, reason: expect.any(String) }]),
      });
    });

    it("restarts from scratch on the first worker that verifies COMPLETED", () => {
      const e = events();
      fixedInDefault4(blocked(e))
        .when(e.resolve("t", "RESTART", { at: 200 }))
        .then([{ type: "RedispatchCommanded", targetWorkerId: "w2", resumeState: null, attempt: 2 }]);
    });

    it("keeps the correlation blocked, saying why, when the resolution cannot be carried out", () => {
      const e = events();
      given(blocked(e), { ruleSet: defaultRuleSetV4 })
        .when(e.resolve("t", "REDISPATCH", { at: 200, worker: "w9" }))
        .then([
          {
            type: "ReconciliationBlocked",
            reason: "operator:alice asked to re-dispatch to w9, which cannot be carried out: no card of w9 is known",
          },
        ]);
      const f = events();
      const onlyW1 = [
        ...probed(f, { w1: { states: all } }),
        f.dispatch("t", "w1", { at: 100 }),
        f.state("t", "w1", "a1", "input-required", { at: 110 }),
        f.notFound("t", "w1", "a1", { at: 120 }),
      ];
      given(onlyW1, { ruleSet: defaultRuleSetV4 })
        .when(f.resolve("t", "RESTART", { at: 200 }))
        .then([{ type: "ReconciliationBlocked", reason: expect.stringContaining("asked to restart from scratch") }]);
    });

    it("decides nothing for a correlation that awaits no way out, nor for a second resolution once one was carried out", () => {
      const e = events();
      const running = [...probed(e, { w1: { states: all } }), e.dispatch("t", "w1", { at: 100 })];
      given(running, { ruleSet: defaultRuleSetV4 })
        .when(e.resolve("t", "FAIL", { at: 200 }))
        .thenNothing();
      const f = events();
      const failed = [...blocked(f), f.resolve("t", "FAIL", { at: 200 })];
      given(failed, { ruleSet: defaultRuleSetV4 })
        .when(f.resolve("t", "RESTART", { at: 210 }))
        .thenNothing();
    });

    it("follows the re-dispatch it commanded like any other: the new attempt's task completes and reconciles", () => {
      const e = events();
      const history = [
        ...blocked(e),
        e.resolve("t", "RESTART", { at: 200 }),
        e.dispatch("t", "w2", { at: 210, attempt: 2 }),
      ];
      given(history, { ruleSet: defaultRuleSetV4 })
        .when(e.state("t", "w2", "b1", "completed", { at: 220 }))
        .then([{ type: "TaskReconciled" }]);
    });
  });
});
