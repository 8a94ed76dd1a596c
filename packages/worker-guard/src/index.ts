/** @a2a-ledger/worker-guard — a worker enforces its own card at emission, and the ledger hears of every refusal. */
export { checkEmission, type Emission, type PartSummary, type Verdict } from "./emission-check.ts";
export { EmissionRefusedError, guardErrorCodes, type GuardErrorCode } from "./errors.ts";
export { refusalObservation, type RefusalContext } from "./refusal-observation.ts";
export {
  emissionsOf,
  scopeOf,
  WorkerGuard,
  type EmissionScope,
  type RefusalSink,
  type WorkerGuardOptions,
} from "./worker-guard.ts";
