/**
 * Entry point. `serve` (the default): the views kept up to date from Kafka, the API and the page,
 * until SIGTERM or SIGINT. `rebuild`: the views from offset 0 into fresh tables, swapped in when
 * caught up; exits 0 when done. `prune --before <date>`: deletes the correlations whose last event is
 * earlier (the database only, no Kafka); exits 0 when done. `a2a-ledger projector rebuild|prune` runs
 * this as a child process.
 */
import { stopOnSignal, ConfigError } from "@a2a-ledger/env";
import {
  accessFailureOf,
  createKafka,
  ensureTopics,
  PartitionsSettingError,
  partitionsFromEnv,
  processClientConfig,
  topicSpecs,
} from "@a2a-ledger/kafka";
import { loadConfig, type ProjectorConfig } from "./config.ts";

import { LiveStream } from "./live-stream.ts";
import { createLogger } from "./logger.ts";
import { createMetrics } from "./metrics.ts";
import { Projector } from "./projector.ts";
import { parseCut, prune } from "./prune.ts";
import { rebuild } from "./rebuild.ts";
import { PolicyFollower } from "./policy-follower.ts";
import { buildServer } from "./server.ts";
import { migrate } from "./store/generations.ts";
import { openStore } from "./store/open-store.ts";

const usage = "usage: projector [serve | rebuild | prune --before <ISO date>]";

/** Creates missing topics; new correlation-keyed ones get `partitions` (A2A_LEDGER_PARTITIONS) unless existing ones have a count already. */
async function ensureInputTopics(config: ProjectorConfig, partitions: number): Promise<void> {
  const admin = createKafka({ brokers: config.brokers, clientId: "a2a-ledger-projector-topics" }).admin();
  await admin.connect();
  try {
    await ensureTopics(admin, topicSpecs(config.topics, partitions));
  } finally {
    await admin.disconnect();
  }
}

async function main(): Promise<number> {
  const [command = "serve", ...rest] = process.argv.slice(2);
  const pruning = command === "prune" && rest.length === 2 && rest[0] === "--before";
  if (!(["serve", "rebuild"].includes(command) && rest.length === 0) && !pruning) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const cut = pruning ? parseCut(rest[1] as string) : undefined;
  if (cut !== undefined && !cut.ok) {
    process.stderr.write(`${cut.message}\n${usage}\n`);
    return 2;
  }
  let config: ProjectorConfig;
  let partitions: number;
  try {
    config = loadConfig();
    partitions = partitionsFromEnv();
  } catch (e) {
    if (e instanceof ConfigError || e instanceof PartitionsSettingError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  const store = openStore(config.store);
  await migrate(store);
  if (cut !== undefined && cut.ok) {
    // The database only: Kafka is not needed to prune.
    try {
      const result = await prune(store, cut.value, log);
      log.info({ ...result, before: new Date(result.before).toISOString() }, "prune done");
      return 0;
    } finally {
      await store.close();
    }
  }
  const context = {
    topics: topicSpecs(config.topics).map((t) => t.name),
    groupId: config.groupId,
    client: processClientConfig(),
  };
  let refused = await ensureInputTopics(config, partitions).then(
    () => undefined,
    (e: unknown) => {
      const failure = accessFailureOf(e, context);
      if (failure === undefined) throw e;
      return failure;
    },
  );
  if (refused !== undefined) log.error({ code: refused.code, resource: refused.resource }, refused.message);

  if (command === "rebuild") {
    // A rebuild cannot work without Kafka: the CLI exits 3 with the reason.
    if (refused !== undefined) return 3;
    try {
      const result = await rebuild(config, store, log);
      log.info(result, "rebuild done");
      return 0;
    } finally {
      await store.close();
    }
  }

  const metrics = createMetrics({ defaultMetrics: true });
  const projector = new Projector(config, store, log, metrics);
  const stream = new LiveStream(store);
  // Trust or verify is judged by the recorded trust policy; the variable no longer decides.
  const policy = new PolicyFollower(config, config.topics.policy, log);
  if (config.policy.trustedVendors.length > 0)
    log.warn(
      { ignored: config.policy.trustedVendors },
      "A2A_LEDGER_TRUSTED_VENDORS is ignored: the worker pages judge by the trust policy recorded on Kafka (a2a-ledger policy show)",
    );
  const server = buildServer({ config: { ...config, policy }, store, stream, metrics, kafka: projector, logger: log });
  const stopped = stopOnSignal({
    log,
    graceMs: 30_000,
    stop: async () => {
      await server.close().catch(() => undefined);
      stream.stop();
      await projector.stop();
      await policy.stop();
      await store.close().catch(() => undefined);
    },
  });
  await stream.start();
  // Refused by Kafka (credentials, certificate, ACL): the API keeps serving the views, /readyz says why.
  if (refused === undefined) {
    refused = await projector.start().then(
      () => undefined,
      (e: unknown) => {
        const failure = accessFailureOf(e, context);
        if (failure === undefined) throw e;
        log.error({ code: failure.code, resource: failure.resource }, failure.message);
        return failure;
      },
    );
  }
  if (refused !== undefined) projector.refusedBy(refused);
  else await policy.start();
  const address = await server.listen({ host: config.host, port: config.port });
  log.info({ url: `${address}/`, api: `${address}/v1/tasks`, store: store.location }, "projector ready");
  return stopped;
}

process.exitCode = await main();
// Clients that linger (kafkajs timers) must not keep a stopped service alive.
setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
