/**
 * Talking to a mesh worker with the real @a2a-js/sdk client: a client for a base URL over a chosen
 * transport, and user messages in the SDK's shape.
 */
import { Role, type Message } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { randomUUID } from "node:crypto";

export type Transport = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** A client built from the card at `baseUrl`, on the given transport (GRPC: the card's gRPC interface). */
export function clientFor(baseUrl: string, transport: Transport = "JSONRPC"): Promise<Client> {
  const transports =
    transport === "GRPC"
      ? [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()]
      : ClientFactoryOptions.default.transports;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports, preferredTransports: [transport] }),
  );
  return factory.createFromUrl(baseUrl);
}

export interface MessageOptions {
  /** A follow-up to this task. */
  taskId?: string;
  contextId?: string;
  metadata?: Record<string, unknown>;
  messageId?: string;
}

export function userMessage(text: string, options: MessageOptions = {}): Message {
  return {
    messageId: options.messageId ?? randomUUID(),
    contextId: options.contextId ?? "",
    taskId: options.taskId ?? "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: options.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}
