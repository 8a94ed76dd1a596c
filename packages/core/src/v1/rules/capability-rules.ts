/**
 * A(W) and V(W) bookkeeping: a card fetch opens a snapshot when the card changed, a probe of the card in
 * force verifies it (and says so with CapabilitiesVerified). Runs first so later rules see the update.
 */
import { deriveCapabilities } from "../capability-snapshots.ts";
import type { DecisionDraft } from "../../decisions.ts";
import type { PartialOutput, RuleInput } from "./rule.ts";

export function capabilities(input: RuleInput): PartialOutput {
  const obs = input.observation;
  const derived = deriveCapabilities(input.priorCapabilities, obs);
  const decisions: DecisionDraft[] = [];
  if (obs.type === "ProbeCompleted") {
    for (const s of derived.snapshots) {
      decisions.push({
        type: "CapabilitiesVerified",
        workerId: s.workerId,
        cardHash: s.cardHash,
        states: s.verifiedStates,
        outputModes: [{ skillId: obs.skillId ?? "*", outputModes: [...new Set(obs.emittedModes)].sort() }],
        durable: s.durable,
      });
    }
  }
  return { decisions, capabilityUpdates: derived.snapshots, cards: derived.cards };
}
