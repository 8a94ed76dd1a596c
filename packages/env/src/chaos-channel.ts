/**
 * The demo's story needs things done to the mesh that no client can do (restart W1, reload its
 * configuration). The supervisor that runs the processes (`a2a-ledger up`) does them when the
 * orchestrator asks, over Node's IPC channel between the supervisor and the orchestrator process: a
 * request with an id, and a reply with that id. Both programs speak it through this module, so
 * neither imports the other.
 */
import type { ChildProcess } from "node:child_process";

/** What the story asks the supervisor to do to the mesh. */
export interface Chaos {
  restartW1(): Promise<void>;
  reloadW1(outputMediaType: "application/json" | "text/plain"): Promise<void>;
}

export type ChaosAction =
  | { action: "restart-w1" }
  | { action: "reload-w1"; outputMediaType: "application/json" | "text/plain" };
export interface ChaosRequest {
  type: "a2a-ledger.chaos";
  id: number;
  request: ChaosAction;
}
export interface ChaosReply {
  type: "a2a-ledger.chaos-done";
  id: number;
  error: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
export const isChaosRequest = (m: unknown): m is ChaosRequest =>
  isRecord(m) && m.type === "a2a-ledger.chaos" && typeof m.id === "number" && isRecord(m.request);
const isChaosReply = (m: unknown): m is ChaosReply =>
  isRecord(m) && m.type === "a2a-ledger.chaos-done" && typeof m.id === "number";

/** The orchestrator's side: each request goes to the parent process; resolves when it replied. */
export function chaosOverIpc(channel: Pick<NodeJS.Process, "send" | "on" | "off">, timeoutMs = 60_000): Chaos {
  const send = channel.send?.bind(channel);
  if (send === undefined)
    throw new Error(
      "no IPC channel: the story needs a supervisor that can restart W1 (run it through `a2a-ledger up --demo`)",
    );
  let next = 1;
  const ask = (request: ChaosAction) =>
    new Promise<void>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        channel.off("message", onMessage);
        reject(new Error(`the supervisor did not do ${request.action} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (message: unknown) => {
        if (!isChaosReply(message) || message.id !== id) return;
        clearTimeout(timer);
        channel.off("message", onMessage);
        if (message.error === null) resolve();
        else reject(new Error(`${request.action} failed: ${message.error}`));
      };
      channel.on("message", onMessage);
      send({ type: "a2a-ledger.chaos", id, request } satisfies ChaosRequest);
    });
  return {
    restartW1: () => ask({ action: "restart-w1" }),
    reloadW1: (outputMediaType) => ask({ action: "reload-w1", outputMediaType }),
  };
}

/** The supervisor's side: does what the child asks and replies; an unknown request is answered with an error. */
export function serveChaos(child: ChildProcess, chaos: Chaos): void {
  child.on("message", (message: unknown) => {
    if (!isChaosRequest(message)) return;
    const { request } = message;
    const work =
      request.action === "restart-w1"
        ? chaos.restartW1()
        : request.action === "reload-w1"
          ? chaos.reloadW1(request.outputMediaType)
          : Promise.reject(new Error("unknown chaos action"));
    void work.then(
      () =>
        child.connected &&
        child.send({ type: "a2a-ledger.chaos-done", id: message.id, error: null } satisfies ChaosReply),
      (e: unknown) =>
        child.connected &&
        child.send({
          type: "a2a-ledger.chaos-done",
          id: message.id,
          error: e instanceof Error ? e.message : String(e),
        } satisfies ChaosReply),
    );
  });
}
