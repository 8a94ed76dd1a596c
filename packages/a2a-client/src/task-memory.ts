/** The last state this client saw of each task of one worker (by server task id), in the process only. */
import { RecentMap } from "@a2a-ledger/ingest-client";
import type { TaskState } from "@a2a-ledger/schemas";

export class TaskMemory {
  /** The least recently seen task is forgotten first. */
  private readonly states: RecentMap<TaskState>;

  constructor(capacity = 100_000) {
    this.states = new RecentMap(capacity);
  }

  remember(serverTaskId: string, state: TaskState): void {
    this.states.set(serverTaskId, state);
  }

  lastState(serverTaskId: string): TaskState | null {
    return this.states.get(serverTaskId) ?? null;
  }
}
