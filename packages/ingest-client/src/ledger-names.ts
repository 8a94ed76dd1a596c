/**
 * How an A2A request names the ledger's logical task: the durable correlation id (and the skill and
 * attempt) in the message's `metadata` under these keys, and in these HTTP headers. The recording proxy
 * reads them, the dispatcher and `@a2a-ledger/a2a-client` write them; one spelling for all.
 */
export const correlationMetadataKey = "a2a-ledger.correlationId";
export const skillMetadataKey = "a2a-ledger.skillId";
export const attemptMetadataKey = "a2a-ledger.attempt";

/** Header names as sent; HTTP reads them case-insensitively. */
export const correlationHeaderName = "A2A-Ledger-Correlation-Id";
export const skillHeaderName = "A2A-Ledger-Skill-Id";
export const attemptHeaderName = "A2A-Ledger-Attempt";
