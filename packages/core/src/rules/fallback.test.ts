/**
 * A blocked task's fallback (fallback.ts, and R6's `fallbackAt` on its block; new in default/4): after the
 * trust policy's wait for the task's skill, the task restarts from scratch. The `default/4` block holds it
 * (default/3, which has no fallback, keeps the block: its first spec shows both), and that the reconciler
 * folding in transactions decides what replay decides.
 */
import type { Decision, Observation, TaskState } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { all, events, probed } from "../../test/builders.ts";
import { CapabilityTable } from "../capabilities.ts";
import { createDecider } from "../decider.ts";
import { applyCapabilityUpdates } from "../fold.ts";
import { PartitionLedger } from "../partition-ledger.ts";
import { replayLog } from "../replay.ts";
import { defaultRetention } from "../retention.ts";
import type { RuleSet } from "../rule-set.ts";
import { defaultRuleSetV3, defaultRuleSetV4 } from "./rule-sets.ts";

describe("default/4", () => {
  describe("a blocked task falls back to a restart from scratch after the policy's wait for its skill", () => {
    const wait = 60_000;
    const withFallback = { trustedVendors: [], fallbacks: [{ skillId: "summarize", afterMs: wait }] };
    /** t lost on w1 in input-required at 120; w2 completes from scratch but verifies no input-required: blocked. */
    function blocked(
      e: ReturnType<typeof events>,
      w2States: readonly TaskState[] = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
    ) {
      return [
        ...probed(e, { w1: { states: all }, w2: { states: [...w2States] } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
      ];
    }
    /** The decisions of `log` as the reconciler takes them: retention's stream time runs the fallback. */
    const decided = (ruleSet: RuleSet, log: readonly Observation[], policy = withFallback) =>
      replayLog(log, ruleSet, { policy, retention: defaultRetention }).decisions.filter((d) => d.correlationId === "t");
    /** Another correlation's observation on the partition: the stream time moves on to `at`. */
    const later = (e: ReturnType<typeof events>, at: number) => e.dispatch("u", "w2", { at });

    it("names the fallback's moment on the block, and restarts the task from scratch once the stream time passes it", () => {
      const e = events();
      const log = [...blocked(e), later(e, 120 + wait + 1)];
      const v4 = decided(defaultRuleSetV4, log);
      expect(v4.find((d) => d.type === "ReconciliationBlocked")).toMatchObject({ fallbackAt: 120 + wait });
      expect(v4.at(-1)).toMatchObject({
        type: "RedispatchCommanded",
        targetWorkerId: "w2",
        resumeState: null,
        attempt: 2,
        decidedAt: 120 + wait,
        decisionId: expect.stringMatching(/:RedispatchCommanded:fallback$/),
      });
      // default/3 has no fallback: the block stands.
      const v3 = decided(defaultRuleSetV3, log);
      expect(v3.find((d) => d.type === "ReconciliationBlocked")).toMatchObject({ fallbackAt: null });
      expect(v3.map((d) => d.type)).not.toContain("RedispatchCommanded");
    });

    it("waits the whole wait: a stream time at the moment itself restarts nothing yet", () => {
      const e = events();
      expect(decided(defaultRuleSetV4, [...blocked(e), later(e, 120 + wait)]).map((d) => d.type)).not.toContain(
        "RedispatchCommanded",
      );
    });

    it("is off unless the policy names the skill (or *)", () => {
      const e = events();
      const log = [...blocked(e), later(e, 120 + wait + 1)];
      const none = decided(defaultRuleSetV4, log, { trustedVendors: [], fallbacks: [] });
      expect(none.find((d) => d.type === "ReconciliationBlocked")).toMatchObject({ fallbackAt: null });
      expect(none.map((d) => d.type)).not.toContain("RedispatchCommanded");
      const other = decided(defaultRuleSetV4, log, {
        trustedVendors: [],
        fallbacks: [{ skillId: "translate", afterMs: wait }],
      });
      expect(other.map((d) => d.type)).not.toContain("RedispatchCommanded");
      const any = decided(defaultRuleSetV4, log, { trustedVendors: [], fallbacks: [{ skillId: "*", afterMs: wait }] });
      expect(any.at(-1)).toMatchObject({ type: "RedispatchCommanded", targetWorkerId: "w2" });
    });

    it("does nothing once an operator resolved the block first", () => {
      const e = events();
      const log = [...blocked(e), e.resolve("t", "FAIL", { at: 200 }), later(e, 120 + wait + 1)];
      expect(decided(defaultRuleSetV4, log).map((d) => d.type)).toEqual([
        "CapabilitiesVerified",
        "TaskIndeterminate",
        "ReconciliationBlocked",
        "TaskFailed",
      ]);
    });

    it("blocks again, saying so and without another fallback, when no worker completes the task from scratch", () => {
      const e = events();
      const log = [
        ...blocked(e, ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]),
        later(e, 120 + wait + 1),
        later(e, 10 * wait),
      ];
      const v4 = decided(defaultRuleSetV4, log);
      expect(v4.filter((d) => d.type === "ReconciliationBlocked")).toMatchObject([
        { fallbackAt: 120 + wait },
        {
          fallbackAt: null,
          decidedAt: 120 + wait,
          reason: expect.stringContaining("fallback for skill summarize came due"),
        },
      ]);
    });

    it("decides alike when the reconciler folds the log in transactions and restarts from its changelog in between", () => {
      const e = events();
      const log = [...blocked(e), later(e, 1_000), later(e, 120 + wait + 1)];
      const decider = createDecider(defaultRuleSetV4);
      const table = new CapabilityTable();
      const live: Decision[] = [];
      let ledger = new PartitionLedger(decider, { retention: defaultRetention });
      for (const [i, batch] of [log.slice(0, 5), log.slice(5, 8), log.slice(8)].entries()) {
        const outcome = ledger.foldPending({ policy: withFallback, capabilities: table }, batch);
        ledger.commit(outcome);
        applyCapabilityUpdates(table, outcome);
        live.push(...outcome.decisions);
        // A restart after each transaction: the states from their changelog values, at the stream time committed.
        if (i < 2)
          ledger = new PartitionLedger(decider, {
            states: [...ledger.entries()].map(([id, s]) => [id, decider.deserialize(decider.serialize(s))] as const),
            retention: defaultRetention,
            streamTime: ledger.streamTime ?? null,
          });
      }
      const whole = replayLog(log, defaultRuleSetV4, { policy: withFallback, retention: defaultRetention }).decisions;
      expect(live).toEqual(whole);
      expect(live.at(-1)).toMatchObject({ type: "RedispatchCommanded", correlationId: "t", resumeState: null });
    });
  });
});
