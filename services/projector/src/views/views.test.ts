import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { defaultRetention, defaultRuleSet, parseObservation, replayLog } from "@a2a-ledger/core";
import { topicNames } from "@a2a-ledger/kafka";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput } from "../inputs.ts";
import { Cursors } from "../cursor.ts";
import { activeGeneration } from "../store/generations.ts";
import { tableNames } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { newStore, openStoreAt, storeKinds, storeLocation, useStores } from "../../test/stores.ts";
import { inputsFor, story, type TopicInputs } from "../../test/story.ts";
import { bigTask } from "../../test/big-task.ts";
import { lineage, observationsNdjson } from "./lineage.ts";
import { queue, taskList, violationList, waitingByStatus } from "./lists.ts";
import { workerDetail } from "./workers.ts";
import { writeBatch } from "./writer.ts";

useStores();
const run = promisify(execFile);
const cursors = new Cursors("test-secret");

/**
 * The records the topics would hold for `observations` decided by the core's fold with the reconciler's
 * default retention (30 days without an outcome: CorrelationExpired), as a reconciler would write them.
 */
function retainedInputs(observations: readonly Observation[]): TopicInputs[] {
  const { decisions } = replayLog(observations, defaultRuleSet, {
    policy: { trustedVendors: [] },
    retention: defaultRetention,
  });
  const source = (topic: string, offset: number) => ({ topic, partition: 0, offset, timestamp: 1_750_000_000_000 });
  const commands = decisions.filter((d) => d.type === "RedispatchCommanded" || d.type === "ProbeRequested");
  const of = (kind: "decision" | "command", topic: string, list: Decision[]): TopicInputs => ({
    topic,
    partition: 0,
    inputs: list.map((record, i): ProjectorInput => ({ kind, source: source(topic, i), record })),
  });
  return [
    {
      topic: topicNames.observations,
      partition: 0,
      inputs: observations.map(
        (record, i): ProjectorInput => ({ kind: "observation", source: source(topicNames.observations, i), record }),
      ),
    },
    of("decision", topicNames.decisions, decisions),
    of("command", topicNames.commands, commands),
  ];
}

async function load(store: Store, topicInputs: readonly TopicInputs[], batch = 3): Promise<number> {
  const gen = (await store.read(activeGeneration)) as number;
  for (const { topic, partition, inputs } of topicInputs) {
    for (let i = 0; i < inputs.length; i += batch)
      await writeBatch(store, gen, topic, partition, inputs.slice(i, i + batch), { lowWatermark: 0 });
  }
  return gen;
}

