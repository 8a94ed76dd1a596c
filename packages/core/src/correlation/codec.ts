/**
 * The changelog value of a default/2 correlation state. Versioned so a reader can tell the models apart
 * (a default/1 state is JSON text starting with `{"version":1`).
 */
import { deserializeCorrelationState } from "../v1/correlation-state.ts";
import { fromV1 } from "./migrate.ts";
import { type CorrelationState, type TaskRecord, recentInOrder } from "./state.ts";

export class StateFormatError extends Error {
  override name = "StateFormatError";
}

interface Encoded {
  model: 2;
  correlationId: CorrelationState["correlationId"];
  status: CorrelationState["status"];
  recent: string[];
  attempts: CorrelationState["attempts"];
  tasks: TaskRecord[];
  canaries: CorrelationState["canaries"];
  loss: CorrelationState["loss"];
  reported: string[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeState(s: CorrelationState): Uint8Array {
  const e: Encoded = {
    model: 2,
    correlationId: s.correlationId,
    status: s.status,
    recent: recentInOrder(s),
    attempts: s.attempts,
    tasks: s.tasks,
    canaries: s.canaries,
    loss: s.loss,
    reported: [...s.reported],
  };
  return encoder.encode(JSON.stringify(e));
}

/** Reads a correlation/2 state, or migrates a correlation/1 (default/1) one; throws StateFormatError otherwise. */
export function decodeState(bytes: Uint8Array): CorrelationState {
  const text = decoder.decode(bytes);
  let e: Partial<Encoded> | null;
  try {
    e = JSON.parse(text) as Partial<Encoded> | null;
  } catch {
    throw new StateFormatError("not a correlation state (not JSON)");
  }
  if (typeof e === "object" && e !== null && (e as { version?: unknown }).version === 1) return fromV1(deserializeCorrelationState(text));
  if (typeof e !== "object" || e === null || e.model !== 2 || !Array.isArray(e.recent) || !Array.isArray(e.attempts)) throw new StateFormatError("not a correlation/2 state");
  return {
    model: 2,
    correlationId: e.correlationId ?? null,
    status: e.status ?? "open",
    recent: e.recent,
    recentHead: 0,
    recentSet: e.recent.length > 32 ? new Set(e.recent) : null,
    attempts: e.attempts,
    tasks: e.tasks ?? [],
    canaries: e.canaries ?? [],
    loss: e.loss ?? null,
    reported: new Set(e.reported ?? []),
  };
}
