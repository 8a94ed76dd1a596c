/**
 * The DESIGN §1 story, live, as an orchestrator plays it against W1, W2 and W3 through their proxies:
 *
 *  1. reads the three cards through the proxies (the ledger's first contact: it commands probes) and
 *     waits until the ledger has verified all three — the dispatcher parks a canary on W1 meanwhile;
 *  2. dispatches task `retry-<run>` to W1, which answers in application/json (its card's contract);
 *  3. dispatches task `task-<run>` to W1 (skill, accepted output modes that make W1's card the contract),
 *     which stops in INPUT_REQUIRED;
 *  4. W1 restarts (chaos: the supervisor does it) and loses its tasks;
 *  5. GetTask answers TaskNotFound (the proxy records it);
 *  6. learns from the ledger that the task is indeterminate and re-dispatched, and to which worker;
 *  7. finds the re-dispatched task on the ledger (the target's proxy recorded it waiting for input) and
 *     supplies the input through the target's proxy; the task completes there;
 *  8. W1's configuration is reloaded (chaos): it now answers text/plain while its card says
 *     application/json; the orchestrator retries `retry-<run>` on W1 (attempt 2), which answers text/plain;
 *  9. beside it, task `guarded-<run>` goes to W2, whose worker guards its own card: asked to wait for input
 *     and to answer in application/json (neither on W2's card), its guard refuses both emissions and records
 *     the refusals; W2 completes in text/plain, as its card says.
 *
 * The orchestrator records nothing itself: the proxies record what it does, and it reads the ledger. The
 * task W1 loses (steps 3 and 5) goes through `@a2a-ledger/a2a-client`, without its recorder (W1's proxy
 * records): the client remembers the task waiting for input, so W1's TaskNotFound comes back as a typed
 * `indeterminate` result instead of an error.
 */
import { A2AClientError, LedgerA2AClient, type GetTaskOutcome } from "@a2a-ledger/a2a-client";
import type { Chaos } from "@a2a-ledger/env";
import { isType, type LedgerFeed } from "@a2a-ledger/ledger-feed";
import type { Logger } from "@a2a-ledger/logging";
import { ProxiedWorker, stateName, type MeshWorker } from "./through-proxy.ts";

/** The correlation ids of the story's three tasks, chosen by whoever writes the story file. */
export interface StoryTasks {
  lost: string;
  retried: string;
  guarded: string;
}

export interface StoryConfig {
  runId: string;
  tasks: StoryTasks;
  workers: { w1: MeshWorker; w2: MeshWorker; w3: MeshWorker };
  skillId: string;
  /** What the orchestrator accepts: W1's application/json card is the contract, and text/plain lets a fallback worker take over. */
  acceptedOutputModes: string[];
  /** How long to wait for each thing the ledger must decide. */
  ledgerTimeoutMs: number;
}

export interface StoryReport {
  runId: string;
  workers: { w1: string; w2: string; w3: string };
  /** The task W1 lost and the ledger re-dispatched. */
  lost: {
    correlationId: string;
    serverTaskIds: { workerId: string; serverTaskId: string }[];
    redispatchedTo: string;
    attempt: number;
    finalState: string;
  };
  /** The task retried on W1 after its reload. */
  retried: { correlationId: string; serverTaskIds: { workerId: string; serverTaskId: string; mediaTypes: string[] }[] };
  /** The task W2's guard kept within W2's card. */
  guarded: { correlationId: string; workerId: string; serverTaskId: string; state: string; mediaTypes: string[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * GetTask of a task the worker should have lost: what the client makes of the answer. A worker (or its
 * proxy) still settling after the restart gives no A2A answer and is asked again, a few times.
 */
async function askAgain(get: () => Promise<GetTaskOutcome>): Promise<GetTaskOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get();
    } catch (e) {
      if (!(e instanceof A2AClientError) || attempt >= 10) throw e;
      await sleep(300);
    }
  }
}

const mediaTypes = (task: { artifacts: { parts: { mediaType: string }[] }[] }): string[] => [
  ...new Set(task.artifacts.flatMap((a) => a.parts.map((p) => p.mediaType))),
];

