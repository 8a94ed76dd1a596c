import { describe, expect, it } from "vitest";
import { isInterrupted, isTerminal, normalizeTaskState, sortStates } from "./task-state.ts";

describe("task states", () => {
  it.each([
    ["submitted", "TASK_STATE_SUBMITTED"],
    ["working", "TASK_STATE_WORKING"],
    ["input-required", "TASK_STATE_INPUT_REQUIRED"],
    ["auth-required", "TASK_STATE_AUTH_REQUIRED"],
    ["completed", "TASK_STATE_COMPLETED"],
    ["failed", "TASK_STATE_FAILED"],
    ["canceled", "TASK_STATE_CANCELED"],
    ["cancelled", "TASK_STATE_CANCELED"],
    ["rejected", "TASK_STATE_REJECTED"],
    ["unknown", "TASK_STATE_UNSPECIFIED"],
    ["TASK_STATE_CANCELLED", "TASK_STATE_CANCELED"],
    ["TASK_STATE_AUTH_REQUIRED", "TASK_STATE_AUTH_REQUIRED"],
  ])("normalizes the spelling %s to %s", (raw, v1) => {
    expect(normalizeTaskState(raw)).toBe(v1);
  });

  it("rejects spellings that are not task states", () => {
    expect(normalizeTaskState("INPUT_REQUIRED")).toBeNull();
    expect(normalizeTaskState("toString")).toBeNull();
    expect(normalizeTaskState("Working")).toBeNull();
  });

  it("knows the terminal and interrupted sets", () => {
    expect(
      ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"].every((s) =>
        isTerminal(s as never),
      ),
    ).toBe(true);
    expect(isTerminal("TASK_STATE_INPUT_REQUIRED")).toBe(false);
    expect(isInterrupted("TASK_STATE_INPUT_REQUIRED") && isInterrupted("TASK_STATE_AUTH_REQUIRED")).toBe(true);
    expect(isInterrupted("TASK_STATE_WORKING")).toBe(false);
  });

  it("sorts states in lifecycle order without duplicates", () => {
    expect(sortStates(["TASK_STATE_COMPLETED", "TASK_STATE_SUBMITTED", "TASK_STATE_COMPLETED"])).toEqual([
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_COMPLETED",
    ]);
  });
});
