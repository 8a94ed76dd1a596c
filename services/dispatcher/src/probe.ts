/**
 * A capability probe (ProbeRequested): the worker's card is fetched through its proxy, then, per skill of
 * the card, the configured canary messages are sent. States are observed as the stream delivers them (or
 * by polling, for a worker that does not stream) and each one is asked for again with GetTask from a
 * fresh client: a state seen again that way is `reobservable`. The media types of every artifact part
 * are the modes emitted. One canary that ends in an interrupted state is parked (left waiting) so that
 * the canary watch can see whether the worker keeps it. Everything goes through the proxy under the
 * correlation `probe-<workerId>`.
 */
import { taskStateToJSON, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { isInterrupted, isTerminal, normalizeTaskState } from "@a2a-ledger/core";
import type { Logger } from "@a2a-ledger/logging";
import type { TaskState } from "@a2a-ledger/schemas";
import type { ProbeCommand } from "./command-record.ts";
import { DispatchAlert } from "./errors.ts";
import { canaryMessageId, probeCorrelationOf, type SkillProbeResult } from "./observations.ts";
import {
  callOptions,
  clientOf,
  fetchCard,
  ledgerMessage,
  ledgerMetadata,
  type FetchedCard,
  type LedgerNames,
} from "./worker-client.ts";
import { renderMessage, skillConfigFor, type CanaryConfig, type WorkerConfig } from "./worker-config.ts";

export interface ProbeOptions {
  /** Longest one canary may take to reach a terminal or interrupted state. */
  canaryTimeoutMs: number;
  log: Logger;
}

export interface ProbeOutcome {
  card: FetchedCard;
  /** The card the probe tested: the one served (the command's unless it changed). */
  probedHash: string;
  cardChanged: boolean;
  results: SkillProbeResult[];
  /** Skills of the card that were not probed, and why. */
  skipped: { skillId: string | null; reason: string }[];
}

interface CanaryRun {
  taskId: string | null;
  states: TaskState[];
  reobservable: Set<TaskState>;
  modes: Set<string>;
  last: TaskState | null;
}

const stateOf = (value: number | undefined): TaskState | null =>
  value === undefined ? null : normalizeTaskState(taskStateToJSON(value));
const ended = (s: TaskState | null): boolean => s !== null && (isTerminal(s) || isInterrupted(s));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function skillIdsOf(card: Record<string, unknown>): (string | null)[] {
  const skills = Array.isArray(card.skills) ? card.skills : [];
  const ids = skills.flatMap((s: unknown) =>
    typeof s === "object" && s !== null && typeof (s as { id?: unknown }).id === "string"
      ? [(s as { id: string }).id]
      : [],
  );
  return ids.length === 0 ? [null] : ids;
}

class CanaryObserver {
  readonly run: CanaryRun = { taskId: null, states: [], reobservable: new Set(), modes: new Set(), last: null };
  private readonly pending: Promise<void>[] = [];

  constructor(
    private readonly card: FetchedCard,
    private readonly worker: WorkerConfig,
    private readonly names: LedgerNames,
    private readonly log: Logger,
  ) {}

  task(task: Task): void {
    this.run.taskId ??= task.id;
    this.state(stateOf(task.status?.state));
    for (const artifact of task.artifacts) this.parts(artifact.parts);
  }

  state(state: TaskState | null): void {
    if (state === null || state === "TASK_STATE_UNSPECIFIED") return;
    this.run.last = state;
    if (this.run.states.includes(state)) return;
    this.run.states.push(state);
    if (this.run.taskId !== null) this.pending.push(this.reobserve(this.run.taskId, state));
  }

  parts(parts: readonly { mediaType: string }[]): void {
    for (const p of parts) if (p.mediaType !== "") this.run.modes.add(p.mediaType);
  }

  /** GetTask from a client of its own: the state counts as reobservable when that client sees it too. */
  private async reobserve(taskId: string, state: TaskState): Promise<void> {
    if (this.run.reobservable.has(state)) return;
    try {
      const fresh = await clientOf(this.card, this.worker.transport);
      const seen = stateOf(
        (await fresh.getTask({ tenant: "", id: taskId, historyLength: 0 }, callOptions(this.names, 10_000))).status
          ?.state,
      );
      if (seen === state) this.run.reobservable.add(state);
    } catch (error) {
      this.log.debug({ err: error, taskId, state }, "a fresh client could not re-observe the state");
    }
  }

  /** Waits for the re-observations in flight, then asks once more for the state the canary ended in. */
  async settle(): Promise<CanaryRun> {
    await Promise.all(this.pending);
    if (this.run.taskId !== null && this.run.last !== null && !this.run.reobservable.has(this.run.last))
      await this.reobserve(this.run.taskId, this.run.last);
    return this.run;
  }
}

async function runCanary(
  client: Client,
  streaming: boolean,
  observer: CanaryObserver,
  message: ReturnType<typeof ledgerMessage>,
  names: LedgerNames,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  if (streaming) {
    const stream = client.sendMessageStream(
      { tenant: "", message, configuration: undefined, metadata: undefined },
      callOptions(names, timeoutMs),
    );
    for await (const event of stream) {
      const payload = event.payload;
      if (payload?.$case === "task") observer.task(payload.value);
      else if (payload?.$case === "statusUpdate") observer.state(stateOf(payload.value.status?.state));
      else if (payload?.$case === "artifactUpdate") observer.parts(payload.value.artifact?.parts ?? []);
    }
    return;
  }
  const configuration = {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately: true,
  };
  const result = await client.sendMessage(
    { tenant: "", message, configuration, metadata: undefined },
    callOptions(names, timeoutMs),
  );
  if (!("status" in result)) return; // answered with a message: no task to observe
  observer.task(result);
  while (!ended(observer.run.last) && Date.now() < deadline) {
    await sleep(150);
    observer.task(
      await client.getTask(
        { tenant: "", id: result.id, historyLength: 0 },
        callOptions(names, Math.max(1_000, deadline - Date.now())),
      ),
    );
  }
}

/** One skill's canaries, in order; at most one is parked. */
async function probeSkill(
  command: ProbeCommand,
  worker: WorkerConfig,
  card: FetchedCard,
  skillId: string | null,
  canaries: readonly CanaryConfig[],
  options: ProbeOptions,
): Promise<SkillProbeResult | undefined> {
  const names: LedgerNames = { correlationId: probeCorrelationOf(worker.workerId), skillId };
  const streaming = (card.served.capabilities as { streaming?: unknown } | undefined)?.streaming === true;
  const states: TaskState[] = [];
  const reobservable = new Set<TaskState>();
  const modes = new Set<string>();
  const wantsPark = canaries.some((c) => c.park);
  let parked: SkillProbeResult["parked"] = null;
  let completed = 0;
  for (const [index, canary] of canaries.entries()) {
    const text = renderMessage(canary.message, {
      correlationId: names.correlationId,
      skillId,
      workerId: worker.workerId,
      decisionId: command.decisionId,
    });
    const metadata: Record<string, string> = {
      [ledgerMetadata.correlationId]: names.correlationId,
      [ledgerMetadata.decisionId]: command.decisionId,
    };
    if (skillId !== null) metadata[ledgerMetadata.skillId] = skillId;
    const observer = new CanaryObserver(card, worker, names, options.log);
    try {
      const client = await clientOf(card, worker.transport);
      await runCanary(
        client,
        streaming,
        observer,
        ledgerMessage(text, canaryMessageId(command.decisionId, skillId, index), metadata),
        names,
        options.canaryTimeoutMs,
      );
    } catch (error) {
      options.log.warn(
        { err: error, workerId: worker.workerId, skillId, canary: index },
        "canary did not run to its end",
      );
    }
    const run = await observer.settle();
    if (run.taskId !== null) completed += 1;
    for (const s of run.states) if (!states.includes(s)) states.push(s);
    for (const s of run.reobservable) reobservable.add(s);
    for (const m of run.modes) modes.add(m);
    if (
      parked === null &&
      run.taskId !== null &&
      run.last !== null &&
      isInterrupted(run.last) &&
      (canary.park || !wantsPark)
    )
      parked = { serverTaskId: run.taskId, state: run.last };
  }
  if (completed === 0) return undefined;
  return {
    skillId,
    statesObserved: states,
    reobservable: states.filter((s) => reobservable.has(s)),
    emittedModes: [...modes].sort(),
    parked,
    endedAt: Date.now(),
  };
}

/** Probes the worker named by the command; `workerUrl` is the worker's own base URL, when known. */
export async function runProbe(
  command: ProbeCommand,
  worker: WorkerConfig,
  workerUrl: string | null,
  options: ProbeOptions,
): Promise<ProbeOutcome> {
  const card = await fetchCard(
    worker.url,
    workerUrl,
    { correlationId: probeCorrelationOf(worker.workerId) },
    options.canaryTimeoutMs,
  );
  const probedHash = card.hash ?? command.cardHash;
  const cardChanged = card.hash !== null && card.hash !== command.cardHash;
  if (card.hash === null)
    options.log.warn(
      { workerId: worker.workerId, decisionId: command.decisionId },
      "the worker's own URL is unknown (no workerUrl configured, no cardUrl in the command): the card is taken to be the one the command names",
    );
  if (cardChanged)
    options.log.warn(
      { workerId: worker.workerId, decisionId: command.decisionId, commanded: command.cardHash, served: card.hash },
      "the card changed since the probe was commanded: probing the card served now",
    );
  const results: SkillProbeResult[] = [];
  const skipped: ProbeOutcome["skipped"] = [];
  for (const skillId of skillIdsOf(card.served)) {
    const canaries = skillConfigFor(worker, skillId)?.canaries ?? [];
    if (canaries.length === 0) {
      skipped.push({ skillId, reason: 'no canary configured for this skill (nor for "*")' });
      continue;
    }
    const result = await probeSkill(command, worker, card, skillId, canaries, options);
    if (result === undefined) skipped.push({ skillId, reason: "no canary reached the worker" });
    else results.push(result);
  }
  if (results.length === 0)
    throw new DispatchAlert(
      "DISPATCHER_PROBE_FAILED",
      `no skill of ${worker.workerId} was probed: ${skipped.map((s) => `${s.skillId ?? "(no skill)"}: ${s.reason}`).join("; ")}`,
    );
  return { card, probedHash, cardChanged, results, skipped };
}
