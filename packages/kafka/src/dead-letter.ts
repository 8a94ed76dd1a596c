/**
 * The headers of a record on the dead-letter topic: the original key, value and headers are kept, and
 * these say why it is there (a stable reason code and a detail) and where it was read.
 */
export const dlqHeader = {
  reason: "a2a-ledger.dlq.reason",
  detail: "a2a-ledger.dlq.detail",
  topic: "a2a-ledger.dlq.source.topic",
  partition: "a2a-ledger.dlq.source.partition",
  offset: "a2a-ledger.dlq.source.offset",
} as const;

/**
 * The reason code under which the reconciler dead-letters an observation its rules reject; `replay`
 * reports the observations it would dead-letter under the same code.
 */
export const rulesRejectedReason = "RECONCILER_RULES_REJECTED";
