/**
 * A(W) and V(W) bookkeeping: a card fetch opens a snapshot when the card changed; a probe of the card
 * in force verifies the probed skill, announced with CapabilitiesVerified. Runs first, so later rules
 * of the same step see the update.
 */
import type { SkillOutputModes } from "@a2a-ledger/schemas";
import { derive } from "../verification.ts";
import { noOutput, type RuleInput, type RuleOutput } from "./rule.ts";

export function capabilities(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "AgentCardObserved" && obs.type !== "ProbeCompleted") return noOutput;
  const derived = derive(input.priorCapabilities, obs);
  if (derived.snapshots.length === 0 && derived.cards.length === 0) return noOutput;
  const decisions =
    obs.type === "ProbeCompleted"
      ? derived.snapshots.map((s) => ({
          type: "CapabilitiesVerified" as const,
          workerId: s.workerId,
          cardHash: s.cardHash,
          states: s.verifiedStates,
          outputModes: s.verifiedSkills.map(
            (k): SkillOutputModes => ({ skillId: k.skillId ?? "*", outputModes: k.outputModes }),
          ),
          durable: s.durable,
          skills: s.verifiedSkills,
        }))
      : [];
  return { decisions, capabilityUpdates: derived.snapshots, cards: derived.cards };
}
