/**
 * R8: a card whose hash changes emits CardChanged with field-level differences (JSON pointers); a card
 * used by a dispatch longer than its Cache-Control max-age after the fetch is CARD_USED_PAST_MAX_AGE.
 */
import type { AgentCardObserved, TaskDispatched } from "@a2a-ledger/schemas";
import { canonicalize } from "../../canonical-json.ts";
import { diffCards } from "../../card-diff.ts";
import type { DecisionDraft } from "../../decisions.ts";
import { violationKey } from "../../decisions.ts";
import { noDecisions, type RuleInput } from "./rule.ts";

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function cardChanged(input: RuleInput, obs: AgentCardObserved): readonly DecisionDraft[] {
  const previous = input.priorCapabilities.asOf(obs.workerId, obs.occurredAt);
  if (previous === undefined || previous.cardHash === obs.cardHash) return noDecisions;
  const before = input.priorCapabilities.card(previous.cardHash);
  const after = parse(obs.card);
  // Without the previous card text (a table rebuilt from snapshots only) the whole card is reported.
  const changes =
    before === undefined
      ? [{ path: "", before: null, after: canonicalize(after) }]
      : diffCards(parse(before.card), after);
  return [
    {
      type: "CardChanged",
      workerId: obs.workerId,
      previousCardHash: previous.cardHash,
      cardHash: obs.cardHash,
      changes,
    },
  ];
}

function cardAge(input: RuleInput, obs: TaskDispatched): readonly DecisionDraft[] {
  if (obs.cardFetchedAt === null) return noDecisions;
  const hash = obs.cardHash ?? input.capabilities.asOf(obs.workerId, obs.cardFetchedAt)?.cardHash;
  const maxAge = hash === undefined ? undefined : input.capabilities.card(hash)?.cacheMaxAgeSeconds;
  if (maxAge === undefined || maxAge === null) return noDecisions;
  const ageMs = obs.occurredAt - obs.cardFetchedAt;
  if (obs.cardFetchedAt + maxAge * 1000 >= obs.occurredAt) return noDecisions;
  const violation: DecisionDraft = {
    type: "ContractViolation",
    workerId: obs.workerId,
    kind: "CARD_USED_PAST_MAX_AGE",
    serverTaskId: null,
    observed: `${Math.floor(ageMs / 1000)}s`,
    allowed: [`${maxAge}s`],
    cardHash: hash ?? null,
    detail: `${obs.observer} dispatched on a card fetched ${ageMs} ms earlier; the worker allowed caching it for ${maxAge} s`,
  };
  return input.state.reported.includes(violationKey(violation)) ? noDecisions : [violation];
}

export function r8Cards(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  if (obs.type === "AgentCardObserved") return cardChanged(input, obs);
  if (obs.type === "TaskDispatched") return cardAge(input, obs);
  return noDecisions;
}
