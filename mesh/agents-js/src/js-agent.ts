/**
 * A JS mesh worker as an HTTP server: the Agent Card (with Cache-Control max-age and ETag), JSON-RPC and
 * HTTP+JSON, both protocol versions (v1.0 with `A2A-Version: 1.0`; v0.3 method names and paths through the
 * SDK's legacy compatibility layer), and on request gRPC (v1.0, its own port), all on @a2a-js/sdk with an
 * InMemoryTaskStore.
 *
 * `restart()` stops the server and starts it again on the same port with a new, empty task store: what
 * a process restart does to an in-memory worker. `reload()` re-reads the configuration file.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AGENT_CARD_PATH } from "@a2a-js/sdk";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express, { type Express } from "express";
import { jsonRpcPath, jsWorkerCard, restPath, type JsWorkerKind } from "./cards.ts";
import { startGrpcServer, type JsGrpcServer } from "./grpc-server.ts";
import type { Logger } from "@a2a-ledger/logging";
import { ScriptedExecutor } from "./scripted-executor.ts";
import { readWorkerConfig, type WorkerConfig } from "./worker-config.ts";
import { IngestClient } from "@a2a-ledger/ingest-client";
import { WorkerGuard } from "@a2a-ledger/worker-guard";

/** A worker that enforces its card at emission: refusals are recorded under the ledger's id of the worker. */
export interface GuardOptions {
  workerId: string;
  ingestUrl: string;
  /** The bearer token ingest binds to the guard's observer (`guard:<workerId>`), when ingest wants one. */
  ingestToken?: string;
}

export interface JsAgentOptions {
  kind: JsWorkerKind;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port; a restart keeps the port. */
  port?: number;
  /** JSON configuration file (see worker-config.ts), re-read by reload(). */
  configFile?: string;
  /** Cache-Control max-age of the card, seconds; default 3600 (the SDK's default). */
  cardMaxAgeSeconds?: number;
  logger?: Logger;
  /** Guard the worker's executor with @a2a-ledger/worker-guard (the demo guards W2). */
  guard?: GuardOptions;
  /** Also serve A2A's gRPC binding on this port (0: a free one), named in the card; none by default. */
  grpcPort?: number;
}

export interface RunningJsAgent {
  readonly kind: JsWorkerKind;
  /** Base URL, e.g. http://127.0.0.1:21001 (the card is at /.well-known/agent-card.json). */
  readonly url: string;
  /** The gRPC endpoint (`host:port`) when the worker serves gRPC, else null. */
  readonly grpcTarget: string | null;
  config(): WorkerConfig;
  /** Stops and starts the server on the same port with a new, empty task store. */
  restart(): Promise<void>;
  /** Re-reads the configuration file; the card does not change. */
  reload(): Promise<WorkerConfig>;
  close(): Promise<void>;
}

export const defaultWorkerConfig: Record<JsWorkerKind, WorkerConfig> = {
  w1: { outputMediaType: "application/json" },
  w2: { outputMediaType: "text/plain" },
};

/** The request handler of one worker life: a fresh InMemoryTaskStore every time it is built. */
export function createJsRequestHandler(
  kind: JsWorkerKind,
  card: AgentCard,
  config: () => WorkerConfig,
  guard?: WorkerGuard,
): DefaultRequestHandler {
  const scripted = new ScriptedExecutor({
    worker: card.name,
    supportsInputRequired: kind === "w1",
    guarded: guard !== undefined,
    outputMediaType: () => config().outputMediaType,
  });
  const executor = guard === undefined ? scripted : guard.wrap(scripted);
  return new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
}

/** The express app of one worker life: its request handler (by default a fresh one, so a fresh InMemoryTaskStore). */
export function createJsAgentApp(
  kind: JsWorkerKind,
  baseUrl: string,
  config: () => WorkerConfig,
  cardMaxAgeSeconds = 3600,
  guard?: WorkerGuard,
  requestHandler: DefaultRequestHandler = createJsRequestHandler(kind, jsWorkerCard(kind, baseUrl), config, guard),
): Express {
  const legacyCompat = { enabled: true };
  const app = express();
  app.disable("x-powered-by");
  app.use(
    `/${AGENT_CARD_PATH}`,
    agentCardHandler({ agentCardProvider: requestHandler, cache: { maxAge: cardMaxAgeSeconds }, legacyCompat }),
  );
  app.use(jsonRpcPath, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use(restPath, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  return app;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startJsAgent(options: JsAgentOptions): Promise<RunningJsAgent> {
  const host = options.host ?? "127.0.0.1";
  const defaults = defaultWorkerConfig[options.kind];
  let config = options.configFile === undefined ? defaults : await readWorkerConfig(options.configFile, defaults);
  const getConfig = () => config;
  const log = options.logger;
  let guard: WorkerGuard | undefined;

  // The card names the real port, so the app of the first life is attached once the port is known.
  let server = createServer();
  const port = await listen(server, host, options.port ?? 0);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const grpc: JsGrpcServer | null =
    options.grpcPort === undefined ? null : await startGrpcServer(host, options.grpcPort);
  const card = jsWorkerCard(options.kind, url, grpc?.target);
  if (options.guard !== undefined) {
    const ingest = new IngestClient({
      baseUrl: options.guard.ingestUrl,
      ...(options.guard.ingestToken === undefined ? {} : { token: options.guard.ingestToken }),
    });
    guard = new WorkerGuard({
      workerId: options.guard.workerId,
      card: () => card,
      record: async (o) => {
        log?.info(
          {
            refused:
              o.type === "EmissionRefused" ? { kind: o.kind, state: o.state, artifactId: o.artifactId } : undefined,
            correlationId: o.correlationId,
          },
          "emission refused by the guard",
        );
        return ingest.send([o]);
      },
      onRecordError: (err, o) => log?.error({ err, eventId: o.eventId }, "a refused emission could not be recorded"),
    });
  }
  // One life: a request handler (and its empty task store) that HTTP and gRPC share.
  const life = (): Express => {
    const handler = createJsRequestHandler(options.kind, card, getConfig, guard);
    grpc?.serve(handler);
    return createJsAgentApp(options.kind, url, getConfig, options.cardMaxAgeSeconds, guard, handler);
  };
  server.on("request", life());
  log?.info(
    {
      kind: options.kind,
      url,
      ...(grpc === null ? {} : { grpc: grpc.target }),
      outputMediaType: config.outputMediaType,
    },
    "listening",
  );

  return {
    kind: options.kind,
    url,
    grpcTarget: grpc?.target ?? null,
    config: getConfig,
    async restart() {
      await stop(server);
      const app = life();
      await grpc?.restart();
      // Like a process restart, this takes a moment: peers in this process see their old connections
      // close before the new server answers, instead of reusing a dead pooled socket.
      await new Promise((resolve) => setTimeout(resolve, 100));
      server = createServer(app);
      await listen(server, host, port);
      log?.info({ kind: options.kind, url }, "restarted with an empty task store");
    },
    async reload() {
      if (options.configFile === undefined)
        throw new Error("no configuration file to reload: start the worker with one");
      config = await readWorkerConfig(options.configFile, defaults);
      log?.info({ kind: options.kind, outputMediaType: config.outputMediaType }, "configuration reloaded");
      return config;
    },
    close: async () => {
      await stop(server);
      await grpc?.close();
      await guard?.flush();
    },
  };
}
