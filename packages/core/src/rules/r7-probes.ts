/**
 * R7: first contact with a worker under verify, and every card change, emits ProbeRequested. Until a
 * probe verifies a skill of the card in force, negotiation (R6) finds nothing verified for it.
 */
import { policyOf } from "../verification.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";

export function r7Probes(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "AgentCardObserved") return noOutput;
  const previous = input.priorCapabilities.asOf(obs.workerId, obs.occurredAt);
  if (previous !== undefined && previous.cardHash === obs.cardHash) return noOutput;
  const firstContact = !input.priorCapabilities.knows(obs.workerId);
  if (firstContact && policyOf(input.policy, input.capabilities.asOf(obs.workerId, obs.occurredAt)) !== "verify")
    return noOutput;
  return decided([
    {
      type: "ProbeRequested",
      workerId: obs.workerId,
      cardHash: obs.cardHash,
      cardUrl: obs.cardUrl,
      reason: firstContact ? "first-contact" : "card-changed",
    },
  ]);
}
