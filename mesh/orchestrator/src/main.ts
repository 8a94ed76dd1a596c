/**
 * The orchestrator as its own process, run by a supervisor (`a2a-ledger up --demo`) that restarts and
 * reloads W1 when the story asks (over the IPC channel):
 *
 *     node --import tsx mesh/orchestrator/src/main.ts --story story.json
 *
 * Reads the ledger from KAFKA_BROKERS, SCHEMA_REGISTRY_URL and A2A_LEDGER_TOPIC_SUFFIX like every
 * service. Logs JSON lines: `orchestrator started`, then one per step; the last is
 * `{"msg":"story done","report":…}` (exit 0) or
 * `{"msg":"story failed",…}` (exit 1). A bad story file or no supervisor: exit 2.
 */
import { parseArgs } from "node:util";
import { endpointsFromEnv, suffixedTopicNames, topicNames } from "@a2a-ledger/kafka";
import { chaosOverIpc } from "@a2a-ledger/env";
import { LedgerFeed } from "@a2a-ledger/ledger-feed";
import { createLogger } from "@a2a-ledger/logging";
import { runStory, type StoryConfig } from "./story.ts";
import { readStoryConfig, StoryConfigError } from "./story-config.ts";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { story: { type: "string" } }, strict: true });
  let config: StoryConfig;
  try {
    if (values.story === undefined) throw new StoryConfigError(["--story <file> is required"]);
    config = readStoryConfig(values.story);
  } catch (e) {
    if (!(e instanceof StoryConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  let chaos;
  try {
    chaos = chaosOverIpc(process);
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  const log = createLogger("orchestrator");
  log.info({ runId: config.runId, workers: config.workers }, "orchestrator started");
  const { brokers, registryUrl } = endpointsFromEnv();
  const suffix = process.env.A2A_LEDGER_TOPIC_SUFFIX?.trim();
  const topics = suffix ? suffixedTopicNames(suffix) : topicNames;
  const correlations = config.tasks;
  const workerIds = new Set(Object.values(config.workers).map((w) => w.workerId));
  const feed = new LedgerFeed({
    brokers,
    registryUrl,
    topics: [topics.decisions, topics.observations],
    from: "end",
    clientId: "a2a-ledger-orchestrator",
    keep: (r) =>
      r.correlationId === correlations.lost ||
      r.correlationId === correlations.retried ||
      (r.type === "CapabilitiesVerified" && workerIds.has(r.workerId ?? "")),
  });
  await feed.start();
  try {
    const report = await runStory(config, feed, chaos, log);
    log.info({ report }, "story done");
    return 0;
  } catch (err) {
    log.error({ err }, "story failed");
    return 1;
  } finally {
    await feed.stop().catch(() => undefined);
    process.disconnect?.();
  }
}

process.exitCode = await main();
setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
