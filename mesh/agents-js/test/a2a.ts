/** Small readers over the SDK's result types, for the tests. */
import { TaskState, type Task } from "@a2a-js/sdk";
import type { SendMessageResult } from "@a2a-js/sdk";

export function asTask(result: SendMessageResult): Task {
  if (!("status" in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

export const stateOf = (task: Task): TaskState | undefined => task.status?.state;

/** The media types of every part of every artifact of a task. */
export function artifactMediaTypes(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.map((p) => p.mediaType));
}

export { TaskState };
