/**
 * given(history).when(event).then(decisions): Emmett-style specs over the replay (`given`), and over the
 * decider's `decide` alone (`givenState`: the history evolves the state and the capability table; the
 * `when` observation is decided on them, and `decide` must leave the state as it found it).
 */
import { validateRecord, type Decision, type Observation } from "@a2a-ledger/schemas";
import { expect } from "vitest";
import { createDecider } from "../src/decider.ts";
import { defaultPolicyConfig, type PolicyConfig } from "../src/policy.ts";
import type { PolicySource } from "../src/policy-history.ts";
import { replay, replayLog } from "../src/replay.ts";
import type { RuleSet } from "../src/rule-set.ts";
import { defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4 } from "../src/rules/rule-sets.ts";
import { defaultRuleSetV1 } from "../src/v1/rules/rule-sets.ts";

export interface SpecOptions {
  policy?: PolicySource;
  ruleSet?: RuleSet;
}

/** Every decision must be a valid Avro record of its type. */
export function expectValidDecisions(decisions: readonly Decision[]): void {
  for (const d of decisions) {
    const { type, ...record } = d;
    expect(validateRecord("decisions", type, record), `${d.decisionId} is not a valid ${type}`).toEqual([]);
  }
}

/**
 * Specs that hold for both default/1 and default/2: `then` checks each version (the decisions' rulesVersion aside).
 */
export function givenEach(history: readonly Observation[], options: Omit<SpecOptions, "ruleSet"> = {}) {
  return {
    when(...events: Observation[]) {
      const runs = [defaultRuleSetV1, defaultRuleSetV2].map((ruleSet) =>
        given(history, { ...options, ruleSet }).when(...events),
      );
      const last = runs[runs.length - 1] as ReturnType<ReturnType<typeof given>["when"]>;
      return {
        decisions: last.decisions,
        all: last.all,
        then(expected: readonly Record<string, unknown>[]) {
          for (const run of runs) run.then(expected);
          return last.decisions;
        },
        thenNothing() {
          for (const run of runs) run.thenNothing();
        },
      };
    },
  };
}

/** Specs of default/1 (frozen) only: `given` with that rule set unless one is named. */
export function givenV1(history: readonly Observation[], options: SpecOptions = {}) {
  return given(history, { ...options, ruleSet: options.ruleSet ?? defaultRuleSetV1 });
}

export function given(history: readonly Observation[], options: SpecOptions = {}) {
  return {
    when(...events: Observation[]) {
      const all = replay([...history, ...events], options.ruleSet ?? defaultRuleSetV2, {
        policy: options.policy ?? { trustedVendors: [] },
      });
      expectValidDecisions(all);
      const caused = new Set(events.map((e) => e.eventId));
      const decisions = all.filter((d) => caused.has(d.causeEventIds[0] ?? ""));
      return {
        decisions,
        all,
        /** The decisions the `when` events caused, in order, each matching (a subset of) its expectation. */
        then(expected: readonly Record<string, unknown>[]) {
          expect(decisions).toHaveLength(expected.length);
          expect(decisions).toMatchObject(expected);
          return decisions;
        },
        thenNothing() {
          expect(decisions).toEqual([]);
        },
      };
    },
  };
}

/**
 * A rule-set change as a spec: `next` decides `expected` on the `when` events, and `previous` does not
 * (the spec would fail on `previous`). `before` and `after` hold what each decided, for specs that pin both.
 */
export function changedIn(
  next: RuleSet,
  previous: RuleSet,
  history: readonly Observation[],
  options: Omit<SpecOptions, "ruleSet"> = {},
) {
  return {
    when(...events: Observation[]) {
      const after = given(history, { ...options, ruleSet: next }).when(...events);
      const before = given(history, { ...options, ruleSet: previous }).when(...events);
      const differs = (expected: readonly Record<string, unknown>[]) => {
        let same = true;
        try {
          expect(before.decisions).toHaveLength(expected.length);
          expect(before.decisions).toMatchObject(expected);
        } catch {
          same = false;
        }
        expect(same, `${previous.rulesVersion} already decides this: ${JSON.stringify(before.decisions)}`).toBe(false);
      };
      return {
        before: before.decisions,
        after: after.decisions,
        then(expected: readonly Record<string, unknown>[]) {
          differs(expected);
          return after.then(expected);
        },
        thenNothing() {
          differs([]);
          after.thenNothing();
        },
      };
    },
  };
}

/** A default/2 fix as a spec: default/2 decides `expected`, default/1 does not (`v1`, `v2`: what each decided). */
export function fixedInDefault2(history: readonly Observation[], options: Omit<SpecOptions, "ruleSet"> = {}) {
  return {
    when(...events: Observation[]) {
      const spec = changedIn(defaultRuleSetV2, defaultRuleSetV1, history, options).when(...events);
      return { ...spec, v1: spec.before, v2: spec.after };
    },
  };
}

/** A default/3 change as a spec: default/3 decides `expected`, default/2 does not (`v2`, `v3`: what each decided). */
export function fixedInDefault3(history: readonly Observation[], options: Omit<SpecOptions, "ruleSet"> = {}) {
  return {
    when(...events: Observation[]) {
      const spec = changedIn(defaultRuleSetV3, defaultRuleSetV2, history, options).when(...events);
      return { ...spec, v2: spec.before, v3: spec.after };
    },
  };
}

/** A default/4 change as a spec: default/4 decides `expected`, default/3 does not (`v3`, `v4`: what each decided). */
export function fixedInDefault4(history: readonly Observation[], options: Omit<SpecOptions, "ruleSet"> = {}) {
  return {
    when(...events: Observation[]) {
      const spec = changedIn(defaultRuleSetV4, defaultRuleSetV3, history, options).when(...events);
      return { ...spec, v3: spec.before, v4: spec.after };
    },
  };
}

/**
 * Emmett's DeciderSpecification over `decide`: `given(history)` folds the history (the correlation's
 * state and the capability table), `when(observation)` decides on that state alone, `then(expected)`
 * checks the decisions in order, each matching (a subset of) its expectation. `decide` changes nothing:
 * the state's serialization is the same before and after it.
 */
export function givenState(
  history: readonly Observation[],
  options: { ruleSet?: RuleSet; policy?: PolicyConfig } = {},
) {
  const ruleSet = options.ruleSet ?? defaultRuleSetV2;
  const policy = options.policy ?? defaultPolicyConfig;
  const { correlations, capabilities } = replayLog(history, ruleSet, { policy });
  const decider = createDecider(ruleSet);
  return {
    when(observation: Observation) {
      const state = correlations.get(observation.correlationId) ?? decider.initialState();
      const before = decider.serialize(state);
      const decided = decider.decide({ capabilities, policy }, state, observation);
      expect(decider.serialize(state), "decide changed the state it was given").toEqual(before);
      expectValidDecisions(decided.decisions);
      return {
        decided,
        then(expected: readonly Record<string, unknown>[]) {
          expect(decided.decisions).toHaveLength(expected.length);
          expect(decided.decisions).toMatchObject(expected);
          return decided.decisions;
        },
        thenNothing() {
          expect(decided.decisions).toEqual([]);
        },
      };
    },
  };
}
