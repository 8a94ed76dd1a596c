import { describe, expect, it } from "vitest";
import { newStore, storeKinds, useStores } from "../test/stores.ts";
import { inputsFor, story } from "../test/story.ts";
import { LiveStream, type StreamEvent } from "./live-stream.ts";
import { activate, activeGeneration, createBuildingGeneration } from "./store/generations.ts";
import { writeBatch } from "./views/writer.ts";

useStores();

const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
};

describe.each(storeKinds)("live stream on %s", (kind) => {
  it("delivers committed view changes to the clients whose filter selects them, and a refresh when a rebuild swaps the views", async () => {
    const store = await newStore(kind);
    const stream = new LiveStream(store, 100);
    await stream.start();
    const got = {
      all: [] as StreamEvent[],
      task42: [] as StreamEvent[],
      gamma: [] as StreamEvent[],
      beta: [] as StreamEvent[],
      other: [] as StreamEvent[],
    };
    stream.subscribe({}, (e) => got.all.push(e));
    stream.subscribe({ correlationId: "task-42" }, (e) => got.task42.push(e));
    stream.subscribe({ workerId: "w-gamma" }, (e) => got.gamma.push(e));
    stream.subscribe({ workerId: "w-beta" }, (e) => got.beta.push(e));
    stream.subscribe({ correlationId: "task-0" }, (e) => got.other.push(e));
    const gen = (await store.read(activeGeneration)) as number;
    for (const { topic, partition, inputs } of inputsFor(story()))
      await writeBatch(store, gen, topic, partition, inputs, { lowWatermark: 0 });
    await until(() => got.task42.some((e) => e.data.status === "reconciled"));
    expect(got.task42.every((e) => e.event === "task" && e.data.correlationId === "task-42")).toBe(true);
    expect(got.task42.map((e) => e.data.status)).toContain("reconciled");
    expect(got.gamma.some((e) => e.event === "task" && e.data.correlationId === "task-42")).toBe(true);
    expect(got.gamma.some((e) => e.event === "worker" && e.data.workerId === "w-gamma")).toBe(true);
    expect(got.gamma.some((e) => e.event === "worker" && e.data.workerId !== "w-gamma")).toBe(false);
    // w-beta had no part in task-42; its own card and probe correlation concern it.
    expect(got.beta.some((e) => e.event === "task" && e.data.correlationId === "task-42")).toBe(false);
    expect(got.beta.some((e) => e.event === "task" && e.data.correlationId === "probe-w-beta")).toBe(true);
    expect(got.other).toEqual([]);
    expect(got.all.some((e) => e.event === "worker" && e.data.workerId === "w-acme")).toBe(true);

    const next = await createBuildingGeneration(store);
    await store.write((tx) => activate(tx, next));
    await until(() => got.other.some((e) => e.event === "refresh"));
    expect(got.other).toEqual([{ event: "refresh", data: { reason: "rebuilt", generation: next } }]);
    stream.stop();
  });
});
