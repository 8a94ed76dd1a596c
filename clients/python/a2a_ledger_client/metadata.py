"""The message metadata keys the ledger reads, the same the recording proxy and the dispatcher use
(services/proxy/src/a2a-request.ts, services/dispatcher/src/worker-client.ts): the durable correlation id
of the logical task, the skill, and the attempt under that correlation."""

CORRELATION_ID_KEY = "a2a-ledger.correlationId"
SKILL_ID_KEY = "a2a-ledger.skillId"
ATTEMPT_KEY = "a2a-ledger.attempt"
