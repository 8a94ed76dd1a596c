/**
 * A real A2A worker on @a2a-js/sdk 1.3.0 (InMemoryTaskStore, JSON-RPC and HTTP+JSON) that counts every
 * message its executor receives, by the ledger decision id the dispatcher puts in the metadata: what
 * "a re-dispatch reaches its worker at most once" is checked against. A message whose text contains
 * `need-input` stops in INPUT_REQUIRED (so probes verify that state); a follow-up completes it; any
 * other message completes with a text/plain artifact.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AGENT_CARD_PATH, type AgentCard, type Message, type Task, TaskState } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { lifecycleExtensionUri } from "@a2a-ledger/core";
import express from "express";

export const skillId = "answer";

export interface ReceivedMessage {
  messageId: string;
  decisionId: string | undefined;
  correlationId: string | undefined;
  text: string;
  at: number;
}

export interface CountingWorker {
  readonly url: string;
  readonly received: readonly ReceivedMessage[];
  /** How many messages carried each decision id. */
  byDecision(): Map<string, number>;
  close(): Promise<void>;
}

function card(name: string, baseUrl: string, taskStore: "durable" | "ephemeral"): AgentCard {
  return {
    name,
    description: "Answers; asks for input when told to.",
    version: "1.0.0",
    supportedInterfaces: duplicateInterfacesForLegacy(
      [
        { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
        { url: `${baseUrl}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
      ],
      ["JSONRPC", "HTTP+JSON"],
    ),
    provider: { organization: "Fault Test Agents", url: "https://faults.example" },
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: lifecycleExtensionUri,
          description: "",
          required: false,
          params: {
            states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
            taskStore,
          },
        },
      ],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: skillId,
        name: "Answer",
        description: "Answers a question.",
        tags: [],
        examples: [],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

const textOf = (message: Message): string => {
  for (const part of message.parts) if (part.content?.$case === "text") return part.content.value;
  return "";
};
const metadataString = (message: Message, key: string): string | undefined => {
  const value = (message.metadata as Record<string, unknown> | undefined)?.[key];
  return typeof value === "string" ? value : undefined;
};

class CountingExecutor implements AgentExecutor {
  constructor(private readonly received: ReceivedMessage[]) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const message = ctx.userMessage;
    const text = textOf(message);
    this.received.push({
      messageId: message.messageId,
      decisionId: metadataString(message, "a2a-ledger.decisionId"),
      correlationId: metadataString(message, "a2a-ledger.correlationId"),
      text,
      at: Date.now(),
    });
    const { taskId, contextId } = ctx;
    const resuming = ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    const task: Task = ctx.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [message],
      metadata: message.metadata,
    };
    bus.publish(AgentEvent.task(task));
    const status = (state: TaskState) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    status(TaskState.TASK_STATE_WORKING);
    if (!resuming && text.includes("need-input")) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED);
      return;
    }
    const part = {
      content: { $case: "text" as const, value: `answered: ${text}` },
      metadata: undefined,
      filename: "",
      mediaType: "text/plain",
    };
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: `${taskId}-result`,
          name: "result",
          description: "",
          parts: [part],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: randomUUID(),
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  };
}

export async function startCountingWorker(
  name: string,
  taskStore: "durable" | "ephemeral" = "ephemeral",
): Promise<CountingWorker> {
  const received: ReceivedMessage[] = [];
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(
    card(name, url, taskStore),
    new InMemoryTaskStore(),
    new CountingExecutor(received),
  );
  const app = express();
  app.use(
    `/${AGENT_CARD_PATH}`,
    agentCardHandler({ agentCardProvider: handler, cache: { maxAge: 3600 }, legacyCompat: { enabled: true } }),
  );
  app.use(
    "/a2a/jsonrpc",
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: true },
    }),
  );
  app.use(
    "/a2a/rest",
    restHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: true },
    }),
  );
  server.on("request", app);
  return {
    url,
    received,
    byDecision() {
      const counts = new Map<string, number>();
      for (const m of received)
        if (m.decisionId !== undefined) counts.set(m.decisionId, (counts.get(m.decisionId) ?? 0) + 1);
      return counts;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
