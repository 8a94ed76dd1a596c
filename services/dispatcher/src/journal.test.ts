import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { Journal } from "./journal.ts";

const command = { decisionId: "d-1", kind: "RedispatchCommanded" as const, correlationId: "c-1", workerId: "W3" };

describe("the journal", () => {
  it("begins a command once: a second delivery finds the row and counts itself", () => {
    const journal = new Journal(":memory:");
    expect(journal.begin(command, "t/0@5")).toMatchObject({
      isNew: true,
      row: { status: "started", deliveries: 1, source: "t/0@5" },
    });
    expect(journal.begin(command, "t/0@9")).toMatchObject({
      isNew: false,
      row: { status: "started", deliveries: 2, source: "t/0@5" },
    });
  });

  it("lets only the latest delivery of a command not yet sent move it to sending", () => {
    const journal = new Journal(":memory:");
    journal.begin(command, "t/0@5");
    journal.begin(command, "t/0@9");
    expect(journal.claimSending(command.decisionId, 1)).toBe(false);
    expect(journal.claimSending(command.decisionId, 2)).toBe(true);
    expect(journal.claimSending(command.decisionId, 2)).toBe(true); // the same delivery, trying again
    expect(journal.get(command.decisionId)?.status).toBe("sending");
    journal.mark(command.decisionId, "dispatched");
    expect(journal.claimSending(command.decisionId, 2)).toBe(false);
  });

  it("keeps statuses, the observations waiting for the ledger and the server task ids across a reopen of the file", () => {
    const path = join(mkdtempSync(join(tmpdir(), "journal-")), "dispatcher.sqlite");
    const first = new Journal(path);
    first.begin(command, "t/0@5");
    first.mark("d-1", "sending");
    const observation = { type: "TaskDispatched", eventId: "e-1" } as never;
    first.mark("d-1", "dispatched", { observations: [observation], serverTaskIds: ["task-9"] });
    first.close();
    const second = new Journal(path);
    expect(second.awaitingRecording()).toMatchObject([
      { decisionId: "d-1", status: "dispatched", observations: [observation], serverTaskIds: ["task-9"] },
    ]);
    second.mark("d-1", "done");
    expect(second.get("d-1")).toMatchObject({ status: "done", observations: [], serverTaskIds: ["task-9"] });
    expect(second.countByStatus()).toEqual({ done: 1 });
    second.close();
  });

  it("parks one canary per worker and skill: a newer one supersedes the older", () => {
    const journal = new Journal(":memory:");
    const canary = {
      workerId: "W1",
      skillId: "answer",
      state: "TASK_STATE_INPUT_REQUIRED" as const,
      cardHash: "h",
      correlationId: "probe-W1",
      decisionId: "d",
      parkedAt: 1,
    };
    journal.park({ ...canary, serverTaskId: "t-1" });
    journal.park({ ...canary, serverTaskId: "t-2", parkedAt: 2 });
    journal.park({ ...canary, workerId: "W3", serverTaskId: "t-3", parkedAt: 3 });
    expect(journal.parkedCanaries().map((c) => c.serverTaskId)).toEqual(["t-2", "t-3"]);
    journal.canaryPolled("W1", "t-2", "TaskNotFound -32001", "lost");
    expect(journal.canaries().map((c) => [c.serverTaskId, c.status])).toEqual([
      ["t-1", "superseded"],
      ["t-2", "lost"],
      ["t-3", "parked"],
    ]);
  });

  it("keeps a rejected record once per coordinate, with a bounded preview", () => {
    const journal = new Journal(":memory:");
    journal.reject({ topic: "c", partition: 1, offset: "7" }, "DISPATCHER_UNDECODABLE", "bad", Buffer.alloc(4_000, 1));
    journal.reject({ topic: "c", partition: 1, offset: "7" }, "DISPATCHER_UNDECODABLE", "bad", null);
    expect(journal.rejected()).toEqual([
      { topic: "c", partition: 1, offset: "7", reason: "DISPATCHER_UNDECODABLE", detail: "bad" },
    ]);
  });

  it("an operator's retry: a refused recording goes back to dispatched, a command blocked by the configuration to retry; nothing else", () => {
    const journal = new Journal(":memory:");
    const whole = { type: "RedispatchCommanded", decisionId: "d-2", attempt: 2 };
    journal.begin(command, "t/0@1");
    journal.mark("d-1", "dispatched", { observations: [{ type: "TaskDispatched", eventId: "e-1" } as never] });
    journal.mark("d-1", "failed", { detail: "DISPATCHER_RECORDING_REJECTED: 401 unauthorized" });
    journal.begin({ ...command, decisionId: "d-2" }, "t/0@2", whole);
    journal.mark("d-2", "blocked", {
      detail: "DISPATCHER_WORKER_NOT_CONFIGURED: worker W3 is not in the workers file",
    });
    journal.begin({ ...command, decisionId: "d-3" }, "t/0@3", whole);
    journal.mark("d-3", "sending");
    journal.mark("d-3", "abandoned", { detail: "DISPATCHER_OUTCOME_UNKNOWN: in flight" });
    journal.begin({ ...command, decisionId: "d-4" }, "t/0@4");
    journal.mark("d-4", "blocked", { detail: "DISPATCHER_SKILL_NOT_CONFIGURED: no message" });
    expect(journal.retriable().map((r) => r.decisionId)).toEqual(["d-1", "d-2"]);

    expect(journal.requestRetry("d-1")).toEqual({ ok: true, status: "dispatched" });
    expect(journal.get("d-1")).toMatchObject({
      status: "dispatched",
      observations: [{ eventId: "e-1" }],
      detail: expect.stringMatching(/^retry requested; was DISPATCHER_RECORDING_REJECTED/),
    });
    expect(journal.awaitingRecording().map((r) => r.decisionId)).toEqual(["d-1"]);
    expect(journal.requestRetry("d-2")).toEqual({ ok: true, status: "retry" });
    expect(journal.retryRequested()).toMatchObject([{ decisionId: "d-2", command: whole }]);
    expect(journal.claimRetry("d-2")).toBe(true);
    expect(journal.claimRetry("d-2")).toBe(false);
    expect(journal.get("d-2")?.status).toBe("started");
    // Sent and unanswered: never again. Blocked before commands were kept in rows: cannot be rebuilt.
    expect(journal.requestRetry("d-3")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^status abandoned \(DISPATCHER_OUTCOME_UNKNOWN\)/),
    });
    expect(journal.requestRetry("d-4")).toMatchObject({ ok: false, reason: expect.stringMatching(/predates/) });
    expect(journal.requestRetry("nope")).toMatchObject({ ok: false });
  });

  it("removes finished rows older than the retention; a redelivery within it still finds its row", () => {
    let now = 1_000_000;
    const day = 24 * 3_600_000;
    const journal = new Journal(":memory:", () => now);
    const retention = 14 * day;
    journal.begin(command, "t/0@5");
    journal.mark("d-1", "done");
    journal.begin({ ...command, decisionId: "d-open" }, "t/0@6");
    journal.mark("d-open", "dispatched", { observations: [{ type: "TaskDispatched", eventId: "e-9" } as never] });
    const canary = {
      workerId: "W1",
      skillId: "answer",
      state: "TASK_STATE_INPUT_REQUIRED" as const,
      cardHash: "h",
      correlationId: "probe-W1",
      decisionId: "d",
      parkedAt: now,
    };
    journal.park({ ...canary, serverTaskId: "t-1" });
    journal.park({ ...canary, serverTaskId: "t-2" });
    journal.reject({ topic: "c", partition: 0, offset: "1" }, "DISPATCHER_UNDECODABLE", "bad", null);

    now += retention - 1;
    expect(journal.prune(retention)).toEqual({ commands: 0, canaries: 0, rejected: 0 });
    // Kafka delivers the command again within the retention: found, not carried out again.
    expect(journal.begin(command, "t/0@5")).toMatchObject({ isNew: false, row: { status: "done", deliveries: 2 } });

    now += 2;
    expect(journal.prune(retention)).toEqual({ commands: 1, canaries: 1, rejected: 1 });
    expect(journal.get("d-1")).toBeUndefined();
    // What is not finished stays, however old: the row waiting for the ledger, the canary still parked.
    expect(journal.get("d-open")?.status).toBe("dispatched");
    expect(journal.parkedCanaries().map((c) => c.serverTaskId)).toEqual(["t-2"]);
    expect(journal.countByStatus()).toEqual({ dispatched: 1 });
  });

  it("opens a journal written before commands were kept in their rows: its rows read, new ones keep their command", () => {
    const path = join(mkdtempSync(join(tmpdir(), "journal-")), "dispatcher.sqlite");
    const old = new Database(path);
    old.exec(
      "CREATE TABLE command (decision_id TEXT PRIMARY KEY, kind TEXT NOT NULL, correlation_id TEXT NOT NULL, worker_id TEXT, status TEXT NOT NULL, detail TEXT, observations TEXT NOT NULL DEFAULT '[]', server_task_ids TEXT NOT NULL DEFAULT '[]', source TEXT NOT NULL, started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deliveries INTEGER NOT NULL DEFAULT 1)",
    );
    old
      .prepare(
        "INSERT INTO command (decision_id, kind, correlation_id, worker_id, status, source, started_at, updated_at) VALUES ('d-old', 'RedispatchCommanded', 'c', 'W3', 'done', 's', 1, 1)",
      )
      .run();
    old.close();
    const journal = new Journal(path);
    expect(journal.get("d-old")).toMatchObject({ status: "done", command: null });
    journal.begin({ ...command, decisionId: "d-new" }, "t/0@1", { decisionId: "d-new" });
    expect(journal.get("d-new")?.command).toEqual({ decisionId: "d-new" });
    journal.close();
  });
});
