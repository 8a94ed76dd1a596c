/**
 * The agent logic of the JS mesh workers: follows the message's script (see script.ts) and emits its
 * artifact in the media type the worker's configuration names at that moment, whatever the card says.
 */
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { EmissionRefusedError } from "@a2a-ledger/worker-guard";
import { parseScript, splitIntoChunks } from "./script.ts";

export type OutputMediaType = "application/json" | "text/plain";

export interface ScriptedExecutorOptions {
  /** The worker's name, written into its answers. */
  worker: string;
  /** Whether a `need-input` message stops in INPUT_REQUIRED; a worker without it completes directly. */
  supportsInputRequired: boolean;
  /**
   * A guarded worker (its bus refuses what its card does not advertise) tries every directive — INPUT_REQUIRED
   * and `as=` media types included — and, when the guard refuses, goes on as its card says: it completes
   * instead of waiting for input, and answers in its configured media type.
   */
  guarded?: boolean;
  /** Read on every artifact, so a configuration reload takes effect for the next answer. */
  outputMediaType: () => OutputMediaType;
}

const textOf = (message: Message): string => {
  for (const part of message.parts) if (part.content?.$case === "text") return part.content.value;
  return "";
};

const textPart = (text: string, mediaType: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType,
});

const now = (): string => new Date().toISOString();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs an emission; false when the worker's guard refused it (the executor then goes on as its card says). */
function refusable(emit: () => void): boolean {
  try {
    emit();
    return true;
  } catch (e) {
    if (e instanceof EmissionRefusedError) return false;
    throw e;
  }
}

export class ScriptedExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();
  private readonly contexts = new Map<string, string>();

  constructor(private readonly options: ScriptedExecutorOptions) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    this.contexts.set(taskId, contextId);
    const message = ctx.userMessage;
    const resuming = ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    const script = parseScript(textOf(message));
    // A waiting task keeps its context id for a cancel, which names only the task.
    let waiting = false;
    try {
      // Every execute call publishes the task first, follow-up turns included.
      const task: Task = ctx.task ?? {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [message],
        metadata: message.metadata,
      };
      bus.publish(AgentEvent.task(task));
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING);

      if (!resuming && script.needInput && (this.options.supportsInputRequired || this.options.guarded === true)) {
        const asked = refusable(() =>
          this.status(
            bus,
            taskId,
            contextId,
            TaskState.TASK_STATE_INPUT_REQUIRED,
            this.agentMessage(
              taskId,
              contextId,
              "Input required: reply to this task with the missing detail to continue.",
            ),
          ),
        );
        if (asked) {
          waiting = true;
          return;
        }
      }
      if (script.delayMs > 0) await sleep(script.delayMs);
      if (this.canceled.has(taskId)) return;

      const question = resuming ? `${this.originalQuestion(ctx.task)} / input: ${script.question}` : script.question;
      const tried = script.asMediaType ?? this.options.outputMediaType();
      if (!refusable(() => this.emitArtifact(bus, taskId, contextId, question, script.chunks, tried)))
        this.emitArtifact(bus, taskId, contextId, question, script.chunks, this.options.outputMediaType());
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED);
    } finally {
      this.canceled.delete(taskId);
      if (!waiting) this.contexts.delete(taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.canceled.add(taskId);
    this.status(bus, taskId, this.contexts.get(taskId) ?? "", TaskState.TASK_STATE_CANCELED);
  };

  private originalQuestion(task: Task | undefined): string {
    const first = task?.history.find((m) => m.role === Role.ROLE_USER);
    return first === undefined ? "" : parseScript(textOf(first)).question;
  }

  private emitArtifact(
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    question: string,
    chunks: number,
    mediaType: string,
  ): void {
    const answer = { worker: this.options.worker, question, answer: `${this.options.worker} answered: ${question}` };
    const artifactId = `${taskId}-result`;
    const artifact = (parts: Part[]): Artifact => ({
      artifactId,
      name: "result",
      description: "The answer.",
      parts,
      metadata: undefined,
      extensions: [],
    });
    if (chunks <= 1) {
      const part: Part =
        mediaType === "application/json"
          ? { content: { $case: "data", value: answer }, metadata: undefined, filename: "", mediaType }
          : textPart(answer.answer, mediaType);
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: artifact([part]),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      return;
    }
    const text = mediaType === "application/json" ? JSON.stringify(answer) : answer.answer;
    const pieces = splitIntoChunks(text, chunks);
    pieces.forEach((piece, i) => {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: artifact([textPart(piece, mediaType)]),
          append: i > 0,
          lastChunk: i === pieces.length - 1,
          metadata: undefined,
        }),
      );
    });
  }

  private agentMessage(taskId: string, contextId: string, text: string): Message {
    return {
      messageId: randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(text, "text/plain")],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
  }

  private status(bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState, message?: Message): void {
    bus.publish(
      AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined }),
    );
  }
}
