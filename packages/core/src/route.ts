/**
 * route: which workers could take a task of a skill as of a moment — the question an orchestrator asks
 * before it dispatches, answered by the very function R6 decides with (`routeVerdicts` below, over
 * `verdicts` in rules/eligibility.ts): the same verdicts, the same ranking, so the first worker `route`
 * names for a lost task, asked with R6's query (`takeOverQuery`), is the one R6 commands. Only verified capabilities count (V per card and skill); the
 * advertised card never makes a worker eligible.
 */
import type { CandidateVerdict, TaskState } from "@a2a-ledger/schemas";
import type { CapabilityView } from "./capabilities.ts";
import { mediaTypeAllowed } from "./media-type.ts";
import { defaultPolicyConfig, type Policy, type PolicyConfig } from "./policy.ts";
import { takeOverNeed, type Verdicts, verdicts } from "./rules/eligibility.ts";
import { isTerminal } from "./task-state.ts";
import { policyOf, verifiedSkill } from "./verification.ts";

export interface RouteQuery {
  /** The skill of the task (null: a dispatch without a skill, on the card's defaults). */
  skillId: string | null;
  /**
   * The task's last state: an interrupted state to resume, SUBMITTED or WORKING to restart, null for a
   * new task. A terminal state other than COMPLETED has nothing to route (RouteQueryError).
   */
  state: TaskState | null;
  /** The output modes the orchestrator accepts (media ranges); empty accepts any. */
  accept: readonly string[];
  /** The moment the capabilities are read as of (epoch ms). */
  at: number;
  /** Workers the orchestrator will not take (the one that just lost the task, say). */
  exclude?: readonly string[];
  /** Workers that lost a task of this correlation, with the attempts they lost (R6 under default/3). */
  earlierLosers?: ReadonlyMap<string, readonly number[]>;
  /** The worker that just lost the task (R6's lost worker): never a target. */
  lostBy?: string;
}

export interface RoutedWorker {
  workerId: string;
  /** 1 for the worker R6 would command. */
  rank: number;
  reason: string;
  /** The states the ledger verified for the skill on the card in force. */
  verifiedStates: TaskState[];
  /** The verified output modes the orchestrator accepts. */
  outputModes: string[];
  /** Trust or verify (DESIGN §4), with the ledger's own evidence. */
  policy: Policy;
  cardHash: string;
  /** validFrom of the capability snapshot the answer read. */
  validFrom: number;
}

export interface RouteAnswer {
  skillId: string | null;
  state: TaskState | null;
  /** Whether the task is resumed in `state` (otherwise it starts from scratch). */
  resume: boolean;
  /** The states an eligible worker verified. */
  needs: TaskState[];
  accept: string[];
  at: number;
  /** The eligible workers, best first; empty when none is. */
  workers: RoutedWorker[];
  /** Every other known worker with the reason it is not eligible, in workerId order. */
  ineligible: CandidateVerdict[];
}

/** A query route cannot answer (a terminal state to take over); `code` is stable. */
export class RouteQueryError extends Error {
  override name = "RouteQueryError";
  readonly code = "ROUTE_STATE_TERMINAL";
}

/** Whether `route` answers for a task in this state: none (new task) or any state not terminal (COMPLETED counts as none seen). */
export function routableState(state: TaskState | null): boolean {
  return state === null || state === "TASK_STATE_COMPLETED" || !isTerminal(state);
}

/**
 * The verdicts behind a route answer: what taking over the task needs, and every known worker's verdict
 * with the eligible ones ranked. R6 decides with this very function (rules/r6-reconcile.ts, with the
 * query of rules/take-over.ts); `route` only dresses its answer.
 */
export function routeVerdicts(
  view: CapabilityView,
  query: RouteQuery,
): { need: { resume: boolean; states: TaskState[] }; verdicts: Verdicts } {
  if (!routableState(query.state))
    throw new RouteQueryError(`state ${query.state} is terminal: there is no task to take over`);
  const need = takeOverNeed(query.state);
  const v = verdicts(view, {
    lostWorkerId: query.lostBy ?? "",
    skillId: query.skillId,
    acceptedOutputModes: query.accept,
    states: need.states,
    at: query.at,
    excluded: new Set(query.exclude ?? []),
    ...(query.earlierLosers !== undefined ? { earlierLosers: query.earlierLosers } : {}),
  });
  return { need, verdicts: v };
}

export function route(
  view: CapabilityView,
  query: RouteQuery,
  policy: PolicyConfig = defaultPolicyConfig,
): RouteAnswer {
  const { need, verdicts: v } = routeVerdicts(view, query);
  const workers = v.ranked.map((c, i): RoutedWorker => {
    const snap = view.asOf(c.workerId, query.at);
    if (snap === undefined) throw new Error(`eligible worker ${c.workerId} has no snapshot as of ${query.at}`);
    const skill = verifiedSkill(snap, query.skillId);
    const modes = skill?.outputModes ?? [];
    return {
      workerId: c.workerId,
      rank: i + 1,
      reason: c.reason,
      verifiedStates: [...(skill?.states ?? [])],
      outputModes: query.accept.length === 0 ? [...modes] : modes.filter((m) => mediaTypeAllowed(m, query.accept)),
      policy: policyOf(policy, snap),
      cardHash: snap.cardHash,
      validFrom: snap.validFrom,
    };
  });
  return {
    skillId: query.skillId,
    state: query.state,
    resume: need.resume,
    needs: need.states,
    accept: [...query.accept],
    at: query.at,
    workers,
    ineligible: v.all.filter((c) => !c.eligible),
  };
}
