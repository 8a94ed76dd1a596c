/** The CLI's Kafka retries: the bound from the environment, and the line that says each retry. */
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../io.ts";
import {
  kafkaErrorText,
  kafkaRetries,
  kafkaRetryBudgetFromEnv,
  retryLine,
  setKafkaRetries,
  withKafkaRetries,
} from "./kafka-retries.ts";

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require("kafkajs/src/protocol/error.js") as {
  createErrorFromCode(code: number): Error & { type: string; retriable: boolean };
};

const saved = kafkaRetries();
afterEach(() => setKafkaRetries(saved));

describe("the CLI's Kafka retries", () => {
  it("take their bound from A2A_LEDGER_CLI_KAFKA_RETRY_MS (60 s by default, 0 for none) and refuse anything else", () => {
    expect(kafkaRetryBudgetFromEnv({})).toBe(60_000);
    expect(kafkaRetryBudgetFromEnv({ A2A_LEDGER_CLI_KAFKA_RETRY_MS: " 0 " })).toBe(0);
    expect(kafkaRetryBudgetFromEnv({ A2A_LEDGER_CLI_KAFKA_RETRY_MS: "120000" })).toBe(120_000);
    for (const bad of ["-1", "1.5", "soon", "3600001"])
      expect(() => kafkaRetryBudgetFromEnv({ A2A_LEDGER_CLI_KAFKA_RETRY_MS: bad })).toThrow(UsageError);
  });

  it("say each retry on the command's stderr: what failed, Kafka's error, the pause and what is left of the bound", async () => {
    const lines: string[] = [];
    setKafkaRetries({ budgetMs: 10_000, report: (line) => lines.push(line) });
    let calls = 0;
    const value = await withKafkaRetries(
      "reading a2a.policy.v1",
      async () => {
        if (++calls < 3) throw createErrorFromCode(6);
        return 42;
      },
      { initialDelayMs: 10 },
    );
    expect(value).toBe(42);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^reading a2a\.policy\.v1 failed: This server is not the leader for that topic-partition \(NOT_LEADER_FOR_PARTITION\); retry 1 in 0\.01 s \(10 s of A2A_LEDGER_CLI_KAFKA_RETRY_MS left\)\n$/,
    );
    expect(lines[1]).toContain("; retry 2 in 0.02 s");
    expect(
      retryLine("writing t", {
        attempt: 4,
        delayMs: 2_000,
        error: new Error("x"),
        elapsedMs: 59_500,
        budgetMs: 60_000,
      }),
    ).toBe("writing t failed: x; retry 4 in 2.0 s (1 s of A2A_LEDGER_CLI_KAFKA_RETRY_MS left)\n");
    expect(kafkaErrorText(new Error("outer", { cause: createErrorFromCode(5) }))).toBe("outer (LEADER_NOT_AVAILABLE)");
  });

  it("fail at once on an ACL refusal, saying no retry", async () => {
    const lines: string[] = [];
    setKafkaRetries({ budgetMs: 10_000, report: (line) => lines.push(line) });
    await expect(
      withKafkaRetries("reading t", async () => {
        throw createErrorFromCode(29);
      }),
    ).rejects.toMatchObject({ type: "TOPIC_AUTHORIZATION_FAILED" });
    expect(lines).toEqual([]);
  });
});
