/**
 * R7: first contact with a worker under verify, and every card change, emits ProbeRequested. Until a
 * probe verifies the card in force, negotiation (R6) uses V, which is empty, so the worker is not chosen.
 */
import type { DecisionDraft } from "../../decisions.ts";
import { policyFor } from "../../policy.ts";
import { noDecisions, type RuleInput } from "./rule.ts";

export function r7Probes(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  if (obs.type !== "AgentCardObserved") return noDecisions;
  const previous = input.priorCapabilities.asOf(obs.workerId, obs.occurredAt);
  if (previous !== undefined && previous.cardHash === obs.cardHash) return noDecisions;
  const firstContact = !input.priorCapabilities.knows(obs.workerId);
  if (firstContact) {
    const current = input.capabilities.asOf(obs.workerId, obs.occurredAt);
    if (policyFor(input.policy, current) !== "verify") return noDecisions;
  }
  return [
    {
      type: "ProbeRequested",
      workerId: obs.workerId,
      cardHash: obs.cardHash,
      cardUrl: obs.cardUrl,
      reason: firstContact ? "first-contact" : "card-changed",
    },
  ];
}
