/**
 * R2: artifacts are checked at emission against the card in force at the artifact's occurredAt (not the
 * card at dispatch): OUTPUT_MODE_NOT_ADVERTISED against the task's skill's output modes (the card's
 * defaults when the dispatch named no skill; not judged for a skill the card does not list, which was
 * SKILL_NOT_ADVERTISED at dispatch); under verify OUTPUT_MODE_NOT_VERIFIED against what the probe of
 * that skill saw emitted; and OUTPUT_MODE_NOT_NEGOTIATED outside the dispatch's acceptedOutputModes.
 * Parts without a media type are not judged.
 */
import type { ArtifactEmitted } from "@a2a-ledger/schemas";
import { termsFor } from "../correlation/attempts.ts";
import { artifactMediaTypes } from "../correlation/artifacts.ts";
import { outputModesFor } from "../card.ts";
import type { ViolationDraft } from "../decisions.ts";
import { mediaTypeAllowed } from "../media-type.ts";
import { cardOffersSkill, policyOf, verifiedSkill } from "../verification.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

interface Judged {
  obs: ArtifactEmitted;
  cardHash: string | null;
  skillId: string | null;
}

function violation(
  { obs, cardHash, skillId }: Judged,
  kind: ViolationDraft["kind"],
  mode: string,
  allowed: readonly string[],
  why: string,
): ViolationDraft {
  return {
    type: "ContractViolation",
    workerId: obs.workerId,
    kind,
    serverTaskId: obs.serverTaskId,
    observed: mode,
    allowed: [...allowed],
    cardHash,
    skillId,
    detail: `artifact ${JSON.stringify(obs.name ?? obs.artifactId)}${skillId === null ? "" : ` of skill ${skillId}`} is ${mode}; ${why}`,
  };
}

export function r2Artifacts(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "ArtifactEmitted") return noOutput;
  const modes = artifactMediaTypes(obs);
  if (modes.length === 0) return noOutput;
  const terms = termsFor(input.state, obs.workerId, obs.serverTaskId);
  const skillId = terms?.skillId ?? null;
  const accepted = terms?.acceptedOutputModes ?? [];
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  const judgeCard = snap !== undefined && cardOffersSkill(snap, skillId);
  const advertised = judgeCard ? outputModesFor(snap, skillId) : [];
  const verified = judgeCard && policyOf(input.policy, snap) === "verify" ? verifiedSkill(snap, skillId) : undefined;
  const judged: Judged = { obs, cardHash: snap?.cardHash ?? null, skillId };
  let out: ViolationDraft[] | undefined;
  for (const mode of modes) {
    if (judgeCard) {
      if (!mediaTypeAllowed(mode, advertised))
        (out ??= []).push(
          violation(
            judged,
            "OUTPUT_MODE_NOT_ADVERTISED",
            mode,
            advertised,
            "the card in force at emission does not advertise it",
          ),
        );
      else if (verified !== undefined && !mediaTypeAllowed(mode, verified.outputModes))
        (out ??= []).push(
          violation(
            judged,
            "OUTPUT_MODE_NOT_VERIFIED",
            mode,
            verified.outputModes,
            `the probe of skill ${skillId ?? "(none)"} never saw it emitted`,
          ),
        );
    }
    if (accepted.length > 0 && !mediaTypeAllowed(mode, accepted))
      (out ??= []).push(
        violation(
          judged,
          "OUTPUT_MODE_NOT_NEGOTIATED",
          mode,
          accepted,
          `the dispatch accepted only ${accepted.join(", ")}`,
        ),
      );
  }
  return out === undefined ? noOutput : decided(unreported(input.state, out));
}
