/**
 * How every CLI command retries Kafka: a step that fails with a retriable error (a leader that moved, a
 * broker restarting, a coordinator loading) is tried again with a growing pause (250 ms doubling to 5 s)
 * for up to A2A_LEDGER_CLI_KAFKA_RETRY_MS in all (default 60 s; 0 retries nothing), and each retry is said on
 * the command's stderr. A refusal (credentials, certificate, ACL) fails at once. Once the bound is spent
 * the step fails as before (exit 3), with a message that says how often it was retried.
 *
 * `main` sets the budget and where the lines go for the command it runs (`setKafkaRetries`).
 */
import { defaultKafkaRetryBudgetMs, type KafkaRetry, retryKafka } from "@a2a-ledger/kafka";
import { UsageError } from "../io.ts";

export interface KafkaRetrySettings {
  budgetMs: number;
  /** Where a retry is said (one line, newline included). */
  report(line: string): void;
}

const maxBudgetMs = 3_600_000;

/** A2A_LEDGER_CLI_KAFKA_RETRY_MS: milliseconds, 0 to 3,600,000; 60,000 when unset. */
export function kafkaRetryBudgetFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env["A2A_LEDGER_CLI_KAFKA_RETRY_MS"]?.trim();
  if (text === undefined || text === "") return defaultKafkaRetryBudgetMs;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > maxBudgetMs)
    throw new UsageError(
      `A2A_LEDGER_CLI_KAFKA_RETRY_MS=${JSON.stringify(text)}: milliseconds from 0 (no retry) to ${maxBudgetMs}`,
    );
  return value;
}

let settings: KafkaRetrySettings | undefined;

/** The budget and the stderr of the command that runs now. */
export function setKafkaRetries(next: KafkaRetrySettings): void {
  settings = next;
}

/** What `main` set; in a process it did not start (a replay's shard), the environment's bound and this process's stderr. */
export function kafkaRetries(): KafkaRetrySettings {
  if (settings === undefined) {
    let budgetMs = defaultKafkaRetryBudgetMs;
    try {
      budgetMs = kafkaRetryBudgetFromEnv(process.env);
    } catch {
      // The parent command refused a bad value already.
    }
    settings = { budgetMs, report: (line) => void process.stderr.write(`a2a-ledger: ${line}`) };
  }
  return settings;
}

/** The words of an error, with Kafka's error type when it has one ("… (NOT_LEADER_FOR_PARTITION)"). */
export function kafkaErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  let type: string | undefined;
  for (
    let e: unknown = error, depth = 0;
    e !== null && typeof e === "object" && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const t = (e as { type?: unknown }).type;
    if (typeof t === "string") {
      type = t;
      break;
    }
  }
  return type === undefined || message.includes(type) ? message : `${message} (${type})`;
}

/** The line that says a retry: what failed, why, when it is tried again, and how much of the bound is left. */
export function retryLine(what: string, retry: KafkaRetry): string {
  const left = Math.max(0, (retry.budgetMs - retry.elapsedMs) / 1000);
  return `${what} failed: ${kafkaErrorText(retry.error)}; retry ${retry.attempt} in ${(retry.delayMs / 1000).toFixed(retry.delayMs < 1_000 ? 2 : 1)} s (${left.toFixed(0)} s of A2A_LEDGER_CLI_KAFKA_RETRY_MS left)\n`;
}

/** `operation` (`what` names it: "reading a2a.policy.v1"), retried as above; the initial pause can be shortened for tests. */
export function withKafkaRetries<T>(
  what: string,
  operation: (attempt: number) => Promise<T>,
  options: { initialDelayMs?: number } = {},
): Promise<T> {
  const { budgetMs, report } = kafkaRetries();
  return retryKafka(operation, { budgetMs, ...options, onRetry: (retry) => report(retryLine(what, retry)) });
}
