/**
 * The guard on @a2a-js/sdk: `guard.wrap(executor)` hands the executor an event bus that checks every
 * event at the moment it is published, against the card the provider returns *then* (a card that
 * changed since the task was dispatched is the one that counts):
 *
 * - the task event and every status update: its state against the card's advertised states;
 * - the task's artifacts and every artifact update: each part's media type against the skill's output
 *   modes (the skill named by the request's `a2a-ledger.skillId` metadata, else the card's defaults).
 *
 * An event outside the card is not published: `publish` throws `EmissionRefusedError`, so the executor
 * sees the refusal where it tried to emit, and the refusal is recorded as an `EmissionRefused`
 * observation (through the sink: the ingest API). Messages are not checked: they carry no state and
 * no artifact. `flush()` waits until every refusal recorded so far was sent.
 *
 * The correlation id is the request's `a2a-ledger.correlationId` (or `correlationId`) metadata, on the
 * message, the request or the task, else the server task id — the same fallback as the recording proxy.
 */
import { AgentCard, Part, taskStateToJSON, type Artifact, type Task } from "@a2a-js/sdk";
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { cardHash } from "@a2a-ledger/core";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { checkEmission, type Emission, type Verdict } from "./emission-check.ts";
import { EmissionRefusedError, guardErrorCodes } from "./errors.ts";
import { summarizeJsonPart } from "./part-summary.ts";
import { refusalObservation } from "./refusal-observation.ts";

/** Where refusals go: e.g. `(o) => ingestClient.send([o])`. */
export type RefusalSink = (observation: ObservationInput) => Promise<unknown>;

export interface WorkerGuardOptions {
  workerId: string;
  /** Default `guard:<workerId>`. */
  observer?: string;
  /** The card in force, read at every emission (return the current card, not a copy kept elsewhere). */
  card: () => AgentCard;
  record: RefusalSink;
  /** Called when a refusal could not be recorded (after the sink's own retries). */
  onRecordError?: (error: unknown, observation: ObservationInput) => void;
  now?: () => number;
}

/** What the guard needs to know about the request an emission belongs to. */
export interface EmissionScope {
  correlationId: string | null;
  skillId: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fromMetadata(sources: readonly unknown[], keys: readonly string[]): string | null {
  for (const metadata of sources) {
    if (!isRecord(metadata)) continue;
    for (const key of keys) {
      const v = metadata[key];
      if (typeof v === "string" && /^[\x21-\x7e]{1,200}$/.test(v.trim())) return v.trim();
    }
  }
  return null;
}

/** Correlation and skill named by a request: message metadata first, then the request's, then the task's. */
export function scopeOf(ctx: RequestContext): EmissionScope {
  const sources = [ctx.userMessage?.metadata, ctx.request?.metadata, ctx.task?.metadata];
  return {
    correlationId: fromMetadata(sources, ["a2a-ledger.correlationId", "correlationId"]),
    skillId: fromMetadata(sources, ["a2a-ledger.skillId", "skillId"]),
  };
}

const artifactEmission = (taskId: string, contextId: string, artifact: Artifact): Emission => ({
  emission: "ARTIFACT",
  serverTaskId: taskId,
  contextId: contextId === "" ? null : contextId,
  artifactId: artifact.artifactId,
  parts: artifact.parts.map((p) => summarizeJsonPart(Part.toJSON(p))),
});

const statusEmission = (taskId: string, contextId: string, state: number): Emission => ({
  emission: "STATUS",
  serverTaskId: taskId,
  contextId: contextId === "" ? null : contextId,
  rawState: taskStateToJSON(state),
});

/** The emissions one bus event makes, in the order a client would see them. */
export function emissionsOf(event: AgentExecutionEvent): Emission[] {
  switch (event.kind) {
    case "task": {
      const t: Task = event.data;
      const out: Emission[] = [];
      if (t.status !== undefined) out.push(statusEmission(t.id, t.contextId, t.status.state));
      for (const a of t.artifacts) out.push(artifactEmission(t.id, t.contextId, a));
      return out;
    }
    case "statusUpdate":
      return event.data.status === undefined
        ? []
        : [statusEmission(event.data.taskId, event.data.contextId, event.data.status.state)];
    case "artifactUpdate":
      return event.data.artifact === undefined
        ? []
        : [artifactEmission(event.data.taskId, event.data.contextId, event.data.artifact)];
    case "message":
      return [];
  }
}

/** Delegates to the SDK's bus; `publish` checks first. */
class CheckedBus implements ExecutionEventBus {
  constructor(
    private readonly inner: ExecutionEventBus,
    private readonly checkEvent: (event: AgentExecutionEvent) => void,
  ) {}

