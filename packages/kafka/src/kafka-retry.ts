/**
 * A Kafka operation tried again, within a bound, after an error that a later try can cure: a leader
 * that moved (NOT_LEADER_FOR_PARTITION, LEADER_NOT_AVAILABLE), a broker that is restarting (connection
 * refused, a request timed out), a coordinator that is loading. kafkajs marks those errors `retriable`;
 * once its own few retries are spent it throws KafkaJSNumberOfRetriesExceeded (not retriable itself),
 * whose cause still is. A refusal (credentials, certificate, ACL: `accessFailureOf`) is never retried:
 * no retry cures it, and it fails at once with its cause.
 *
 * The services keep their consumers running (kafkajs's restarts, `ConsumerRestart`); a program that
 * does one thing and exits (the CLI) wraps each of its Kafka steps in `retryKafka`.
 */
import { accessFailureOf } from "./access-failure.ts";

interface ErrorLike {
  retriable?: unknown;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown;
}

/** Every error in the chain kafkajs builds (retries exceeded → cause, aggregate → errors). */
function chain(error: unknown, seen = new Set<unknown>()): ErrorLike[] {
  if (error === null || typeof error !== "object" || seen.has(error)) return [];
  seen.add(error);
  const e = error as ErrorLike;
  return [
    e,
    ...chain(e.cause, seen),
    ...chain(e.originalError, seen),
    ...(Array.isArray(e.errors) ? e.errors.flatMap((x) => chain(x, seen)) : []),
  ];
}

/** Whether a later try may succeed: an error in the chain is `retriable`, and none is a refusal. */
export function isRetriableKafkaError(error: unknown): boolean {
  if (accessFailureOf(error) !== undefined) return false;
  return chain(error).some((e) => e.retriable === true);
}

export interface KafkaRetryOptions {
  /** How long the tries may take in all, from the first; 0 tries once. Default 60 s. */
  budgetMs?: number;
  /** The pause before the first retry (default 250 ms); it doubles up to `maxDelayMs` (default 5 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Whether `error` is worth another try (default `isRetriableKafkaError`). */
  retriable?: (error: unknown) => boolean;
  /** Called before each retry. */
  onRetry?: (retry: KafkaRetry) => void;
}

export interface KafkaRetry {
  /** The retry about to be made: 1, 2, … */
  attempt: number;
  delayMs: number;
  /** Why the last try failed. */
  error: unknown;
  elapsedMs: number;
  budgetMs: number;
}

/** The last error of an operation that was retried until its budget was spent. */
export class KafkaRetriesExhaustedError extends Error {
  override name = "KafkaRetriesExhaustedError";
  constructor(
    readonly retries: number,
    readonly elapsedMs: number,
    override readonly cause: unknown,
  ) {
    super(
      `${cause instanceof Error ? cause.message : String(cause)} (retried ${retries} time${retries === 1 ? "" : "s"} over ${(elapsedMs / 1000).toFixed(1)} s)`,
      { cause },
    );
  }
}

export const defaultKafkaRetryBudgetMs = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `operation` until it succeeds, fails with an error that is not retriable (thrown as it is), or the
 * budget is spent (the last error, wrapped in KafkaRetriesExhaustedError, which says how often it was
 * retried). A retry is not started when its pause would end after the budget.
 */
export async function retryKafka<T>(
  operation: (attempt: number) => Promise<T>,
  options: KafkaRetryOptions = {},
): Promise<T> {
  const budgetMs = options.budgetMs ?? defaultKafkaRetryBudgetMs;
  const initialDelayMs = options.initialDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  const retriable = options.retriable ?? isRetriableKafkaError;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!retriable(error)) throw error;
      const elapsedMs = Date.now() - started;
      const delayMs = Math.min(maxDelayMs, initialDelayMs * 2 ** attempt);
      if (elapsedMs + delayMs > budgetMs) {
        if (attempt === 0) throw error;
        throw new KafkaRetriesExhaustedError(attempt, elapsedMs, error);
      }
      options.onRetry?.({ attempt: attempt + 1, delayMs, error, elapsedMs, budgetMs });
      await sleep(delayMs);
    }
  }
}