export async function runStory(config: StoryConfig, feed: LedgerFeed, chaos: Chaos, log: Logger): Promise<StoryReport> {
  const { w1, w2, w3 } = config.workers;
  const { lost, retried, guarded } = config.tasks;
  const skillId = config.skillId;
  const timeout = config.ledgerTimeoutMs;
  const step = (name: string, detail: Record<string, unknown> = {}) => log.info({ step: name, ...detail }, name);

  // 1. First contact through the proxies; the ledger probes each worker before any task is dispatched.
  const proxied = {
    w1: await ProxiedWorker.connect(w1),
    w2: await ProxiedWorker.connect(w2),
    w3: await ProxiedWorker.connect(w3),
  };
  const w1Client = await LedgerA2AClient.connect({
    workerId: w1.workerId,
    url: w1.url,
    observer: "orchestrator",
    recorder: null,
  });
  step("cards read through the proxies", { workers: [w1.workerId, w2.workerId, w3.workerId] });
  for (const worker of [w1, w2, w3]) {
    const verified = await feed.waitFor(
      isType(
        "CapabilitiesVerified",
        (d) => d.workerId === worker.workerId && d.skills.some((s) => s.skillId === skillId),
      ),
      timeout,
      `CapabilitiesVerified for ${worker.workerId}`,
    );
    step("worker verified by the ledger's probe", {
      workerId: worker.workerId,
      states: verified.skills.find((s) => s.skillId === skillId)?.states,
      outputModes: verified.skills.find((s) => s.skillId === skillId)?.outputModes,
    });
  }

  // 2. A task W1 answers in application/json, as its card says.
  const retryFirst = await proxied.w1.dispatch("what is a ledger?", {
    correlationId: retried,
    skillId,
    attempt: 1,
    acceptedOutputModes: config.acceptedOutputModes,
  });
  step("dispatched to W1 and answered", {
    correlationId: retried,
    serverTaskId: retryFirst.id,
    state: stateName(retryFirst),
    mediaTypes: mediaTypes(retryFirst),
  });

  // 3. The task W1 will lose: it waits for input.
  const sent = await w1Client.dispatch({
    correlationId: lost,
    text: "need-input draft the quarterly report",
    skillId,
    attempt: 1,
    acceptedOutputModes: config.acceptedOutputModes,
  });
  if (sent.kind !== "task")
    throw new Error(`W1 answered ${sent.kind === "refused" ? sent.error.message : "a message"}, expected a task`);
  if (sent.state !== "TASK_STATE_INPUT_REQUIRED")
    throw new Error(`W1 answered ${sent.state}, expected TASK_STATE_INPUT_REQUIRED`);
  const waiting = sent.task;
  step("dispatched to W1, waiting for input", { correlationId: lost, serverTaskId: waiting.id });

  // 4–5. W1 restarts; asking for the task again answers TaskNotFound.
  await chaos.restartW1();
  step("W1 restarted");
  const asked = await askAgain(() => w1Client.getTask({ correlationId: lost, taskId: waiting.id }));
  if (asked.kind !== "indeterminate")
    throw new Error(
      asked.kind === "task"
        ? `W1 still knows task ${waiting.id} after its restart`
        : `GetTask of ${waiting.id} after W1's restart: ${asked.kind}`,
    );
  step("GetTask answered TaskNotFound", {
    correlationId: lost,
    serverTaskId: waiting.id,
    outcome: asked.kind,
    lastState: asked.lastState,
  });

  // 6. The ledger's verdict: indeterminate, never failed, and a re-dispatch.
  const verdict = await feed.waitFor(
    (r) => r.correlationId === lost && (r.type === "TaskIndeterminate" || r.type === "TaskFailed"),
    timeout,
    `a loss decision for ${lost}`,
  );
  if (verdict.type !== "TaskIndeterminate") throw new Error(`the ledger decided ${verdict.type} for ${lost}`);
  step("the ledger: indeterminate", { correlationId: lost, lastState: verdict.lastState });
  const next = await feed.waitFor(
    (r) => r.correlationId === lost && (r.type === "RedispatchCommanded" || r.type === "ReconciliationBlocked"),
    timeout,
    `a re-dispatch of ${lost}`,
  );
  if (next.type !== "RedispatchCommanded")
    throw new Error(
      `the ledger could not re-dispatch ${lost}: ${next.type === "ReconciliationBlocked" ? next.reason : next.type}`,
    );
  step("the ledger: re-dispatch commanded", {
    correlationId: lost,
    target: next.targetWorkerId,
    attempt: next.attempt,
    resumeState: next.resumeState,
  });

  // 7. The dispatcher sent it; the target's proxy recorded the new task waiting for input.
  const target = [w1, w2, w3].find((w) => w.workerId === next.targetWorkerId);
  const targetProxy = target === w2 ? proxied.w2 : target === w3 ? proxied.w3 : target === w1 ? proxied.w1 : undefined;
  if (target === undefined || targetProxy === undefined)
    throw new Error(`the ledger re-dispatched to ${next.targetWorkerId}, which this orchestrator does not know`);
  const resumed = await feed.waitFor(
    isType(
      "TaskStateObserved",
      (o) => o.correlationId === lost && o.workerId === target.workerId && o.state === "TASK_STATE_INPUT_REQUIRED",
    ),
    timeout,
    `${target.workerId}'s task of ${lost} waiting for input`,
  );
  step("re-dispatched task found on the ledger", {
    correlationId: lost,
    workerId: target.workerId,
    serverTaskId: resumed.serverTaskId,
  });
  const done = await targetProxy.supplyInput(
    { id: resumed.serverTaskId, contextId: resumed.contextId ?? "" },
    "the Q3 figures are attached",
    { correlationId: lost },
  );
  step("input supplied", {
    correlationId: lost,
    workerId: target.workerId,
    state: stateName(done),
    mediaTypes: mediaTypes(done),
  });

  // 8. W1 after a configuration reload: the retry answers text/plain, though the card still says application/json.
  await chaos.reloadW1("text/plain");
  step("W1 reloaded its configuration");
  const retrySecond = await proxied.w1.dispatch("what is a ledger?", {
    correlationId: retried,
    skillId,
    attempt: 2,
    acceptedOutputModes: config.acceptedOutputModes,
  });
  step("retried on W1", {
    correlationId: retried,
    serverTaskId: retrySecond.id,
    state: stateName(retrySecond),
    mediaTypes: mediaTypes(retrySecond),
  });

  // 9. W2 enforces its own card: what it may not emit is refused at the source, and recorded.
  const kept = await proxied.w2.dispatch("need-input as=application/json what is a ledger?", {
    correlationId: guarded,
    skillId,
    attempt: 1,
    acceptedOutputModes: config.acceptedOutputModes,
  });
  step("dispatched to W2, which guards its card", {
    correlationId: guarded,
    serverTaskId: kept.id,
    state: stateName(kept),
    mediaTypes: mediaTypes(kept),
  });

  return {
    runId: config.runId,
    workers: { w1: w1.workerId, w2: w2.workerId, w3: w3.workerId },
    lost: {
      correlationId: lost,
      serverTaskIds: [
        { workerId: w1.workerId, serverTaskId: waiting.id },
        { workerId: target.workerId, serverTaskId: resumed.serverTaskId },
      ],
      redispatchedTo: next.targetWorkerId,
      attempt: next.attempt,
      finalState: stateName(done),
    },
    retried: {
      correlationId: retried,
      serverTaskIds: [
        { workerId: w1.workerId, serverTaskId: retryFirst.id, mediaTypes: mediaTypes(retryFirst) },
        { workerId: w1.workerId, serverTaskId: retrySecond.id, mediaTypes: mediaTypes(retrySecond) },
      ],
    },
    guarded: {
      correlationId: guarded,
      workerId: w2.workerId,
      serverTaskId: kept.id,
      state: stateName(kept),
      mediaTypes: mediaTypes(kept),
    },
  };
}
