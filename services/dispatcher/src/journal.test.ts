import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Journal } from "./journal.ts";

const command = { decisionId: "d-1", kind: "RedispatchCommanded" as const, correlationId: "c-1", workerId: "W3" };

describe("the journal", () => {
  it("begins a command once: a second delivery finds the row and counts itself", () => {
    const journal = new Journal(":memory:");
    expect(journal.begin(command, "t/0@5")).toMatchObject({ isNew: true, row: { status: "started", deliveries: 1, source: "t/0@5" } });
    expect(journal.begin(command, "t/0@9")).toMatchObject({ isNew: false, row: { status: "started", deliveries: 2, source: "t/0@5" } });
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
    expect(second.awaitingRecording()).toMatchObject([{ decisionId: "d-1", status: "dispatched", observations: [observation], serverTaskIds: ["task-9"] }]);
    second.mark("d-1", "done");
    expect(second.get("d-1")).toMatchObject({ status: "done", observations: [], serverTaskIds: ["task-9"] });
    expect(second.countByStatus()).toEqual({ done: 1 });
    second.close();
  });

  it("parks one canary per worker and skill: a newer one supersedes the older", () => {
    const journal = new Journal(":memory:");
    const canary = { workerId: "W1", skillId: "answer", state: "TASK_STATE_INPUT_REQUIRED" as const, cardHash: "h", correlationId: "probe-W1", decisionId: "d", parkedAt: 1 };
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
    expect(journal.rejected()).toEqual([{ topic: "c", partition: 1, offset: "7", reason: "DISPATCHER_UNDECODABLE", detail: "bad" }]);
  });
});
