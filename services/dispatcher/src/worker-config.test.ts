import { ConfigError } from "@a2a-ledger/env";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import {
  maxConfigBytes,
  parseWorkersConfig,
  readWorkersConfig,
  renderMessage,
  skillConfigFor,
} from "./worker-config.ts";

const valid = {
  workers: {
    W3: {
      url: "http://127.0.0.1:22003/",
      workerUrl: "http://127.0.0.1:21003",
      transport: "HTTP+JSON",
      skills: {
        answer: {
          redispatch: {
            message: "{correlationId} again",
            resume: { "input-required": "need-input {correlationId} attempt {attempt}" },
          },
          canaries: [{ message: "delay-ms=500 probe" }, { message: "need-input probe", park: true }],
        },
        "*": { canaries: [{ message: "probe any skill" }] },
      },
    },
  },
};

function problemsOf(value: unknown): string[] {
  try {
    parseWorkersConfig(typeof value === "string" ? value : JSON.stringify(value), "w.json");
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  return [];
}

describe("the workers file", () => {
  it("reads workers, their proxy URL, skills, re-dispatch messages per resume state and canaries", () => {
    const config = parseWorkersConfig(JSON.stringify(valid));
    const w3 = config.workers.get("W3");
    expect(w3?.url).toBe("http://127.0.0.1:22003");
    expect(w3?.workerUrl).toBe("http://127.0.0.1:21003");
    expect(w3?.transport).toBe("HTTP+JSON");
    const answer = w3 === undefined ? undefined : skillConfigFor(w3, "answer");
    expect(answer?.redispatch?.resume.get("TASK_STATE_INPUT_REQUIRED")).toBe(
      "need-input {correlationId} attempt {attempt}",
    );
    expect(answer?.canaries).toEqual([
      { message: "delay-ms=500 probe", park: false },
      { message: "need-input probe", park: true },
    ]);
    expect(w3 === undefined ? undefined : skillConfigFor(w3, "summarize")?.canaries).toEqual([
      { message: "probe any skill", park: false },
    ]);
    expect(w3 === undefined ? undefined : skillConfigFor(w3, null)?.redispatch).toBeNull();
  });

  it("fills placeholders, leaving missing values empty", () => {
    expect(
      renderMessage("need-input {correlationId} ({attempt}, {skillId}, {fromServerTaskId})", {
        correlationId: "c-1",
        attempt: 2,
        skillId: null,
      }),
    ).toBe("need-input c-1 (2, , )");
  });

  it("reports every problem with its path, not only the first", () => {
    const problems = problemsOf({
      workers: {
        W1: {
          url: "ftp://x",
          skills: {
            answer: {
              canaries: [{ message: "" }, { message: "a", park: true }, { message: "b", park: true }],
              extra: 1,
            },
          },
        },
        "bad id": { url: "http://127.0.0.1:1", skills: {} },
        W4: {
          url: "http://127.0.0.1:1?q=1",
          transport: "GRPC",
          skills: { answer: { redispatch: { message: "hi {nope}", resume: { SLEEPING: "x" } } } },
        },
      },
      extra: true,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("w.json: $.extra: unknown key"),
        expect.stringContaining("workers.W1.url:"),
        expect.stringContaining("workers.W1.skills.answer.extra: unknown key"),
        expect.stringContaining("workers.W1.skills.answer.canaries[0].message: must be a non-empty string"),
        expect.stringContaining("workers.W1.skills.answer.canaries: at most one canary per skill is parked"),
        expect.stringContaining("workers.bad id: a worker id is 1–200 visible ASCII characters"),
        expect.stringContaining("workers.bad id.skills: must be an object with at least one skill"),
        expect.stringContaining("workers.W4.url:"),
        expect.stringContaining('workers.W4.transport: must be "JSONRPC" or "HTTP+JSON"'),
        expect.stringContaining("workers.W4.skills.answer.redispatch.message: unknown placeholder {nope}"),
        expect.stringContaining("workers.W4.skills.answer.redispatch.resume.SLEEPING: is not a task state"),
      ]),
    );
    expect(problems).toHaveLength(11);
  });

  it("refuses what is not a JSON object of workers", () => {
    expect(problemsOf("{not json")).toEqual([expect.stringMatching(/^w\.json: not JSON/)]);
    expect(problemsOf([1, 2])).toEqual(['w.json: must be a JSON object with "workers"']);
    expect(problemsOf({ workers: [] })).toEqual(["w.json: workers: must be an object of worker id → worker"]);
    expect(problemsOf({ workers: { W1: { url: "http://127.0.0.1:1", skills: { answer: {} } } } })).toEqual([
      "w.json: workers.W1.skills.answer: needs redispatch, canaries, or both",
    ]);
    expect(
      problemsOf({
        workers: {
          W1: {
            url: "http://127.0.0.1:1",
            skills: { answer: { canaries: Array.from({ length: 11 }, () => ({ message: "m" })) } },
          },
        },
      }),
    ).toEqual(["w.json: workers.W1.skills.answer.canaries: at most 10 canaries per skill"]);
    expect(
      problemsOf({
        workers: {
          W1: { url: "http://127.0.0.1:1", skills: { answer: { canaries: [{ message: "x".repeat(5000) }] } } },
        },
      }),
    ).toEqual(["w.json: workers.W1.skills.answer.canaries[0].message: must be at most 4096 characters"]);
  });

  it("refuses a missing or oversized file with its path", () => {
    const dir = mkdtempSync(join(tmpdir(), "dispatcher-config-"));
    expect(() => readWorkersConfig(join(dir, "missing.json"))).toThrow(/missing\.json: cannot be read \(ENOENT\)/);
    const big = join(dir, "big.json");
    writeFileSync(big, " ".repeat(maxConfigBytes + 1));
    expect(() => readWorkersConfig(big)).toThrow(/big\.json: 1048577 bytes, more than 1048576/);
  });
});
