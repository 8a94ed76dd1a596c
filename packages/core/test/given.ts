/** given(history).when(event).then(decisions): Emmett-style specs over the replay. */
import { validateRecord, type Decision, type Observation } from "@a2a-ledger/schemas";
import { expect } from "vitest";
import type { PolicyConfig } from "../src/policy.ts";
import { replay } from "../src/replay.ts";
import type { RuleSet } from "../src/rule-set.ts";
import { defaultRuleSet } from "../src/rules/rule-sets.ts";
import { defaultRuleSetV1 } from "../src/v1/rules/rule-sets.ts";

export interface SpecOptions {
  policy?: PolicyConfig;
  ruleSet?: RuleSet;
}

/** Every decision must be a valid Avro record of its type. */
export function expectValidDecisions(decisions: readonly Decision[]): void {
  for (const d of decisions) {
    const { type, ...record } = d;
    expect(validateRecord("decisions", type, record), `${d.decisionId} is not a valid ${type}`).toEqual([]);
  }
}

/** Specs of default/1 (frozen): `given` with that rule set unless one is named. */
export function givenV1(history: readonly Observation[], options: SpecOptions = {}) {
  return given(history, { ...options, ruleSet: options.ruleSet ?? defaultRuleSetV1 });
}

export function given(history: readonly Observation[], options: SpecOptions = {}) {
  return {
    when(...events: Observation[]) {
      const all = replay([...history, ...events], options.ruleSet ?? defaultRuleSet, { policy: options.policy ?? { trustedVendors: [] } });
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
