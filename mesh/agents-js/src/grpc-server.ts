/**
 * A2A's gRPC binding (`lf.a2a.v1.A2AService`) for a JS worker, on @a2a-js/sdk's gRPC service and
 * @grpc/grpc-js, cleartext. The server is bound before the worker's request handler exists (the card
 * names the gRPC port, and the handler is built from the card), so calls go to whichever handler the
 * worker's current life set: a restart swaps in the new handler and its empty task store, and closes the
 * old life's gRPC connections, as a process restart would.
 */
import * as grpc from "@grpc/grpc-js";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { A2AService, grpcService, UserBuilder } from "@a2a-js/sdk/server/grpc";

export interface JsGrpcServer {
  /** `host:port`, as the card names it and gRPC clients dial it. */
  readonly target: string;
  readonly port: number;
  /** The handler of the worker's current life. */
  serve(handler: A2ARequestHandler): void;
  /** Closes every gRPC connection and listens again on the same port (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err === null ? resolve(port) : reject(err),
    ),
  );
}

export async function startGrpcServer(host: string, port: number): Promise<JsGrpcServer> {
  let current: A2ARequestHandler | null = null;
  const handler = (): A2ARequestHandler => {
    if (current === null) throw new Error("the worker is not serving yet");
    return current;
  };
  // Every call goes to the current life's handler.
  const delegate: A2ARequestHandler = {
    getAgentCard: () => handler().getAgentCard(),
    getAuthenticatedExtendedAgentCard: (p, c) => handler().getAuthenticatedExtendedAgentCard(p, c),
    sendMessage: (p, c) => handler().sendMessage(p, c),
    sendMessageStream: (p, c) => handler().sendMessageStream(p, c),
    getTask: (p, c) => handler().getTask(p, c),
    cancelTask: (p, c) => handler().cancelTask(p, c),
    createTaskPushNotificationConfig: (p, c) => handler().createTaskPushNotificationConfig(p, c),
    getTaskPushNotificationConfig: (p, c) => handler().getTaskPushNotificationConfig(p, c),
    listTaskPushNotificationConfigs: (p, c) => handler().listTaskPushNotificationConfigs(p, c),
    deleteTaskPushNotificationConfig: (p, c) => handler().deleteTaskPushNotificationConfig(p, c),
    resubscribe: (p, c) => handler().resubscribe(p, c),
    listTasks: (p, c) => handler().listTasks(p, c),
  };
  const hostPart = host.includes(":") ? `[${host}]` : host;
  const create = () => {
    const server = new grpc.Server();
    server.addService(A2AService, grpcService({ requestHandler: delegate, userBuilder: UserBuilder.noAuthentication }));
    return server;
  };
  let server = create();
  const bound = await bind(server, `${hostPart}:${port}`);
  const stop = (s: grpc.Server) => s.forceShutdown();

  return {
    target: `${hostPart}:${bound}`,
    port: bound,
    serve(h) {
      current = h;
    },
    async restart() {
      stop(server);
      server = create();
      await bind(server, `${hostPart}:${bound}`);
    },
    async close() {
      stop(server);
    },
  };
}
