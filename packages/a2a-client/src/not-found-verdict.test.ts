import { describe, expect, it } from "vitest";
import { notFoundVerdict } from "./not-found-verdict.ts";

const facts = { correlationId: "c-1", workerId: "w1", serverTaskId: "t-1", errorCode: "-32001" };

describe("what a TaskNotFound means", () => {
  it.each([
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_AUTH_REQUIRED",
    "TASK_STATE_WORKING",
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_UNSPECIFIED",
  ] as const)(
    "given the task was last seen %s, when the worker answers TaskNotFound, then it is indeterminate, not failed",
    (lastState) => {
      expect(notFoundVerdict({ ...facts, lastState })).toEqual({ kind: "indeterminate", ...facts, lastState });
    },
  );

  it.each(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"] as const)(
    "given the task was last seen %s, when the worker answers TaskNotFound, then it was purged",
    (lastState) => {
      expect(notFoundVerdict({ ...facts, lastState })).toEqual({ kind: "purged", ...facts, lastState });
    },
  );

  it("given the task was never seen, when the worker answers TaskNotFound, then nothing is concluded", () => {
    expect(notFoundVerdict({ ...facts, lastState: null })).toEqual({ kind: "unknown-task", ...facts });
  });
});
