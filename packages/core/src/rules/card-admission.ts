/**
 * default/4: which card fetches may replace what the ledger believes about a worker. Ingest stamps two
 * facts on every card it accepts (services/ingest): its `signature` (checked against the keys the
 * operator trusts for the worker) and its `standing` (whom the posting token speaks for). A card is
 * *admitted* — it may open a snapshot, be diffed (R8) and be probed (R7) — unless:
 *
 * - its signature failed (`INVALID`, `UNKNOWN_KEY`): a contract violation, `CARD_SIGNATURE_INVALID`;
 * - it arrives `UNSIGNED` while the card in force was `VERIFIED`: `CARD_SIGNATURE_DROPPED`;
 * - it is a sighting (an orchestrator's token, not bound to the worker) and not `VERIFIED`: one vendor's
 *   principal never rewrites another vendor's card.
 *
 * A violation is recorded only for a card its worker's own side posted (standing `WORKER`, `PROBER`, or
 * null without tokens): a stranger's post of a bad card is refused without a charge against the worker.
 * Records without these fields (null: no keys, no tokens) are admitted as every rule set admits them.
 */
import type { AgentCardObserved, CapabilitySnapshot } from "@a2a-ledger/schemas";
import type { ViolationDraft } from "../decisions.ts";
import { type NamedRule, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

export type CardAdmission =
  | { admitted: true }
  | { admitted: false; why: "signature-failed" | "signature-dropped" | "sighting" };

/** Whether `card` may replace `inForce` (the worker's card in force before it). */
export function cardAdmission(card: AgentCardObserved, inForce: CapabilitySnapshot | undefined): CardAdmission {
  if (card.signature === "INVALID" || card.signature === "UNKNOWN_KEY")
    return { admitted: false, why: "signature-failed" };
  if (card.signature === "UNSIGNED" && inForce?.signature === "VERIFIED")
    return { admitted: false, why: "signature-dropped" };
  if (card.standing === "SIGHTING" && card.signature !== "VERIFIED") return { admitted: false, why: "sighting" };
  return { admitted: true };
}

const inForceOf = (input: RuleInput, card: AgentCardObserved) =>
  input.priorCapabilities.asOf(card.workerId, card.occurredAt);

/** `rule` run only on admitted cards (every other observation passes through). */
export function onAdmittedCards(rule: NamedRule): NamedRule {
  return {
    ...rule,
    apply: (input) => {
      const obs = input.observation;
      if (obs.type !== "AgentCardObserved") return rule.apply(input);
      return cardAdmission(obs, inForceOf(input, obs)).admitted ? rule.apply(input) : noOutput;
    },
  };
}

function violation(card: AgentCardObserved, inForce: CapabilitySnapshot | undefined, why: string): ViolationDraft {
  const failed = why === "signature-failed";
  return {
    type: "ContractViolation",
    workerId: card.workerId,
    kind: failed ? "CARD_SIGNATURE_INVALID" : "CARD_SIGNATURE_DROPPED",
    observed: card.signature ?? "UNSIGNED",
    allowed: ["VERIFIED"],
    cardHash: card.cardHash,
    skillId: null,
    detail: failed
      ? `${card.observer} fetched a card of ${card.workerId} whose signature is ${card.signature}${card.signatureKeyId === null ? "" : ` (key ${card.signatureKeyId})`}; the card in force${inForce === undefined ? " (none)" : ` ${inForce.cardHash.slice(0, 12)}`} stays`
      : `${card.observer} fetched an unsigned card of ${card.workerId}, whose card in force ${inForce?.cardHash.slice(0, 12) ?? ""} was signed and verified; the signed card stays`,
  };
}

/**
 * The card-admission rule: a refused card of the worker's own side is a violation; an admitted
 * `VERIFIED` card whose content is already in force marks that snapshot verified (the hash leaves the
 * signatures out, so signing an unchanged card opens no snapshot).
 */
export function cardAdmissionRule(input: RuleInput): RuleOutput {
  const card = input.observation;
  if (card.type !== "AgentCardObserved") return noOutput;
  const inForce = inForceOf(input, card);
  const admission = cardAdmission(card, inForce);
  if (!admission.admitted) {
    if (admission.why === "sighting" || card.standing === "SIGHTING") return noOutput;
    const decisions = unreported(input.state, [violation(card, inForce, admission.why)]);
    return { decisions, capabilityUpdates: [], cards: [] };
  }
  if (card.signature === "VERIFIED" && inForce?.cardHash === card.cardHash && inForce.signature !== "VERIFIED")
    return {
      decisions: [],
      capabilityUpdates: [
        { ...inForce, signature: "VERIFIED", validFrom: card.occurredAt, causeEventId: card.eventId },
      ],
      cards: [],
    };
  return noOutput;
}
