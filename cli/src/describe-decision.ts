/** One readable line per decision, for the non-JSON output. */
import type { Decision } from "@a2a-ledger/schemas";

export function describeDecision(d: Decision): string {
  const w = d.workerId ?? "-";
  switch (d.type) {
    case "ContractViolation":
      return `ContractViolation ${d.kind} ${w}${d.serverTaskId ? ` task ${d.serverTaskId}` : ""}: observed ${d.observed}, allowed [${d.allowed.join(", ")}]`;
    case "TaskIndeterminate":
      return `TaskIndeterminate ${w} task ${d.serverTaskId}: last state ${d.lastState} seen by ${d.lastObserver || "nobody"}`;
    case "TaskFailed":
      return `TaskFailed ${w} task ${d.serverTaskId}: last state ${d.lastState}`;
    case "RedispatchCommanded":
      return `RedispatchCommanded ${w} → ${d.targetWorkerId} attempt ${d.attempt}, ${d.resumeState === null ? "restart from scratch" : `resume ${d.resumeState}`}`;
    case "ReconciliationBlocked":
      return `ReconciliationBlocked ${w}: ${d.reason}`;
    case "TaskReconciled":
      return `TaskReconciled ${w} task ${d.serverTaskId}: ${d.state} on attempt ${d.attempt}`;
    case "ProbeRequested":
      return `ProbeRequested ${w} (${d.reason}) card ${d.cardHash.slice(0, 12)}`;
    case "CapabilitiesVerified":
      return `CapabilitiesVerified ${w}: states [${d.states.join(", ")}], durable ${d.durable ?? "unknown"}`;
    case "CardChanged":
      return `CardChanged ${w}: ${d.changes.length} field(s) changed, ${d.previousCardHash.slice(0, 12)} → ${d.cardHash.slice(0, 12)}`;
    case "CorrelationExpired":
      return `CorrelationExpired ${w}: ${d.lastStatus}, last event ${new Date(d.lastEventAt).toISOString()}, ${d.reason}`;
  }
}
