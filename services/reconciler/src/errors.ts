/**
 * The reconciler's stable codes: why a record went to the dead-letter topic, and why the service
 * refused to start. Operators alert and filter on these; never rename one. Every entry has the shape of
 * every service's catalogue (@a2a-ledger/env).
 */
import { defineErrorCatalogue, ConfigError } from "@a2a-ledger/env";
import { rulesRejectedReason } from "@a2a-ledger/kafka";
export const deadLetterReasons = defineErrorCatalogue("RECONCILER", {
  /** The bytes are not Confluent wire format (no magic byte and schema id). */
  RECONCILER_UNDECODABLE: { status: null, message: "the value is not a Confluent wire-format Avro record" },
  /** The schema id is unknown to the registry, or the bytes do not match the schema. */
  RECONCILER_UNKNOWN_SCHEMA: { status: null, message: "the schema id is unknown or the bytes do not decode with it" },
  /** A decodable record that is not an observation (a decision, or a foreign record type). */
  RECONCILER_NOT_AN_OBSERVATION: { status: null, message: "the record is not an observation of the catalogue" },
  /** The record key differs from its correlationId, so its state would live on the wrong partition. */
  RECONCILER_KEY_MISMATCH: { status: null, message: "the record key is not the observation's correlationId" },
  /** The rules threw on the observation. */
  RECONCILER_RULES_REJECTED: { status: null, message: "the rules could not process the observation" },
  /**
   * Retention: an observation for a correlation not in state, older than the shorter horizon at its
   * partition's stream time (a copy of an event of a correlation that left, or an event that late).
   */
  RECONCILER_OBSERVATION_TOO_LATE: {
    status: null,
    message:
      "the observation is older than the retention horizon at its partition's stream time and its correlation is not held: it was not folded",
  },
});

/** The codes of the reconciler's own errors: why it refused to start, and what a transaction step reports. */
export const serviceErrors = defineErrorCatalogue("RECONCILER", {
  RECONCILER_CONFIG_INVALID: { status: null, message: "An environment variable is invalid; every problem is listed." },
  RECONCILER_TRANSACTION_OUTCOME_UNKNOWN: {
    status: null,
    message: "A step of a transaction did not finish in time: its outcome is unknown.",
  },
  RECONCILER_REJOIN: {
    status: null,
    message: "The instance rejoins its consumer group after a failed transaction or before initialising a producer.",
  },
});

type ServiceErrorCode = keyof typeof serviceErrors;

// replay reports rejections under the code of @a2a-ledger/kafka: it must stay one of this catalogue's.
rulesRejectedReason satisfies keyof typeof deadLetterReasons;

export type DeadLetterReason = keyof typeof deadLetterReasons;

/** The configuration is invalid: the one ConfigError of every service, under this service's code. */
export const configError = (problems: readonly string[]): ConfigError =>
  new ConfigError("reconciler", "RECONCILER_CONFIG_INVALID" satisfies ServiceErrorCode, problems);

/** A record the reconciler cannot process, with the reason it goes to the DLQ. */
export class PoisonRecordError extends Error {
  override name = "PoisonRecordError";
  constructor(
    readonly reason: DeadLetterReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/**
 * A step of a transaction (begin, send, offsets, commit, or the producer's initialisation) did not
 * finish in time: whether it took effect is unknown. The producer is dropped and replaced under the
 * same transactional id, which fences the old one, and the state is restored from what was committed.
 */
export class TransactionOutcomeUnknownError extends Error {
  override name = "TransactionOutcomeUnknownError";
  readonly code = "RECONCILER_TRANSACTION_OUTCOME_UNKNOWN" satisfies ServiceErrorCode;
  constructor(
    readonly step: string,
    readonly afterMs: number,
  ) {
    super(`the transaction's ${step} did not finish within ${afterMs} ms: its outcome is unknown`);
  }
}

/** `promise`, or a TransactionOutcomeUnknownError when it has not settled within `ms`. */
export function withinDeadline<T>(promise: Promise<T>, step: string, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransactionOutcomeUnknownError(step, ms)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Thrown out of a batch to make kafkajs join the group afresh (it rejoins on REBALANCE_IN_PROGRESS):
 * after a failed transaction, or before a producer would be initialised without a fresh assignment.
 * Only a member that has just been given a partition may initialise its transactional id, so an
 * instance the group has already replaced never fences the partition's new owner.
 */
export class RejoinGroupError extends Error {
  override name = "RejoinGroupError";
  readonly type = "REBALANCE_IN_PROGRESS";
  readonly retriable = true;
  readonly code = "RECONCILER_REJOIN" satisfies ServiceErrorCode;
  constructor(
    reason: string,
    override readonly cause?: unknown,
  ) {
    super(`rejoining the consumer group: ${reason}`);
  }
}
