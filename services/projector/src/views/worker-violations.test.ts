/**
 * A worker's page counts the worker's own contract violations only: a TaskNotFound for a task id no
 * observer saw (a conformance probe, a client's typo) is recorded by default/3 as CLIENT_UNKNOWN_TASK,
 * which stays in the violation list but is not held against the worker; default/2 counted it.
 */
import { defaultRuleSet, defaultRuleSetV2, defaultRuleSetV3, parseObservation, type RuleSet } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { Cursors } from "../cursor.ts";
import { activeGeneration } from "../store/generations.ts";
import { tableNames } from "../store/schema.ts";
import { newStore, storeKinds, useStores } from "../../test/stores.ts";
import { inputsFor, story } from "../../test/story.ts";
import { violationList } from "./lists.ts";
import { workerDetail, workerList } from "./workers.ts";
import { writeBatch } from "./writer.ts";

useStores();
const cursors = new Cursors("test-secret");

/** The DESIGN §1 story, then a conformance run asking w-acme for task ids nobody ever saw. */
function withProbes(): Observation[] {
  const log = story();
  const at = Math.max(...log.map((o) => o.occurredAt));
  const probes = ["tck-1", "tck-2"].map((id, i) => {
    const p = parseObservation({
      type: "TaskNotFoundObserved",
      eventId: `tck-ev-${i}`,
      correlationId: "task-42",
      occurredAt: at + 1 + i,
      observer: "tck",
      workerId: "w-acme",
      serverTaskId: id,
      method: "GetTask",
      errorCode: "-32001",
    });
    if (!p.ok) throw new Error(JSON.stringify(p.issues));
    return p.observation;
  });
  return [...log, ...probes];
}

async function pages(kind: (typeof storeKinds)[number], ruleSet: RuleSet) {
  const store = await newStore(kind);
  const gen = (await store.read(activeGeneration)) as number;
  for (const { topic, partition, inputs } of inputsFor(withProbes(), { ruleSet }))
    await writeBatch(store, gen, topic, partition, inputs, { lowWatermark: 0 });
  const t = tableNames(gen);
  const detail = await store.read((r) => workerDetail(r, t, { trustedVendors: [] }, "w-acme"));
  const list = await store.read((r) => workerList(r, t, cursors, { trustedVendors: [] }, { limit: 10 }));
  const all = await store.read((r) => violationList(r, t, cursors, { workerId: "w-acme" }, { limit: 100 }));
  return {
    detail,
    listed: list.items.find((w) => w.workerId === "w-acme")?.violations,
    all: all.items.map((v) => v.kind),
  };
}

describe.each(storeKinds)("a worker's violations on %s", (kind) => {
  it("leaves the client's unknown-task mistakes out of the worker's count and page, and keeps them in the violation list", async () => {
    const v2 = await pages(kind, defaultRuleSetV2);
    const v3 = await pages(kind, defaultRuleSetV3);
    const v4 = await pages(kind, defaultRuleSet);
    // default/2: the two probes count against w-acme
    expect(v2.all.filter((k) => k === "UNSEEN_TASK_NOT_FOUND")).toHaveLength(2);
    expect(v2.detail?.violations).toBe(v2.all.length);
    // default/3: recorded as the client's, listed, not counted
    expect(v3.all.filter((k) => k === "CLIENT_UNKNOWN_TASK")).toHaveLength(2);
    expect(v3.detail?.violations).toBe(v3.all.length - 2);
    expect(v3.listed).toBe(v3.all.length - 2);
    expect(v3.detail?.violationsRecent.map((v) => v.kind)).not.toContain("CLIENT_UNKNOWN_TASK");
    expect(v3.detail?.violations).toBe((v2.detail?.violations ?? 0) - 2);
    // default/4 (the default) as default/3
    expect(v4.all.filter((k) => k === "CLIENT_UNKNOWN_TASK")).toHaveLength(2);
    expect(v4.detail?.violations).toBe(v4.all.length - 2);
    expect(v4.listed).toBe(v4.all.length - 2);
  });
});
