/**
 * A dispatch to a skill the card in force does not list is SKILL_NOT_ADVERTISED. Its artifacts are not
 * judged against the card's defaultOutputModes instead (R2 skips the card checks for them): the
 * dispatch itself was the violation.
 */
import { cardOffersSkill } from "../verification.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

export function skillAdvertised(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "TaskDispatched" || obs.skillId === null) return noOutput;
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  if (snap === undefined || cardOffersSkill(snap, obs.skillId)) return noOutput;
  const offered = snap.advertisedOutputModes.map((s) => s.skillId);
  return decided(
    unreported(input.state, [
      {
        type: "ContractViolation",
        workerId: obs.workerId,
        kind: "SKILL_NOT_ADVERTISED",
        observed: obs.skillId,
        allowed: offered,
        cardHash: snap.cardHash,
        skillId: obs.skillId,
        detail: `${obs.observer} dispatched message ${obs.messageId} to skill ${obs.skillId}; the card in force offers ${offered.length === 0 ? "no skills" : offered.join(", ")}`,
      },
    ]),
  );
}
