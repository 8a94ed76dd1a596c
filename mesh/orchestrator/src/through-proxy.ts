/**
 * How the orchestrator reaches a worker: only through its recording proxy (the proxy rewrites the card's
 * interface URLs to itself, so a client built from the card stays on the proxy), with the real
 * @a2a-js/sdk client, naming the ledger's correlation, skill and attempt in headers and message metadata
 * so the proxy records every call under the logical task.
 */
import { taskStateToJSON, type Message, type Task } from "@a2a-js/sdk";
import type { Client, RequestOptions } from "@a2a-js/sdk/client";
import { ledgerHeadersOf, ledgerMetadataOf } from "@a2a-ledger/a2a-client";
import { clientFor, userMessage } from "@a2a-ledger/mesh-agents";

export interface MeshWorker {
  workerId: string;
  /** The worker's recording proxy. */
  url: string;
}

export interface Call {
  correlationId: string;
  skillId?: string;
  attempt?: number;
  timeoutMs?: number;
}

function options(call: Call): RequestOptions {
  return { serviceParameters: ledgerHeadersOf(call), signal: AbortSignal.timeout(call.timeoutMs ?? 60_000) };
}

const metadata = (call: Call): Record<string, string | number> => ledgerMetadataOf(call);

export const stateName = (task: Task): string => taskStateToJSON(task.status?.state ?? 0);

function asTask(result: Task | Message, worker: MeshWorker): Task {
  if (!("status" in result)) throw new Error(`${worker.workerId} answered with a message, not a task`);
  return result;
}

/** A worker behind its proxy: the card read once (through the proxy), then calls named for the ledger. */
export class ProxiedWorker {
  private constructor(
    readonly worker: MeshWorker,
    private readonly client: Client,
  ) {}

  /** Reads the worker's card through its proxy: the ledger's first contact with the worker. */
  static async connect(worker: MeshWorker): Promise<ProxiedWorker> {
    return new ProxiedWorker(worker, await clientFor(worker.url));
  }

  /** A new task (blocking until it completes or stops in an interrupted state). */
  async dispatch(text: string, call: Call & { acceptedOutputModes: string[] }): Promise<Task> {
    const configuration = {
      acceptedOutputModes: call.acceptedOutputModes,
      taskPushNotificationConfig: undefined,
      historyLength: undefined,
      returnImmediately: false,
    };
    return asTask(
      await this.client.sendMessage(
        { tenant: "", message: userMessage(text, { metadata: metadata(call) }), configuration, metadata: undefined },
        options(call),
      ),
      this.worker,
    );
  }

  /** A follow-up message to a task waiting for input. */
  async supplyInput(task: { id: string; contextId: string }, text: string, call: Call): Promise<Task> {
    return asTask(
      await this.client.sendMessage(
        {
          tenant: "",
          message: userMessage(text, { taskId: task.id, contextId: task.contextId, metadata: metadata(call) }),
          configuration: undefined,
          metadata: undefined,
        },
        options(call),
      ),
      this.worker,
    );
  }

  getTask(id: string, call: Call): Promise<Task> {
    return this.client.getTask({ tenant: "", id, historyLength: 0 }, options(call));
  }
}
