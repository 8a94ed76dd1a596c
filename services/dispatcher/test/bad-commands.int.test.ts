/**
 * The dispatcher as its own process on the real stack, fed what it cannot carry out: poison records on
 * the commands topic and a command for a worker nobody configured. Each is refused with its stable code
 * (logged, counted, kept in the journal), the process keeps running, and the next good command is carried out.
 */
import { metricSum, metricValue } from "@a2a-ledger/env/testing";
import { randomUUID } from "node:crypto";
import { spawnListening, type AgentProcess } from "@a2a-ledger/mesh-agents";
import { isType } from "@a2a-ledger/ledger-feed";
import { sampleObservation } from "@a2a-ledger/schemas/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Journal } from "../src/journal.ts";
import { dispatcherMain, serde, startMesh, type TestMesh } from "./live-mesh.ts";

let mesh: TestMesh;
let dispatcher: AgentProcess;

beforeAll(async () => {
  mesh = await startMesh("bad-commands", ["W3"]);
  dispatcher = await spawnListening("dispatcher", process.execPath, ["--import", "tsx", dispatcherMain], {
    env: mesh.env({ A2A_LEDGER_DISPATCHER_LOG_LEVEL: "info" }),
    startTimeoutMs: 60_000,
  });
});
afterAll(async () => {
  await dispatcher?.stop();
  await mesh?.stop();
});

const logLines = () =>
  dispatcher
    .output()
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

describe("commands the dispatcher cannot carry out", () => {
  it("refuses poison records and a worker with no configuration with stable codes, keeps running, and carries out the next command", async () => {
    const id = randomUUID().slice(0, 8);
    const base = {
      causeEventIds: [],
      rulesVersion: "default/2",
      policyVersion: null,
      decidedAt: Date.now(),
      workerId: "W1",
      fromServerTaskId: null,
      skillId: "answer",
      resumeState: null,
      acceptedOutputModes: [],
      candidates: [],
    };
    const good = {
      type: "RedispatchCommanded" as const,
      decisionId: `good-${id}`,
      correlationId: `good-${id}`,
      targetWorkerId: "W3",
      attempt: 2,
      ...base,
    };
    await mesh.raw([
      { key: "garbage", value: Buffer.from("not avro at all") },
      { key: "tombstone", value: null },
      { key: "unknown-schema", value: Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 1, 2, 3]) },
      {
        key: "obs-1",
        value: await serde.encode({ ...sampleObservation("TaskStateObserved"), correlationId: "obs-1" }),
      },
      {
        key: "someone-else",
        value: await serde.encode({ ...good, decisionId: `mismatch-${id}`, correlationId: `mismatch-${id}` }),
      },
      {
        key: `attempt-0-${id}`,
        value: await serde.encode({
          ...good,
          decisionId: `attempt-0-${id}`,
          correlationId: `attempt-0-${id}`,
          attempt: 0,
        }),
      },
      {
        key: `nobody-${id}`,
        value: await serde.encode({
          ...good,
          decisionId: `nobody-${id}`,
          correlationId: `nobody-${id}`,
          targetWorkerId: "W9",
        }),
      },
      { key: good.correlationId, value: await serde.encode(good) },
    ]);
    const dispatched = await mesh.feed.waitFor(
      isType("TaskDispatched", (o) => o.correlationId === good.correlationId && o.observer === "dispatcher"),
      60_000,
      "the good command's dispatch",
    );
    expect(dispatched.workerId).toBe("W3");

    // The good command's partition says nothing of the others: the unknown schema id costs a registry
    // round trip on its own partition, so wait until every refused record has been counted (bounded).
    const poisonCount = 6;
    const readMetrics = async () => (await fetch(`${dispatcher.url}/metrics`)).text();
    const refused = (text: string) => [
      metricSum(text, "a2a_dispatcher_poison_commands_total"),
      metricSum(text, "a2a_dispatcher_alerts_total"),
    ];
    await expect
      .poll(async () => refused(await readMetrics()), { timeout: 20_000, interval: 250 })
      .toEqual([poisonCount, 1]);
    const metrics = await readMetrics();
    for (const reason of [
      "DISPATCHER_UNDECODABLE",
      "DISPATCHER_UNKNOWN_SCHEMA",
      "DISPATCHER_NOT_A_COMMAND",
      "DISPATCHER_KEY_MISMATCH",
      "DISPATCHER_INVALID_COMMAND",
    ]) {
      expect(metricValue(metrics, "a2a_dispatcher_poison_commands_total", { reason }), reason).toBe(
        reason === "DISPATCHER_UNDECODABLE" ? 2 : 1,
      );
    }
    expect(metricValue(metrics, "a2a_dispatcher_alerts_total", { code: "DISPATCHER_WORKER_NOT_CONFIGURED" })).toBe(1);
    expect(
      metricValue(metrics, "a2a_dispatcher_commands_total", { kind: "RedispatchCommanded", outcome: "blocked" }),
    ).toBe(1);

    const alert = logLines().find((l) => l.alert === "DISPATCHER_WORKER_NOT_CONFIGURED");
    expect(alert).toMatchObject({
      level: "error",
      service: "dispatcher",
      decisionId: `nobody-${id}`,
      correlationId: `nobody-${id}`,
      workerId: "W9",
    });
    // Records with different keys sit on different partitions, handled concurrently: compare as sets with counts.
    const poison = [
      "DISPATCHER_INVALID_COMMAND",
      "DISPATCHER_KEY_MISMATCH",
      "DISPATCHER_NOT_A_COMMAND",
      "DISPATCHER_UNDECODABLE",
      "DISPATCHER_UNDECODABLE",
      "DISPATCHER_UNKNOWN_SCHEMA",
    ];
    expect(
      logLines()
        .filter((l) => typeof l.code === "string" && String(l.code).startsWith("DISPATCHER_"))
        .map((l) => String(l.code))
        .sort(),
    ).toEqual(poison);

    const journal = new Journal(mesh.config().journalPath);
    try {
      expect(
        journal
          .rejected()
          .map((r) => r.reason)
          .sort(),
      ).toEqual(poison);
      expect(journal.get(`nobody-${id}`)).toMatchObject({
        status: "blocked",
        detail: expect.stringMatching(/^DISPATCHER_WORKER_NOT_CONFIGURED: worker W9 is not in the workers file/),
      });
      expect(journal.get(good.decisionId)?.status).toBe("done");
    } finally {
      journal.close();
    }
    expect(dispatcher.child.exitCode).toBeNull();
    expect((await fetch(`${dispatcher.url}/healthz`)).status).toBe(200);
  });
});
