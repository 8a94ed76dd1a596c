/**
 * Which observations shape the capability table. A replay of part of a log (a time window, one
 * correlation) folds these even from outside its scope, so that what it does replay is judged against
 * the table the log built up to then: card fetches, probes, and what happens to a parked canary, which
 * lives in the correlation of the probe that parked it — its TaskNotFound (R9) and, under default/4, its
 * re-observations (a canary that outlived a restart earns a revocation back). The decisions they cause belong to
 * the replay only when they fall in its scope; the table and the probe correlations' states carry over.
 */
import type { Observation } from "@a2a-ledger/schemas";

export class CapabilityScope {
  /** Correlations that carried a card fetch or a probe: where parked canaries live. */
  private readonly probeCorrelations = new Set<string>();

  /** Whether the observation shapes the capability table; call it for every observation, in log order. */
  shapesCapabilities(observation: Observation): boolean {
    switch (observation.type) {
      case "AgentCardObserved":
      case "ProbeCompleted":
        this.probeCorrelations.add(observation.correlationId);
        return true;
      case "TaskNotFoundObserved":
      case "TaskStateObserved":
        return this.probeCorrelations.has(observation.correlationId);
      default:
        return false;
    }
  }
}
