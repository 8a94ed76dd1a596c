/**
 * `a2a-ledger up [--demo] [--exit-after-demo]`: the local ledger — Kafka and the registry (started
 * or reused), the ingest API, the reconciler and the projector (its own process; its page's URL is
 * printed) — running until Ctrl-C. With --demo, the DESIGN §1
 * story (examples/design-section-1.ndjson) is posted through the ingest API under fresh ids and the
 * reconciler's decisions are printed as they are committed, next to what the file replay predicts.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import { loadConfig as loadStackConfig, up as stackUp } from "@a2a-ledger/infra";
import { createIngestApp, loadConfig as loadIngestConfig } from "@a2a-ledger/ingest";
import { IngestClient } from "@a2a-ledger/ingest-client";
import { createKafka, ensureTopics, topicSpecs } from "@a2a-ledger/kafka";
import { loadReconcilerConfig, Reconciler } from "@a2a-ledger/reconciler";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";
import type { Command } from "../command.ts";
import { describeDecision } from "../describe-decision.ts";
import { projectorReady, spawnProjector } from "../projector-process.ts";
import { exitCodes, type Io } from "../io.ts";

const usage = "usage: a2a-ledger up [--demo] [--exit-after-demo]";
export const demoFile = new URL("../../examples/design-section-1.ndjson", import.meta.url);

/** The §1 story with every id made fresh, so the demo can run again on the same topics. */
export function freshStory(runId: string): Record<string, unknown>[] {
  const lines = readFileSync(demoFile, "utf8").split("\n").filter((l) => l.trim() !== "");
  return lines.map((line) => {
    const o = JSON.parse(line) as Record<string, unknown>;
    return { ...o, eventId: `${runId}-${String(o.eventId)}`, correlationId: `${runId}-${String(o.correlationId)}`, workerId: `${runId}-${String(o.workerId)}` };
  });
}

async function demo(io: Io, ingestUrl: string, brokers: string, registryUrl: string, decisionsTopic: string): Promise<boolean> {
  const runId = `demo-${randomUUID().slice(0, 8)}`;
  const story = freshStory(runId);
  const { parseObservation } = await import("@a2a-ledger/core");
  const expected = replay(story.map((o) => {
    const r = parseObservation(o);
    if (!r.ok) throw new Error(`demo story is invalid: ${JSON.stringify(r.issues)}`);
    return r.observation as Observation;
  }), defaultRuleSet);
  const serde = new Serde(registryUrl);
  const kafka = createKafka({ brokers, clientId: "a2a-ledger-demo" });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(decisionsTopic);
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `a2a-ledger-demo-${runId}`, maxWaitTimeInMs: 100 });
  const seen: Decision[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const seenAtLeast = (count: number, timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      if (seen.length >= count) return resolve(true);
      const timer = setTimeout(() => resolve(false), timeoutMs);
      waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(true)) });
    });
  await consumer.connect();
  await consumer.subscribe({ topic: decisionsTopic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (!message.key?.toString().startsWith(runId) || message.value === null) return;
      const { record } = await serde.decode(message.value);
      seen.push(record as Decision);
      io.stdout(`  ${describeDecision(record as Decision)}\n`);
      for (const w of waiters) if (seen.length >= w.count) w.resolve();
    },
  });
  // Only what this demo causes: start at the current end of every partition.
  for (const { partition, offset } of ends) consumer.seek({ topic: decisionsTopic, partition, offset });
  const client = new IngestClient({ baseUrl: ingestUrl });
  const probes = story.filter((o) => String(o.correlationId).startsWith(`${runId}-probe-`));
  const probeDecisions = expected.filter((d) => d.correlationId.startsWith(`${runId}-probe-`)).length;
  io.stdout(`demo ${runId}: posting ${probes.length} card and probe observations to ${ingestUrl}\n`);
  await client.send(probes as never);
  // Probes come before tasks: the capabilities they verify are committed with their decisions.
  await seenAtLeast(probeDecisions, 60_000);
  io.stdout(`demo ${runId}: posting ${story.length - probes.length} task observations (the §1 story)\n`);
  await client.send(story.filter((o) => !probes.includes(o)) as never);
  const outcome = (await seenAtLeast(expected.length, 60_000)) ? "done" : "timeout";
  await consumer.disconnect();
  const ok = outcome === "done" && JSON.stringify(seen.map((d) => d.decisionId).sort()) === JSON.stringify(expected.map((d) => d.decisionId).sort());
  io.stdout(ok ? `demo ${runId}: ${seen.length} decisions committed, the ones the file replay predicts\n` : `demo ${runId}: ${seen.length} decisions committed, the replay predicts ${expected.length}: they differ\n`);
  return ok;
}

export const command: Command = {
  name: "up",
  summary: "run the local ledger: Kafka, registry, ingest API and reconciler (--demo: the DESIGN §1 story)",
  usage,
  async run(args, io) {
    const { values } = parseArgs({ args, options: { demo: { type: "boolean", default: false }, "exit-after-demo": { type: "boolean", default: false } }, strict: true });
    const state = await stackUp(loadStackConfig(), (line) => io.stdout(`stack: ${line}\n`));
    const env: NodeJS.ProcessEnv = { ...process.env, KAFKA_BROKERS: state.brokers, SCHEMA_REGISTRY_URL: state.registryUrl };
    const reconcilerConfig = loadReconcilerConfig(env);
    // A2A_LEDGER_TOPIC_SUFFIX selects a side-by-side topic set: make sure it exists too.
    const admin = createKafka({ brokers: state.brokers, clientId: "a2a-ledger-up" }).admin();
    await admin.connect();
    await ensureTopics(admin, topicSpecs(reconcilerConfig.topics)).finally(() => admin.disconnect());
    const reconciler = new Reconciler(reconcilerConfig);
    await reconciler.start();
    const ingestConfig = loadIngestConfig({ ...env, INGEST_TOPIC: reconcilerConfig.topics.observations, INGEST_LOG_LEVEL: env.INGEST_LOG_LEVEL ?? "warn" });
    const ingest = createIngestApp(ingestConfig);
    const address = await ingest.server.listen({ host: ingestConfig.host, port: ingestConfig.port });
    io.stdout(`ingest: POST ${address}/v1/observations (docs ${address}/docs)\nreconciler: group ${reconcilerConfig.groupId}, rules ${reconcilerConfig.ruleSet.rulesVersion}\n`);
    const projector = spawnProjector(["serve"], { ...env, PROJECTOR_LOG_LEVEL: "info" });
    io.stdout(`projector: ${await projectorReady(projector, (line) => io.stderr(line))} (the lineage page; API under /v1)\n`);
    const stop = async () => {
      await ingest.server.close();
      await reconciler.stop();
      if (projector.exitCode === null && projector.signalCode === null) {
        const exited = new Promise((resolve) => projector.once("exit", resolve));
        projector.kill("SIGTERM");
        await exited;
      }
    };
    let code: number = exitCodes.ok;
    if (values.demo) {
      const ok = await demo(io, address, state.brokers, state.registryUrl, reconcilerConfig.topics.decisions);
      code = ok ? exitCodes.ok : exitCodes.checkFailed;
    }
    if (values["exit-after-demo"]) {
      await stop();
      return code;
    }
    io.stdout("running; Ctrl-C stops the ingest API and the reconciler (`npm run infra:down` stops Kafka and the registry)\n");
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await stop();
    return code;
  },
};
