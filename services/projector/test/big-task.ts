/** One correlation with `polls` state observations from three observers over two attempts: a large task. */
import { parseObservation } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";

export function bigTask(correlationId: string, polls: number): Observation[] {
  const start = Date.parse("2025-07-01T00:00:00Z");
  const raw: Record<string, unknown>[] = [
    {
      type: "TaskDispatched",
      eventId: `${correlationId}-d1`,
      correlationId,
      occurredAt: start,
      observer: "orchestrator",
      workerId: "w-big",
      skillId: "summarize",
      messageId: "m1",
      acceptedOutputModes: ["text/plain"],
      attempt: 1,
    },
  ];
  const observers = ["orchestrator", "proxy", "worker"];
  for (let i = 0; i < polls; i++) {
    const attempt = i < polls / 2 ? 1 : 2;
    if (i === Math.floor(polls / 2))
      raw.push({
        type: "TaskDispatched",
        eventId: `${correlationId}-d2`,
        correlationId,
        occurredAt: start + i * 1000,
        observer: "orchestrator",
        workerId: "w-big-2",
        skillId: "summarize",
        messageId: "m2",
        acceptedOutputModes: ["text/plain"],
        attempt: 2,
      });
    const state = i % 500 === 499 ? "input-required" : "working";
    raw.push({
      type: "TaskStateObserved",
      eventId: `${correlationId}-s${i}`,
      correlationId,
      occurredAt: start + i * 1000 + 1,
      observer: observers[i % 3],
      workerId: attempt === 1 ? "w-big" : "w-big-2",
      serverTaskId: `${correlationId}-t${attempt}`,
      contextId: "ctx-big",
      state,
      via: "get",
    });
    if (i % 1000 === 0)
      raw.push({
        type: "ArtifactEmitted",
        eventId: `${correlationId}-a${i}`,
        correlationId,
        occurredAt: start + i * 1000 + 2,
        observer: "proxy",
        workerId: attempt === 1 ? "w-big" : "w-big-2",
        serverTaskId: `${correlationId}-t${attempt}`,
        artifactId: `art-${i}`,
        name: `part-${i}`,
        parts: [{ kind: "text", mediaType: "text/plain", sizeBytes: 10 }],
      });
  }
  return raw.map((o) => {
    const parsed = parseObservation(o);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return parsed.observation;
  });
}
