/**
 * The last state sighting an observer recorded of each task, so that a TaskNotFound names the sighting
 * it follows. A task lost, seen again and lost again is two losses; the same TaskNotFound re-derived with
 * no sighting in between (a second poll of a task that stays lost) is the same loss, under the same id.
 *
 * Kept in the process only and bounded by count (least recently recorded first out): an observer that
 * restarted, or forgot a task, derives the id as if it had seen no state of it.
 */
import { RecentMap } from "./recent-map.ts";

export class TaskSightings {
  private readonly last: RecentMap<string>;

  constructor(capacity = 100_000) {
    this.last = new RecentMap(capacity);
  }

  /** A state observation of the task was built with this eventId. */
  saw(workerId: string, taskId: string, eventId: string): void {
    this.last.set(keyOf(workerId, taskId), eventId);
  }

  /** The eventId of the last state observation recorded of the task; null when none is remembered. */
  lastOf(workerId: string, taskId: string): string | null {
    return this.last.get(keyOf(workerId, taskId)) ?? null;
  }

  get size(): number {
    return this.last.size;
  }
}

const keyOf = (workerId: string, taskId: string) => `${workerId}\u0000${taskId}`;
