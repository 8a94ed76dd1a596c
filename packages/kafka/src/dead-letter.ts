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
