import { describe, expect, it } from "vitest";
import { sightingObservations, stateObservation, taskNotFoundObservation } from "./observations.ts";
import { TaskSightings } from "./task-sightings.ts";

const working = { taskId: "t-1", contextId: "c-1", state: "TASK_STATE_WORKING", timestamp: "2026-12-02T00:00:00Z" };
const seenAgain = { ...working, state: "TASK_STATE_INPUT_REQUIRED", timestamp: "2026-12-02T00:01:00Z" };
const lost = (src: Parameters<typeof taskNotFoundObservation>[0]) =>
  taskNotFoundObservation(src, "corr-1", "t-1", "GetTask", "-32001", 1000).eventId;

describe("TaskNotFound event ids", () => {
  it("are what they always were for an observer that remembers no sighting (the Python client's vector)", () => {
    expect(lost({ observer: "orchestrator:py", workerId: "W1" })).toBe(
      "not-found-aa3a0eb07b91a3c1c68c5f6f0d5019d3ab69b3a7",
    );
    const src = { observer: "orchestrator:py", workerId: "W1", sightings: new TaskSightings() };
    expect(lost(src)).toBe("not-found-aa3a0eb07b91a3c1c68c5f6f0d5019d3ab69b3a7");
  });

  it("tell a loss after the task was seen again from the loss before, and keep one id for the same loss", () => {
    const src = { observer: "orchestrator:py", workerId: "W1", sightings: new TaskSightings() };
    const state = stateObservation(src, "corr-1", working, "GET", 900);
    expect(state.eventId).toBe("state-a1987b16ee202f18e0c00cac8eda9b2f786d6c6a");
    const first = lost(src);
    // sha256 of the parts, each followed by NUL, the last sighting last (computed apart from this code).
    expect(first).toBe("not-found-81f916363b8c04c2503554a77b5ca7a91828428a");
    expect(lost(src)).toBe(first);
    stateObservation(src, "corr-1", seenAgain, "GET", 1100);
    const second = lost(src);
    expect(second).not.toBe(first);
    expect(lost(src)).toBe(second);
    // The same sighting recorded again (a second poll before the loss) is no new sighting.
    stateObservation(src, "corr-1", seenAgain, "GET", 1200);
    expect(lost(src)).toBe(second);
  });

  it("remember sightings per worker and task, through sightingObservations as the proxy records them", () => {
    const src = { observer: "proxy:W1", workerId: "W1", sightings: new TaskSightings() };
    const asked = { method: "GetTask", taskId: "t-1" };
    const of = (sightings: Parameters<typeof sightingObservations>[1]) =>
      sightingObservations(src, sightings, asked, () => "corr-1", "GET", 1000);
    const [before] = of([{ kind: "task-not-found", errorCode: "-32001" }]);
    of([{ kind: "status", taskId: "t-2", contextId: null, state: "TASK_STATE_WORKING", timestamp: "x" }]);
    const [other] = of([{ kind: "task-not-found", errorCode: "-32001" }]);
    expect(other?.eventId).toBe(before?.eventId);
    of([{ kind: "status", taskId: "t-1", contextId: null, state: "TASK_STATE_WORKING", timestamp: "x" }]);
    const [after] = of([{ kind: "task-not-found", errorCode: "-32001" }]);
    expect(after?.eventId).not.toBe(before?.eventId);
  });

  it("forget the least recently seen task beyond their capacity", () => {
    const sightings = new TaskSightings(2);
    sightings.saw("W1", "a", "s-a");
    sightings.saw("W1", "b", "s-b");
    sightings.saw("W1", "a", "s-a2");
    sightings.saw("W1", "c", "s-c");
    expect([sightings.lastOf("W1", "a"), sightings.lastOf("W1", "b"), sightings.lastOf("W1", "c")]).toEqual([
      "s-a2",
      null,
      "s-c",
    ]);
    expect(sightings.size).toBe(2);
    expect(() => new TaskSightings(0)).toThrow(RangeError);
  });
});
