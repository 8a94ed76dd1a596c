/** The last state this client saw of each task of one worker (by server task id), in the process only. */
import type { TaskState } from "@a2a-ledger/schemas";

export class TaskMemory {
  private readonly states = new Map<string, TaskState>();

  constructor(private readonly capacity = 100_000) {}

  remember(serverTaskId: string, state: TaskState): void {
    this.states.delete(serverTaskId);
    this.states.set(serverTaskId, state);
    // The oldest task is forgotten first.
    if (this.states.size > this.capacity) this.states.delete(this.states.keys().next().value as string);
  }

  lastState(serverTaskId: string): TaskState | null {
    return this.states.get(serverTaskId) ?? null;
  }
}
