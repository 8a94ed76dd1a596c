/**
 * The decider apart: `decide` reads a state and changes nothing, `evolve` is the only way a state
 * changes, and `step` is their composition — for every shipped rule set, over a generated log.
 */
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { designSection1 } from "../test/design-section-1.ts";
import { generateLog } from "../test/generated-log.ts";
import { givenState } from "../test/given.ts";
import { applyCapabilityUpdates } from "./fold.ts";
import { CapabilityTable } from "./capabilities.ts";
import { createDecider, type LedgerState } from "./decider.ts";
import { parseObservation } from "./ingest-json.ts";
import { defaultRuleSetV3, ruleSets } from "./rules/rule-sets.ts";

function parse(line: string): Observation {
  const result = parseObservation(JSON.parse(line));
  if (!result.ok) throw new Error(`the generator produced an invalid observation: ${JSON.stringify(result.issues)}`);
  return result.observation;
}

const log = generateLog(6_000, { refreshEvery: 1_500, probeRefreshes: true }).map(parse);
const policy = { trustedVendors: ["Vendor0"] };
// Every eventId once: step's "nothing for an eventId already seen" is given/when/then's to check, below.
if (new Set(log.map((o) => o.eventId)).size !== log.length) throw new Error("the generated log repeats an eventId");

describe("step is decide, then evolve by the observation and each decision", () => {
  for (const [version, ruleSet] of Object.entries(ruleSets)) {
    it(version, () => {
      const stepping = createDecider(ruleSet);
      const composing = createDecider(ruleSet);
      const table = new CapabilityTable();
      const stepped = new Map<string, LedgerState>();
      const composed = new Map<string, LedgerState>();
      let decisions = 0;
      for (const observation of log) {
        const ctx = { capabilities: table, policy };
        const id = observation.correlationId;
        const a = stepping.step(ctx, stepped.get(id) ?? stepping.initialState(), observation);
        const before = composed.get(id) ?? composing.initialState();
        const decided = composing.decide(ctx, before, observation);
        expect(decided.decisions).toEqual(a.decisions);
        expect(decided.capabilityUpdates).toEqual(a.capabilityUpdates);
        let state = composing.evolve(before, observation);
        for (const d of decided.decisions) state = composing.evolve(state, d);
        stepped.set(id, a.state);
        composed.set(id, state);
        expect(
          Buffer.from(composing.serialize(state)).equals(Buffer.from(stepping.serialize(a.state))),
          `${version}: states differ after ${observation.eventId}`,
        ).toBe(true);
        applyCapabilityUpdates(table, a);
        decisions += a.decisions.length;
      }
      expect(decisions).toBeGreaterThan(100);
    });
  }
});

describe("given / when / then over decide", () => {
  it("decides a lost input-required task indeterminate and re-dispatches it, without touching the state", () => {
    const s = designSection1();
    givenState([...s.cards, ...s.probes, ...s.firstAttempt])
      .when(s.lost)
      .then([
        {
          type: "TaskIndeterminate",
          correlationId: "task-42",
          workerId: "w-acme",
          serverTaskId: "acme-t1",
          lastState: "TASK_STATE_INPUT_REQUIRED",
        },
        {
          type: "RedispatchCommanded",
          correlationId: "task-42",
          targetWorkerId: "w-gamma",
          attempt: 2,
          resumeState: "TASK_STATE_INPUT_REQUIRED",
        },
      ]);
  });

  it("decides nothing on an observation the correlation already saw", () => {
    const s = designSection1();
    givenState([...s.cards, ...s.probes, ...s.firstAttempt, s.lost])
      .when(s.lost)
      .thenNothing();
  });

  it("under default/3, revokes the loser's verification and blocks when no worker verifies the interrupted state", () => {
    const s = designSection1({ withGamma: false });
    givenState([...s.cards, ...s.probes, ...s.firstAttempt], { ruleSet: defaultRuleSetV3 })
      .when(s.lost)
      .then([
        { type: "CapabilitiesVerified", workerId: "w-acme" },
        { type: "TaskIndeterminate", correlationId: "task-42", workerId: "w-acme" },
        { type: "ReconciliationBlocked", correlationId: "task-42" },
      ]);
  });
});
