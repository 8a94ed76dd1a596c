/**
 * Decision drafts (what a rule says) and their envelope (what the decider adds): deterministic
 * decisionId, rulesVersion, decidedAt = the cause event's occurredAt, correlationId, causeEventIds.
 */
import type { ContractViolation, Decision, Observation } from "@a2a-ledger/schemas";

type Envelope = "decisionId" | "correlationId" | "causeEventIds" | "rulesVersion" | "decidedAt";

/** A decision without its envelope; `causeEventIds` lists causes beyond the observation itself. */
export type DecisionDraft = Decision extends infer D ? (D extends Decision ? Omit<D, Envelope> & { causeEventIds?: string[] } : never) : never;

export type ViolationDraft = Extract<DecisionDraft, { type: "ContractViolation" }>;

/** `${eventId}:${kind}:${i}` — the kind is the decision type, or the violation kind for violations. */
export function decisionKind(d: DecisionDraft | Decision): string {
  return d.type === "ContractViolation" ? (d as ContractViolation).kind : d.type;
}

export function finalizeDecisions(obs: Observation, drafts: readonly DecisionDraft[], rulesVersion: string): Decision[] {
  return drafts.map((draft, i) => {
    const { type, causeEventIds: extra, ...fields } = draft;
    const causes = [obs.eventId, ...(extra ?? []).filter((id) => id !== obs.eventId)];
    return {
      type,
      decisionId: `${obs.eventId}:${decisionKind(draft)}:${i}`,
      correlationId: obs.correlationId,
      causeEventIds: [...new Set(causes)],
      rulesVersion,
      decidedAt: obs.occurredAt,
      ...fields,
    } as Decision;
  });
}

/**
 * The identity of a violation for de-duplication across redundant observers. Divergent artifacts are
 * identified by their (stable) detail — output and attempt pair — since their media sets may grow.
 */
export function violationKey(v: Pick<ContractViolation, "kind" | "serverTaskId" | "observed" | "allowed" | "workerId" | "detail">): string {
  if (v.kind === "DIVERGENT_ARTIFACTS") return `${v.kind}|${v.detail}`;
  return [v.kind, v.workerId ?? "", v.serverTaskId ?? "", v.observed, v.allowed.join(",")].join("|");
}
