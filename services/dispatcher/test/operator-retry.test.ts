/**
 * The operator's retry path (`npm run retry`, src/retry.ts), in process, against a real `@a2a-js/sdk`
 * mesh worker: a re-dispatch blocked because its worker was not in the workers file is carried out once
 * the file names it; observations ingest refused (a 401: a wrong token) are sent again, with the same
 * event ids and without the worker being asked again, once ingest takes them. Ingest is a small HTTP
 * server here that answers as ingest does (401 with its error shape, then 202): the refusal is the fault
 * injected, as a full disk is for the proxy.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { createLogger } from "@a2a-ledger/logging";
import { startJsAgent, type RunningJsAgent } from "@a2a-ledger/mesh-agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/dispatcher.ts";
import { Journal } from "../src/journal.ts";
import { createMetrics } from "../src/metrics.ts";
import { retryCommands } from "../src/retry.ts";
import { redispatchCommand } from "./commands.ts";
import { type RecordingIngest, startRecordingIngest } from "./recording-ingest.ts";

const dir = mkdtempSync(join(tmpdir(), "dispatcher-retry-"));
const journalPath = join(dir, "dispatcher.sqlite");
let agent: RunningJsAgent;
let ingest: RecordingIngest;

beforeAll(async () => {
  agent = await startJsAgent({ kind: "w1" });
  ingest = await startRecordingIngest(401);
});
afterAll(async () => {
  await agent?.close();
  await ingest?.close();
});

const workersFile = (workers: Record<string, unknown>) => {
  const path = join(dir, `workers-${Object.keys(workers).join("-")}.json`);
  writeFileSync(path, JSON.stringify({ workers }));
  return path;
};
const dispatcherWith = (file: string) =>
  new Dispatcher(
    loadConfig({
      A2A_LEDGER_DISPATCHER_WORKERS_FILE: file,
      A2A_LEDGER_DISPATCHER_JOURNAL_PATH: journalPath,
      A2A_LEDGER_DISPATCHER_INGEST_URL: ingest.url,
      A2A_LEDGER_DISPATCHER_LOG_LEVEL: "silent",
    }),
    createLogger("dispatcher", "silent"),
    createMetrics(),
  );
const command = redispatchCommand("retry");
const operator = (ids: string[], all = false) => {
  const journal = new Journal(journalPath);
  try {
    return retryCommands(journal, ids, all);
  } finally {
    journal.close();
  }
};

describe("the operator's retry", () => {
  it("carries out a command blocked by the workers file once it names the worker, and re-sends refused observations once ingest takes them", async () => {
    // W1 is not in the workers file: blocked, nothing sent.
    const first = dispatcherWith(
      workersFile({ W9: { url: "http://127.0.0.1:9", skills: { answer: { redispatch: { message: "again" } } } } }),
    );
    await first.execute(command, { topic: "a2a.commands.v1", partition: 0, offset: "7" });
    expect(first.journal.get(command.decisionId)).toMatchObject({
      status: "blocked",
      detail: expect.stringMatching(/^DISPATCHER_WORKER_NOT_CONFIGURED/),
    });
    // A retry for a command nobody asked to retry does nothing; the same file still blocks it.
    await first.retryRequested();
    expect(first.journal.get(command.decisionId)?.status).toBe("blocked");
    await first.stop();

    // The file is fixed and the dispatcher restarted; the operator asks for the retry. Ingest refuses (401).
    expect(operator([command.decisionId])).toEqual({
      lines: [`${command.decisionId}: will be carried out again`],
      exitCode: 0,
    });
    const second = dispatcherWith(
      workersFile({
        W1: {
          url: agent.url,
          skills: { answer: { redispatch: { message: "{correlationId}: answer again (attempt {attempt})" } } },
        },
      }),
    );
    await second.retryRequested();
    const refused = second.journal.get(command.decisionId);
    expect(refused).toMatchObject({
      status: "failed",
      detail: expect.stringMatching(/^DISPATCHER_RECORDING_REJECTED/),
    });
    const kept = refused?.observations ?? [];
    expect(kept.map((o) => o.type)).toEqual(["TaskDispatched", "TaskStateObserved"]);
    const serverTaskId = (kept[1] as Extract<ObservationInput, { type: "TaskStateObserved" }>).serverTaskId;
    expect(ingest.received).toEqual([]);
    // Not retried yet: nothing happens on its own.
    await second.retryRequested();
    expect(second.journal.get(command.decisionId)?.status).toBe("failed");

    // Ingest takes them now; the operator retries every row that qualifies.
    ingest.status = 202;
    expect(operator([], true)).toEqual({
      lines: [`${command.decisionId}: its observations will be sent again`],
      exitCode: 0,
    });
    await second.retryRequested();
    expect(second.journal.get(command.decisionId)?.status).toBe("done");
    // The very observations kept (same event ids, the same server task: the worker was not asked again).
    expect(ingest.received).toEqual([kept]);
    expect(ingest.received.flat().map((o) => o.eventId)).toEqual([
      `dispatcher:${command.decisionId}:dispatch`,
      `dispatcher:${command.decisionId}:state:${serverTaskId}:TASK_STATE_COMPLETED`,
    ]);
    // Done is final: a further retry is refused and says why.
    expect(operator([command.decisionId])).toEqual({
      lines: [expect.stringMatching(/not retried: status done/)],
      exitCode: 1,
    });
    await second.stop();
  });

  it("tries a command again while its worker's proxy cannot be reached, and sends it once the proxy is back; fails it at once with no retry time", async () => {
    ingest.status = 202;
    // The proxy (here the worker itself) is down: its port answers nothing, then it starts again there.
    const down = await startJsAgent({ kind: "w1" });
    const port = Number(new URL(down.url).port);
    await down.close();
    const file = workersFile({
      W1: {
        url: down.url,
        skills: { answer: { redispatch: { message: "{correlationId}: again (attempt {attempt})" } } },
      },
    });
    const metrics = createMetrics();
    const patient = new Dispatcher(
      loadConfig({
        A2A_LEDGER_DISPATCHER_WORKERS_FILE: file,
        A2A_LEDGER_DISPATCHER_JOURNAL_PATH: join(dir, "patient.sqlite"),
        A2A_LEDGER_DISPATCHER_INGEST_URL: ingest.url,
        A2A_LEDGER_DISPATCHER_UNAVAILABLE_RETRY_MS: "30000",
        A2A_LEDGER_DISPATCHER_LOG_LEVEL: "silent",
      }),
      createLogger("dispatcher", "silent"),
      metrics,
    );
    const later = { ...command, decisionId: "lost-later:RedispatchCommanded:0", correlationId: "task-later" };
    const before = ingest.received.length;
    let back: RunningJsAgent | undefined;
    const restart = new Promise((r) => setTimeout(r, 1_500)).then(async () => {
      back = await startJsAgent({ kind: "w1", port });
    });
    try {
      await patient.execute(later, { topic: "a2a.commands.v1", partition: 0, offset: "8" });
      await restart;
      expect(patient.journal.get(later.decisionId)?.status).toBe("done");
      const tries = (await metrics.unreachableRetries.get()).values.find(
        (v) => v.labels.kind === "RedispatchCommanded",
      );
      expect(tries?.value ?? 0, "tried again while the proxy was down").toBeGreaterThan(0);
      const sent = ingest.received.slice(before).flat();
      expect(
        sent.filter((o) => o.type === "TaskDispatched"),
        "sent once",
      ).toHaveLength(1);
      await patient.stop();

      // No retry time: the same outage fails the command at once, nothing sent.
      await back?.close();
      const hasty = new Dispatcher(
        loadConfig({
          A2A_LEDGER_DISPATCHER_WORKERS_FILE: file,
          A2A_LEDGER_DISPATCHER_JOURNAL_PATH: join(dir, "hasty.sqlite"),
          A2A_LEDGER_DISPATCHER_INGEST_URL: ingest.url,
          A2A_LEDGER_DISPATCHER_UNAVAILABLE_RETRY_MS: "0",
          A2A_LEDGER_DISPATCHER_LOG_LEVEL: "silent",
        }),
        createLogger("dispatcher", "silent"),
        createMetrics(),
      );
      await hasty.execute(later, { topic: "a2a.commands.v1", partition: 0, offset: "8" });
      expect(hasty.journal.get(later.decisionId)).toMatchObject({
        status: "failed",
        detail: expect.stringMatching(/^DISPATCHER_CARD_UNAVAILABLE: card of .* could not be fetched/),
      });
      await hasty.stop();
    } finally {
      await restart.catch(() => undefined);
      await back?.close().catch(() => undefined);
    }
  }, 60_000);
});
