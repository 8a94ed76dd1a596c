/**
 * R3: artifacts are reconciled by correlation id, not task id. Two attempts of one correlation that emit
 * different media types for the same output (artifact name, else artifactId) are DIVERGENT_ARTIFACTS,
 * reported once per output and pair of attempts.
 */
import type { OutputRecord } from "../correlation-state.ts";
import { attemptOf } from "../correlation-state.ts";
import type { DecisionDraft, ViolationDraft } from "../../decisions.ts";
import { outputKey } from "../evolve.ts";
import { noDecisions, type RuleInput } from "./rule.ts";
import { unreported } from "./violations.ts";

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export function r3Divergent(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  if (obs.type !== "ArtifactEmitted") return noDecisions;
  const output = outputKey(obs);
  const attempt = attemptOf(input.state, obs.serverTaskId)?.attempt ?? 0;
  const mine = input.state.outputs.find((o) => o.output === output && o.attempt === attempt);
  if (mine === undefined || mine.mediaTypes.length === 0) return noDecisions;
  const others = input.state.outputs.filter(
    (o): o is OutputRecord => o.output === output && o.attempt !== attempt && o.mediaTypes.length > 0,
  );
  const out: ViolationDraft[] = [];
  for (const other of others) {
    if (sameSet(mine.mediaTypes, other.mediaTypes)) continue;
    const [lo, hi] = other.attempt < attempt ? [other.attempt, attempt] : [attempt, other.attempt];
    out.push({
      type: "ContractViolation",
      workerId: obs.workerId,
      kind: "DIVERGENT_ARTIFACTS",
      serverTaskId: obs.serverTaskId,
      observed: mine.mediaTypes.join(", "),
      allowed: other.mediaTypes,
      cardHash: input.capabilities.asOf(obs.workerId, obs.occurredAt)?.cardHash ?? null,
      detail: `output ${JSON.stringify(output)} differs between attempt ${lo} and attempt ${hi}`,
      causeEventIds: [other.eventId],
    });
  }
  return unreported(input.state, out);
}
