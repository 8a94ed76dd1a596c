/**
 * A JS mesh worker as its own process:
 *
 *     tsx mesh/agents-js/src/main.ts --agent w1 --port 21001 [--host 127.0.0.1] [--config w1.json] [--card-max-age 3600]
 *         [--grpc-port 21101] [--guard-worker-id W2 --guard-ingest-url http://127.0.0.1:18090]
 *
 * With --grpc-port the worker also serves A2A's gRPC binding there (0: a free port), named in its card.
 *
 * With the two --guard options the worker enforces its card at emission (@a2a-ledger/worker-guard) and records
 * each refusal through the ingest API under that worker id, with the bearer token in GUARD_INGEST_TOKEN if set.
 *
 * Logs JSON lines on stdout; the first is `{"msg":"listening","url":…}`. SIGHUP re-reads the configuration
 * file; SIGTERM and SIGINT stop the worker. A restart is a new process on the same port: the tasks are gone.
 */
import { parseArgs } from "node:util";
import { startJsAgent } from "./js-agent.ts";
import { createLogger } from "@a2a-ledger/logging";

const { values } = parseArgs({
  options: {
    agent: { type: "string" },
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "0" },
    config: { type: "string" },
    "card-max-age": { type: "string", default: "3600" },
    "grpc-port": { type: "string" },
    "guard-worker-id": { type: "string" },
    "guard-ingest-url": { type: "string" },
  },
  strict: true,
});

const kind = values.agent;
const port = Number(values.port);
const cardMaxAgeSeconds = Number(values["card-max-age"]);
if (kind !== "w1" && kind !== "w2") {
  process.stderr.write("--agent must be w1 or w2\n");
  process.exit(2);
}
const grpcPort = values["grpc-port"] === undefined ? undefined : Number(values["grpc-port"]);
const isPort = (p: number) => Number.isInteger(p) && p >= 0 && p <= 65535;
if (
  !isPort(port) ||
  (grpcPort !== undefined && !isPort(grpcPort)) ||
  !Number.isInteger(cardMaxAgeSeconds) ||
  cardMaxAgeSeconds < 0
) {
  process.stderr.write("--port and --grpc-port must be 0–65535 and --card-max-age a whole number of seconds\n");
  process.exit(2);
}

if ((values["guard-worker-id"] === undefined) !== (values["guard-ingest-url"] === undefined)) {
  process.stderr.write("--guard-worker-id and --guard-ingest-url go together\n");
  process.exit(2);
}
const ingestToken = process.env.GUARD_INGEST_TOKEN?.trim() || undefined;
const guard =
  values["guard-worker-id"] === undefined
    ? undefined
    : {
        workerId: values["guard-worker-id"],
        ingestUrl: values["guard-ingest-url"] ?? "",
        ...(ingestToken === undefined ? {} : { ingestToken }),
      };

const log = createLogger(kind.toUpperCase());
const agent = await startJsAgent({
  kind,
  host: values.host,
  port,
  configFile: values.config,
  cardMaxAgeSeconds,
  logger: log,
  guard,
  ...(grpcPort === undefined ? {} : { grpcPort }),
}).catch((err: unknown) => {
  // A bad configuration file or a port in use: say so in one line and stop.
  process.stderr.write(`${kind.toUpperCase()} could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});

process.on("SIGHUP", () => {
  agent
    .reload()
    .catch((err: unknown) => log.error({ err }, "configuration reload failed; the previous configuration stays"));
});
const shutdown = (signal: string) => {
  log.info({ signal }, "stopping");
  agent.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
