/**
 * R2: artifacts are checked at emission against the card in force at the artifact's occurredAt (not the
 * card at dispatch) — OUTPUT_MODE_NOT_ADVERTISED, then under verify with a verified card
 * OUTPUT_MODE_NOT_VERIFIED — and against the dispatch's acceptedOutputModes — OUTPUT_MODE_NOT_NEGOTIATED.
 * Parts without a media type are not judged.
 */
import { outputModesFor } from "../../card.ts";
import { attemptOf } from "../correlation-state.ts";
import type { DecisionDraft, ViolationDraft } from "../../decisions.ts";
import { artifactMediaTypes } from "../evolve.ts";
import { mediaTypeAllowed } from "../../media-type.ts";
import { policyFor } from "../../policy.ts";
import { noDecisions, type RuleInput } from "./rule.ts";
import { unreported } from "./violations.ts";

export function r2Artifacts(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  if (obs.type !== "ArtifactEmitted") return noDecisions;
  const modes = artifactMediaTypes(obs);
  if (modes.length === 0) return noDecisions;
  const attempt = attemptOf(input.state, obs.serverTaskId);
  const skillId = attempt?.skillId ?? null;
  const accepted = attempt?.acceptedOutputModes ?? [];
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  const verify = snap !== undefined && snap.verified && policyFor(input.policy, snap) === "verify";
  const out: ViolationDraft[] = [];
  const base = {
    type: "ContractViolation",
    workerId: obs.workerId,
    serverTaskId: obs.serverTaskId,
    cardHash: snap?.cardHash ?? null,
  } as const;
  const what = `artifact ${JSON.stringify(obs.name ?? obs.artifactId)}${skillId === null ? "" : ` of skill ${skillId}`}`;
  for (const mode of modes) {
    if (snap !== undefined) {
      const advertised = outputModesFor(snap, skillId);
      if (!mediaTypeAllowed(mode, advertised)) {
        out.push({
          ...base,
          kind: "OUTPUT_MODE_NOT_ADVERTISED",
          observed: mode,
          allowed: advertised,
          detail: `${what} is ${mode}; the card in force at emission does not advertise it`,
        });
      } else if (verify && !mediaTypeAllowed(mode, snap.verifiedOutputModes)) {
        out.push({
          ...base,
          kind: "OUTPUT_MODE_NOT_VERIFIED",
          observed: mode,
          allowed: snap.verifiedOutputModes,
          detail: `${what} is ${mode}; the probe of the card in force never saw it emitted`,
        });
      }
    }
    if (accepted.length > 0 && !mediaTypeAllowed(mode, accepted)) {
      out.push({
        ...base,
        kind: "OUTPUT_MODE_NOT_NEGOTIATED",
        observed: mode,
        allowed: accepted,
        detail: `${what} is ${mode}; the dispatch accepted only ${accepted.join(", ")}`,
      });
    }
  }
  return unreported(input.state, out);
}