describe.each(storeKinds)("views on %s", (kind) => {
  it("shows the DESIGN §1 story: two attempts, the loss as indeterminate, the re-dispatch, the violations", async () => {
    const store = await newStore(kind);
    const gen = await load(store, inputsFor(story()));
    const t = tableNames(gen);
    const view = await store.read((r) => lineage(r, t, cursors, "task-42", { limit: 100 }));
    expect(view).toBeDefined();
    if (view === undefined) return;
    expect(view.attempts.map((a) => [a.attempt, a.workerId, a.serverTasks.map((s) => s.serverTaskId)])).toEqual([
      [1, "w-acme", ["acme-7f3a"]],
      [2, "w-gamma", ["gamma-19c2"]],
    ]);
    expect(view.attempts[0]?.dispatch).toMatchObject({
      skillId: "summarize",
      acceptedOutputModes: ["text/plain", "text/markdown"],
      cardHash: "e38a1deb52f0cb4e3671dc050368cf439a8ed6d883da3b29128fa7c5ba9de535",
    });
    expect(view.attempts[0]?.timeline.map((l) => [l.observer, l.spans.map((s) => s.state)])).toEqual([
      ["orchestrator", ["TASK_STATE_SUBMITTED"]],
      ["proxy", ["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]],
    ]);
    expect(view.indeterminate).toEqual([
      expect.objectContaining({
        attempt: 1,
        serverTaskId: "acme-7f3a",
        lastState: "TASK_STATE_INPUT_REQUIRED",
        from: "2025-06-02T09:20:00.000Z",
        to: "2025-06-02T09:20:05.000Z",
      }),
    ]);
    expect(view.decisions.map((d) => d.type)).toEqual(
      expect.arrayContaining(["TaskIndeterminate", "RedispatchCommanded", "TaskReconciled", "ContractViolation"]),
    );
    expect(view.decisions.filter((d) => d.kind === "command").map((d) => d.type)).toEqual(["RedispatchCommanded"]);
    const indeterminate = view.decisions.find((d) => d.type === "TaskIndeterminate");
    expect(indeterminate?.causeEventIds).toContain("not-found-1");
    expect(view.causes["not-found-1"]).toMatchObject({ type: "TaskNotFoundObserved", observer: "orchestrator" });
    expect(view.violations.map((v) => v.kind)).toContain("DIVERGENT_ARTIFACTS");
    expect(view.artifacts.map((a) => [a.artifactId, a.mediaTypes])).toEqual([
      ["art-1", ["text/plain"]],
      ["art-9", ["text/markdown"]],
    ]);
    expect(view.status).toBe("reconciled");
    expect(view.events.items).toHaveLength(view.eventCount);
  });

  it("derives the status from the decisions, whatever order the topics are read in", async () => {
    const inputs = inputsFor(story());
    const forward = await newStore(kind);
    const backward = await newStore(kind);
    await load(forward, inputs);
    const genB = await load(backward, [...inputs].reverse(), 1);
    const atLoss = inputsFor(
      story().filter((o) => !["dispatch-2", "state-4", "artifact-2", "state-5"].includes(o.eventId)),
    );
    const partial = await newStore(kind);
    const genP = await load(partial, atLoss);
    const statusOf = async (store: Store, gen: number) =>
      (await store.read((r) => lineage(r, tableNames(gen), cursors, "task-42", { limit: 1 })))?.status;
    expect(await statusOf(backward, genB)).toBe("reconciled");
    expect(await statusOf(partial, genP)).toBe("re-dispatched");
    const q = await partial.read((r) =>
      queue(r, tableNames(genP), cursors, Date.parse("2025-06-02T10:20:00Z"), { limit: 10 }),
    );
    expect(q.items).toEqual([]);
    const onlyLoss = inputsFor(story()).map((ti) => ({
      ...ti,
      inputs: ti.inputs.filter(
        (i) =>
          !(i.kind === "decision" && i.record.type === "RedispatchCommanded") &&
          !(
            i.kind === "observation" && ["dispatch-2", "state-4", "artifact-2", "state-5"].includes(i.record.eventId)
          ) &&
          !(i.kind === "decision" && i.record.type === "TaskReconciled"),
      ),
    }));
    const lost = await newStore(kind);
    const genL = await load(lost, onlyLoss);
    expect(await statusOf(lost, genL)).toBe("indeterminate");
    const waiting = await lost.read((r) =>
      queue(r, tableNames(genL), cursors, Date.parse("2025-06-02T10:20:00Z"), { limit: 10 }),
    );
    expect(waiting.items.map((i) => [i.correlationId, i.status, i.waitedMs])).toEqual([
      ["task-42", "indeterminate", 60 * 60 * 1000],
    ]);
    // What the operator's alert reads (a2a_projector_oldest_waiting_seconds): since when the oldest has waited.
    expect(await lost.read((r) => waitingByStatus(r, tableNames(genL)))).toEqual({
      indeterminate: { count: 1, oldestSince: Date.parse("2025-06-02T09:20:00Z") },
      blocked: { count: 0, oldestSince: null },
      expired: { count: 0, oldestSince: null },
    });
    expect(await partial.read((r) => waitingByStatus(r, tableNames(genP)))).toEqual({
      indeterminate: { count: 0, oldestSince: null },
      blocked: { count: 0, oldestSince: null },
      expired: { count: 0, oldestSince: null },
    });
  });

  it("links a re-dispatch's target task to the attempt the re-dispatch planned, as the fold does, whatever order the topics are read in", async () => {
    // w-gamma first got a dispatch of its own that never showed a task; the re-dispatch to w-gamma is
    // then seen by its task before its TaskDispatched (the dispatcher's observation comes last).
    const observations = story().flatMap((o): Observation[] => {
      if (o.eventId === "dispatch-1")
        return [
          {
            ...o,
            eventId: "dispatch-0",
            occurredAt: o.occurredAt - 60_000,
            workerId: "w-gamma",
            messageId: "msg-42-0",
          } as Observation,
          o,
        ];
      return o.eventId === "dispatch-2" ? [] : [o];
    });
    const late = story().find((o) => o.eventId === "dispatch-2") as Observation;
    const inputs = inputsFor([...observations, late]);
    const redispatch = inputs
      .flatMap((ti) => ti.inputs)
      .flatMap((i) => (i.kind === "decision" && i.record.type === "RedispatchCommanded" ? [i.record] : []))[0];
    expect(redispatch).toMatchObject({ targetWorkerId: "w-gamma", attempt: 3 });
    const view = async (store: Store, gen: number) =>
      store.read((r) => lineage(r, tableNames(gen), cursors, "task-42", { limit: 100 }));
    const stores = await Promise.all([0, 1].map(() => newStore(kind)));
    // Every observation stored (and linked) before the decisions are read; then the decisions first.
    const observationsFirst = await view(stores[0] as Store, await load(stores[0] as Store, inputs));
    const decisionsFirst = await view(stores[1] as Store, await load(stores[1] as Store, [...inputs].reverse(), 1));
    expect(
      observationsFirst?.attempts.map((a) => [a.attempt, a.workerId, a.serverTasks.map((st) => st.serverTaskId)]),
    ).toEqual([
      [1, "w-gamma", []],
      [2, "w-acme", ["acme-7f3a"]],
      [3, "w-gamma", ["gamma-19c2"]],
    ]);
    expect(
      observationsFirst?.events.items
        .filter((e) => e.serverTaskId === "gamma-19c2" && e.kind === "observation")
        .map((e) => e.attempt),
    ).toEqual([3, 3, 3]);
    expect(observationsFirst).toEqual(decisionsFirst);
  });

  it("shows an operator's resolution on the queue beside the correlation, and among the latest resolutions with where it stands", async () => {
    const onlyLoss = inputsFor(story()).map((ti) => ({
      ...ti,
      inputs: ti.inputs.filter(
        (i) =>
          !(i.kind === "decision" && ["RedispatchCommanded", "TaskReconciled"].includes(i.record.type)) &&
          !(i.kind === "observation" && ["dispatch-2", "state-4", "artifact-2", "state-5"].includes(i.record.eventId)),
      ),
    }));
    const resolution = parseObservation({
      type: "OperatorResolved",
      eventId: "resolve-1",
      correlationId: "task-42",
      occurredAt: "2025-06-02T10:00:00Z",
      observer: "operator:alice",
      workerId: "w-gamma",
      action: "REDISPATCH",
      reason: "w-gamma's owner takes it <b>now</b>",
      principal: "ops-desk",
    });
    if (!resolution.ok) throw new Error(JSON.stringify(resolution.issues));
    const withResolution = onlyLoss.map((ti): TopicInputs => {
      const last = ti.inputs.at(-1);
      if (ti.topic !== topicNames.observations || last === undefined) return ti;
      const source = { ...last.source, offset: last.source.offset + 1 };
      return { ...ti, inputs: [...ti.inputs, { kind: "observation", source, record: resolution.observation }] };
    });
    const store = await newStore(kind);
    const t = tableNames(await load(store, withResolution));
    const q = await store.read((r) => queue(r, t, cursors, Date.parse("2025-06-02T10:20:00Z"), { limit: 10 }));
    const shown = {
      correlationId: "task-42",
      eventId: "resolve-1",
      at: "2025-06-02T10:00:00.000Z",
      by: "ops-desk",
      action: "REDISPATCH",
      workerId: "w-gamma",
      reason: "w-gamma's owner takes it <b>now</b>",
    };
    // Not carried out (these inputs hold no decision on it): it stays on the queue, with the resolution beside it.
    expect(q.items.map((i) => [i.correlationId, i.status, i.resolutions])).toEqual([
      ["task-42", "indeterminate", [shown]],
    ]);
    expect(q.resolved).toEqual([{ ...shown, status: "indeterminate" }]);
    const lineageView = await store.read((r) => lineage(r, t, cursors, "task-42", { limit: 100 }));
    expect(lineageView?.events.items.map((e) => e.type)).toContain("OperatorResolved");
  });

  it("puts a correlation the reconciler let go of without an outcome on the queue as expired, with its expiry", async () => {
    // task-42 lost and blocked (w-beta and w-gamma never probed); task-43, the same 40 days later, carries
    // the stream past task-42's horizon: task-42 expires 30 days after its loss, task-43 waits blocked.
    const day = 86_400_000;
    const lostAt = Date.parse("2025-06-02T09:20:00Z");
    const base = story().filter(
      (o) =>
        !["dispatch-2", "state-4", "artifact-2", "state-5", "probe-done-w-beta", "probe-done-w-gamma"].includes(
          o.eventId,
        ),
    );
    const later = base
      .filter((o) => o.correlationId === "task-42")
      .map((o) => ({
        ...o,
        correlationId: "task-43",
        eventId: `${o.eventId}-43`,
        occurredAt: o.occurredAt + 40 * day,
      }));
    const inputs = retainedInputs([...base, ...later]);
    const expiry = inputs
      .flatMap((ti) => ti.inputs)
      .flatMap((i) => (i.kind === "decision" && i.record.type === "CorrelationExpired" ? [i.record] : []));
    expect(expiry).toMatchObject([
      { correlationId: "task-42", lastStatus: "blocked", lastEventAt: lostAt, decidedAt: lostAt + 30 * day },
    ]);
    const forward = await newStore(kind);
    const backward = await newStore(kind);
    const gen = await load(forward, inputs);
    const genB = await load(backward, [...inputs].reverse(), 1);
    const t = tableNames(gen);

    const view = await forward.read((r) => lineage(r, t, cursors, "task-42", { limit: 100 }));
    expect(view).toMatchObject({
      status: "expired",
      waitingSince: "2025-06-02T09:20:00.000Z",
      statusDecision: { type: "CorrelationExpired", decidedAt: "2025-07-02T09:20:00.000Z" },
      blockedReason: null,
      expiry: {
        lastStatus: "blocked",
        lastEventAt: "2025-06-02T09:20:00.000Z",
        idleMs: 30 * day,
        reason: "no event for 30 days while blocked: the reconciler stopped watching it",
      },
    });
    // The decision is in the lineage like any other, with its cause (the correlation's last event).
    const decision = view?.decisions.find((d) => d.type === "CorrelationExpired");
    expect(decision).toMatchObject({ kind: "decision", workerId: "w-acme", causeEventIds: ["not-found-1"] });
    expect(decision?.record).toMatchObject({ lastStatus: "blocked", reason: expect.stringContaining("30 days") });
    expect(view?.causes["not-found-1"]).toMatchObject({ type: "TaskNotFoundObserved" });
    expect(view?.events.items.map((e) => e.type)).toContain("CorrelationExpired");
    // The loss no longer waits for the reconciler: the expiry ended its indeterminate period.
    expect(view?.indeterminate).toEqual([
      expect.objectContaining({
        from: "2025-06-02T09:20:00.000Z",
        to: "2025-07-02T09:20:00.000Z",
        endedBy: "CorrelationExpired",
      }),
    ]);
    expect(await backward.read((r) => lineage(r, tableNames(genB), cursors, "task-42", { limit: 100 }))).toEqual(view);

    // The queue: both, the longest waiting first; the expired one counted apart, with its expiry.
    const now = lostAt + 50 * day;
    const q = await forward.read((r) => queue(r, t, cursors, now, { limit: 10 }));
    expect(q.counts).toEqual({ indeterminate: 0, blocked: 1, expired: 1 });
    expect(q.items.map((i) => [i.correlationId, i.status, i.waitedMs])).toEqual([
      ["task-42", "expired", 50 * day],
      ["task-43", "blocked", 10 * day],
    ]);
    expect(q.items.map((i) => i.expiry?.lastStatus ?? null)).toEqual(["blocked", null]);
    expect(q.items[1]?.blockedReason).toMatch(/^no worker verifies/);
    const first = await forward.read((r) => queue(r, t, cursors, now, { limit: 1 }));
    const second = await forward.read((r) =>
      queue(r, t, cursors, now, { limit: 1, cursor: first.nextCursor ?? undefined }),
    );
    expect([...first.items, ...second.items].map((i) => i.correlationId)).toEqual(["task-42", "task-43"]);
    expect(second.nextCursor).toBeNull();
    expect(await forward.read((r) => waitingByStatus(r, t))).toEqual({
      indeterminate: { count: 0, oldestSince: null },
      blocked: { count: 1, oldestSince: lostAt + 40 * day },
      expired: { count: 1, oldestSince: lostAt },
    });
    expect(await backward.read((r) => waitingByStatus(r, tableNames(genB)))).toEqual(
      await forward.read((r) => waitingByStatus(r, t)),
    );
    const listed = await forward.read((r) => taskList(r, t, cursors, { status: "expired" }, { limit: 10 }));
    expect(listed.items.map((i) => [i.correlationId, i.status])).toEqual([["task-42", "expired"]]);

    // Seen again after the expiry (the reconciler opens it anew) and completed: off the queue.
    const done = story().find((o) => o.eventId === "state-5") as Extract<Observation, { type: "TaskStateObserved" }>;
    const again: Observation = {
      ...done,
      eventId: "state-late",
      workerId: "w-acme",
      serverTaskId: "acme-7f3a",
      occurredAt: lostAt + 45 * day,
    };
    const revived = await newStore(kind);
    const genR = await load(revived, retainedInputs([...base, ...later, again]));
    const tr = tableNames(genR);
    expect((await revived.read((r) => lineage(r, tr, cursors, "task-42", { limit: 1 })))?.status).toBe("completed");
    expect((await revived.read((r) => queue(r, tr, cursors, now, { limit: 10 }))).counts).toEqual({
      indeterminate: 0,
      blocked: 1,
      expired: 0,
    });
  });

  it("keeps each task's keys at the task's first event even when earlier events arrive later", async () => {
    const store = await newStore(kind);
    const gen = await load(store, [...inputsFor(story())].reverse(), 1);
    const t = tableNames(gen);
    const mismatched = await store.read((r) =>
      r.all(
        `SELECT k.correlation_id FROM ${t.taskKey} k JOIN ${t.task} x ON x.correlation_id = k.correlation_id WHERE k.first_at <> x.first_at`,
      ),
    );
    expect(mismatched).toEqual([]);
    const byWorker = await store.read((r) => taskList(r, t, cursors, { workerId: "w-gamma" }, { limit: 10 }));
    expect(byWorker.items.map((i) => [i.correlationId, i.firstAt])).toEqual([["task-42", "2025-06-02T09:10:00.000Z"]]);
  });

  it("changes nothing when a batch is delivered again", async () => {
    const store = await newStore(kind);
    const inputs = inputsFor(story());
    const gen = await load(store, inputs);
    const before = await store.read((r) => lineage(r, tableNames(gen), cursors, "task-42", { limit: 100 }));
    for (const { topic, partition, inputs: all } of inputs) {
      const outcome = await writeBatch(store, gen, topic, partition, all, { lowWatermark: 0 });
      expect(outcome.kind).toBe("already-projected");
    }
    expect(await store.read((r) => lineage(r, tableNames(gen), cursors, "task-42", { limit: 100 }))).toEqual(before);
  });

  it("asks to seek back when a batch starts after the stored offset, unless the fetch covered the offsets in between", async () => {
    const store = await newStore(kind);
    const [observations] = inputsFor(story());
    const gen = (await store.read(activeGeneration)) as number;
    if (observations === undefined) throw new Error("no observations");
    await writeBatch(store, gen, observations.topic, 0, observations.inputs.slice(0, 2), { lowWatermark: 0 });
    const outcome = await writeBatch(store, gen, observations.topic, 0, observations.inputs.slice(5, 7), {
      lowWatermark: 0,
    });
    expect(outcome).toEqual({ kind: "gap", next: 2 });
    // Offsets 2–4 were transaction markers or aborted records of a fetch that covered them: not a gap.
    const covered = await writeBatch(store, gen, observations.topic, 0, observations.inputs.slice(5, 7), {
      lowWatermark: 0,
      readFrom: 2,
    });
    expect(covered).toMatchObject({ kind: "written", next: 7 });
  });

  it("lists tasks by status, worker and any id, and pages with cursors bound to their filters", async () => {
    const store = await newStore(kind);
    const gen = await load(store, inputsFor(story()));
    const t = tableNames(gen);
    const all = await store.read((r) => taskList(r, t, cursors, {}, { limit: 10 }));
    expect(all.items.map((i) => i.correlationId)).toEqual(["task-42"]);
    expect(all.items[0]?.workers).toEqual(["w-acme", "w-gamma"]);
    for (const q of ["task-42", "gamma-19c2", "acme-7f3a", "ctx-42"]) {
      expect(
        (await store.read((r) => taskList(r, t, cursors, { q }, { limit: 10 }))).items.map((i) => i.correlationId),
      ).toEqual(["task-42"]);
    }
    expect(
      (await store.read((r) => taskList(r, t, cursors, { q: "probe-w-acme" }, { limit: 10 }))).items.map(
        (i) => i.correlationId,
      ),
    ).toEqual(["probe-w-acme"]);
    expect((await store.read((r) => taskList(r, t, cursors, { status: "running" }, { limit: 10 }))).items).toEqual([]);
    expect((await store.read((r) => taskList(r, t, cursors, { workerId: "w-beta" }, { limit: 10 }))).items).toEqual([]);
    expect((await store.read((r) => taskList(r, t, cursors, { q: "x' OR '1'='1" }, { limit: 10 }))).items).toEqual([]);
    const violations = await store.read((r) => violationList(r, t, cursors, {}, { limit: 1 }));
    expect(violations.items).toHaveLength(1);
    expect(violations.nextCursor).not.toBeNull();
    const next = await store.read((r) =>
      violationList(r, t, cursors, {}, { limit: 100, cursor: violations.nextCursor ?? undefined }),
    );
    expect(next.items.map((v) => v.decisionId)).not.toContain(violations.items[0]?.decisionId);
    await expect(
      store.read((r) =>
        violationList(
          r,
          t,
          cursors,
          { kind: "DIVERGENT_ARTIFACTS" },
          { limit: 1, cursor: violations.nextCursor ?? undefined },
        ),
      ),
    ).rejects.toMatchObject({ code: "PROJECTOR_BAD_CURSOR" });
  });

  it("exports the correlation's observations as NDJSON that parses back into the same observations", async () => {
    const store = await newStore(kind);
    const gen = await load(store, inputsFor(story()));
    const pages = await observationsNdjson((fn) => store.read((r) => fn(r, tableNames(gen))), "task-42");
    let text = "";
    for await (const page of pages ?? []) text += page;
    const lines = text.split("\n").filter((l) => l !== "");
    const original = story().filter((o) => o.correlationId === "task-42");
    expect(
      lines.map((l) => {
        const p = parseObservation(JSON.parse(l));
        if (!p.ok) throw new Error(JSON.stringify(p.issues));
        return p.observation;
      }),
    ).toEqual(original);
  });

  it("shows workers: card history, advertised vs verified per skill, and trust or verify with the reason", async () => {
    const store = await newStore(kind);
    const gen = await load(store, inputsFor(story()));
    const t = tableNames(gen);
    const acme = await store.read((r) => workerDetail(r, t, { trustedVendors: ["Gamma"] }, "w-acme"));
    expect(acme?.skills).toEqual([
      expect.objectContaining({
        skillId: "summarize",
        advertised: expect.objectContaining({ outputModes: ["text/plain"] }),
        verified: expect.objectContaining({ outputModes: ["text/plain"] }),
      }),
    ]);
    expect(acme?.trust.policy).toBe("verify");
    expect(acme?.cardHistory).toHaveLength(1);
    const gamma = await store.read((r) => workerDetail(r, t, { trustedVendors: ["Gamma"] }, "w-gamma"));
    expect(gamma?.trust).toEqual({
      policy: "trust",
      policyVersion: null,
      reasons: [expect.stringContaining("trusted")],
    });
    // A recorded history: the version in force now decides, and the verdict names it.
    const versions = [
      { version: 1, validFrom: 0, trustedVendors: ["Gamma"] },
      { version: 2, validFrom: Date.now() + 3_600_000, trustedVendors: [] },
    ];
    const recorded = await store.read((r) => workerDetail(r, t, { versions }, "w-gamma"));
    expect(recorded?.trust).toEqual({
      policy: "trust",
      policyVersion: 1,
      reasons: [expect.stringContaining("trusted")],
    });
    const later = await store.read((r) =>
      workerDetail(r, t, { versions: [...versions, { version: 3, validFrom: 0, trustedVendors: [] }] }, "w-gamma"),
    );
    expect(later?.trust).toMatchObject({
      policy: "verify",
      policyVersion: 3,
      reasons: [expect.stringContaining("not a trusted vendor (trust policy version 3)")],
    });
    expect(await store.read((r) => workerDetail(r, t, { trustedVendors: [] }, "nobody"))).toBeUndefined();
  });
});

describe.each(storeKinds)("a task with 10,000 events on %s", (kind) => {
  it("pages its events server-side by cursor and draws its timeline as a few spans", async () => {
    const store = await newStore(kind);
    const observations = bigTask("big-1", 10_000);
    const gen = await load(store, inputsFor(observations), 1_000);
    const t = tableNames(gen);
    const started = performance.now();
    const first = await store.read((r) => lineage(r, t, cursors, "big-1", { limit: 200 }));
    const firstMs = performance.now() - started;
    expect(first?.eventCount).toBe(observations.length);
    expect(first?.events.items).toHaveLength(200);
    expect(
      first?.attempts.map((a) => a.timeline.reduce((n, l) => n + l.spans.length, 0)).reduce((a, b) => a + b, 0),
    ).toBeLessThan(200);
    const seen = new Set(first?.events.items.map((e) => e.id));
    let cursor = first?.events.nextCursor ?? null;
    let pages = 1;
    while (cursor !== null && pages < 100) {
      const page = await store.read((r) =>
        lineage(r, t, cursors, "big-1", { limit: 1_000, cursor: cursor ?? undefined }),
      );
      for (const e of page?.events.items ?? []) {
        expect(seen.has(e.id)).toBe(false);
        seen.add(e.id);
      }
      cursor = page?.events.nextCursor ?? null;
      pages += 1;
    }
    expect(seen.size).toBe(observations.length);
    expect(firstMs, "the first page of a 10,000-event lineage").toBeLessThan(5_000);
  });
});

describe.each(storeKinds)("migrations on %s", (kind) => {
  it("settle on one active generation when several processes open an empty database at once", async () => {
    const location = await storeLocation(kind);
    const script = new URL("../../test/migrate-process.ts", import.meta.url).pathname;
    const gens = await Promise.all(
      [0, 1, 2].map(async () =>
        (await run(process.execPath, ["--import", "tsx", script, location], { timeout: 60_000 })).stdout.trim(),
      ),
    );
    expect(new Set(gens).size).toBe(1);
    const store = openStoreAt(kind, location);
    try {
      expect(await store.read((r) => r.all("SELECT gen FROM projector_generation"))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
