/** One observation for the unit tests of the buffer and the spool: number `i`, eventId `e-<i>`. */
import type { ObservationInput } from "@a2a-ledger/ingest-client";

export const observation = (i: number, extra: Partial<ObservationInput> = {}): ObservationInput =>
  ({
    type: "TaskStateObserved",
    eventId: `e-${i}`,
    correlationId: `c-${i}`,
    occurredAt: 1_000 + i,
    observer: "proxy:W1",
    workerId: "W1",
    serverTaskId: "t",
    state: "TASK_STATE_WORKING",
    via: "GET",
    ...extra,
  }) as ObservationInput;