  publish(event: AgentExecutionEvent): void {
    this.checkEvent(event);
    this.inner.publish(event);
  }

  on(eventName: "event" | "finished", listener: (() => void) & ((event: AgentExecutionEvent) => void)): this {
    this.inner.on(eventName as "event", listener);
    return this;
  }

  off(eventName: "event" | "finished", listener: (() => void) & ((event: AgentExecutionEvent) => void)): this {
    this.inner.off(eventName as "event", listener);
    return this;
  }

  once(eventName: "event" | "finished", listener: (() => void) & ((event: AgentExecutionEvent) => void)): this {
    this.inner.once(eventName as "event", listener);
    return this;
  }

  removeAllListeners(eventName?: "event" | "finished"): this {
    this.inner.removeAllListeners(eventName);
    return this;
  }

  finished(): void {
    this.inner.finished();
  }
}

export class WorkerGuard {
  private readonly observer: string;
  private readonly now: () => number;
  private readonly pending = new Set<Promise<void>>();
  private readonly scopes = new Map<string, EmissionScope>();
  private refusedCount = 0;

  constructor(private readonly options: WorkerGuardOptions) {
    this.observer = options.observer ?? `guard:${options.workerId}`;
    this.now = options.now ?? Date.now;
  }

  /** Emissions refused since the guard was made. */
  get refused(): number {
    return this.refusedCount;
  }

  /** The executor, with every event it publishes checked. */
  wrap(executor: AgentExecutor): AgentExecutor {
    return {
      execute: (ctx, bus) => {
        const scope = scopeOf(ctx);
        // A cancel names only the task: it is judged under the scope of the task's last request.
        this.scopes.set(ctx.taskId, scope);
        return executor.execute(ctx, this.bus(bus, scope));
      },
      cancelTask: (taskId, bus) =>
        executor.cancelTask(taskId, this.bus(bus, this.scopes.get(taskId) ?? { correlationId: null, skillId: null })),
    };
  }

  /** `inner` with every published event checked under `scope`. */
  bus(inner: ExecutionEventBus, scope: EmissionScope): ExecutionEventBus {
    return new CheckedBus(inner, (event) => this.check(event, scope));
  }

  /** Throws EmissionRefusedError (and records the refusal) when `event` is outside the card in force. */
  check(event: AgentExecutionEvent, scope: EmissionScope): void {
    const emissions = emissionsOf(event);
    if (emissions.length === 0) return;
    let card: unknown;
    try {
      card = AgentCard.toJSON(this.options.card());
    } catch (e) {
      throw new EmissionRefusedError(
        "GUARD_CARD_UNAVAILABLE",
        `${guardErrorCodes.GUARD_CARD_UNAVAILABLE.message}: ${(e as Error).message}`,
        null,
        emissions[0]?.serverTaskId ?? "",
      );
    }
    for (const emission of emissions) {
      const verdict = checkEmission(card, emission, scope.skillId);
      if (!verdict.allowed) this.refuse(card, emission, verdict, scope);
    }
  }

  private refuse(
    card: unknown,
    emission: Emission,
    verdict: Extract<Verdict, { allowed: false }>,
    scope: EmissionScope,
  ): never {
    this.refusedCount += 1;
    let hash: string | null;
    try {
      hash = cardHash(card);
    } catch {
      hash = null;
    }
    const observation = refusalObservation(
      {
        correlationId: scope.correlationId ?? emission.serverTaskId,
        workerId: this.options.workerId,
        observer: this.observer,
        skillId: scope.skillId,
        cardHash: hash,
      },
      emission,
      verdict,
      this.now(),
    );
    const sent = this.options.record(observation).then(
      () => undefined,
      (error: unknown) => this.options.onRecordError?.(error, observation),
    );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
    if (verdict.kind === "STATE_NOT_ADVERTISED") {
      throw new EmissionRefusedError(
        "GUARD_STATE_NOT_ADVERTISED",
        `${verdict.rawState}: ${guardErrorCodes.GUARD_STATE_NOT_ADVERTISED.message} (advertised: ${verdict.allowedValues.join(", ")})`,
        verdict,
        emission.serverTaskId,
      );
    }
    throw new EmissionRefusedError(
      "GUARD_OUTPUT_MODE_NOT_ADVERTISED",
      `${verdict.refusedModes.join(", ")}: ${guardErrorCodes.GUARD_OUTPUT_MODE_NOT_ADVERTISED.message}${scope.skillId === null ? " (card defaults)" : ` ${scope.skillId}`} (advertised: ${verdict.allowedValues.join(", ")})`,
      verdict,
      emission.serverTaskId,
    );
  }

  /** Resolves once every refusal recorded so far was handed to the sink and settled. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
