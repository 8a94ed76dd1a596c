/**
 * Integration-test stack for the CLI: a private suffixed topic set, the real reconciler started as
 * its own process by path (the CLI does not depend on services' code), observations produced straight
 * to the topic with the Serde, and waiting for the reconciler to commit everything.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { readyOnMessage, spawnService, stopChild } from "@a2a-ledger/env/testing";
import {
  type Admin,
  createKafka,
  endpointsFromEnv,
  ensureTopics,
  type Kafka,
  logLevel,
  suffixedTopicNames,
  topicSpecs,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { produceAll, readToEnd, waitForGroupAtEnd } from "@a2a-ledger/kafka/testing";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";

const repo = join(import.meta.dirname, "../..");
export const endpoints = endpointsFromEnv();
export const kafka: Kafka = createKafka({
  brokers: endpoints.brokers,
  clientId: "cli-test",
  logLevel: logLevel.NOTHING,
});
export const serde = new Serde(endpoints.registryUrl);

export interface Stack {
  suffix: string;
  topics: TopicNames;
  groupId: string;
  reconciler: ChildProcess | undefined;
  /** Everything the running reconciler wrote so far ("" when none runs). */
  reconcilerOutput: () => string;
}

export async function createStack(admin: Admin, label: string): Promise<Stack> {
  const suffix = `${label}-${randomUUID().slice(0, 8)}`;
  const topics = suffixedTopicNames(suffix);
  await ensureTopics(admin, topicSpecs(topics));
  return { suffix, topics, groupId: `reconciler-${suffix}`, reconciler: undefined, reconcilerOutput: () => "" };
}

/** `services/reconciler/src/main.ts` as a child process on the stack's topics; resolves once it started. */
export async function startReconciler(stack: Stack, env: NodeJS.ProcessEnv = {}): Promise<{ output: () => string }> {
  const service = await spawnService(
    "the reconciler",
    process.execPath,
    ["--import", "tsx", join(repo, "services/reconciler/src/main.ts")],
    {
      cwd: repo,
      env: {
        ...process.env,
        A2A_LEDGER_TOPIC_SUFFIX: stack.suffix,
        A2A_LEDGER_RECONCILER_GROUP: stack.groupId,
        A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing",
        A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
        ...env,
      },
      startTimeoutMs: 90_000,
      ready: readyOnMessage("reconciler started"),
    },
  );
  stack.reconciler = service.child;
  stack.reconcilerOutput = () => service.output();
  return { output: () => service.output() };
}

export async function stopReconciler(stack: Stack): Promise<void> {
  const child = stack.reconciler;
  stack.reconciler = undefined;
  if (child !== undefined) await stopChild(child, 20_000);
}

export async function deleteStack(admin: Admin, stack: Stack): Promise<void> {
  await stopReconciler(stack);
  await admin.deleteTopics({ topics: Object.values(stack.topics) }).catch(() => undefined);
}

/** Observations encoded with the Serde, keyed by correlationId, idempotent, acks=all. */
export async function produce(
  topic: string,
  observations: readonly Observation[],
  raw: { key: string; value: Buffer }[] = [],
): Promise<void> {
  await produceAll(kafka, topic, observations, { key: (o) => o.correlationId, encode: (o) => serde.encode(o), raw });
}

/**
 * Waits until the reconciler's group committed offsets to the end of the observations topic. Fails at once
 * when the reconciler exits, and on either failure says what the reconciler wrote last (a wait that runs
 * into the test hook's timeout would say nothing).
 */
export async function waitForReconciler(admin: Admin, stack: Stack, timeoutMs = 120_000): Promise<void> {
  const child = stack.reconciler;
  let onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
  const exited = new Promise<never>((_, reject) => {
    onExit = (code, signal) =>
      reject(new Error(`the reconciler exited (${code ?? signal}) before its group reached the end`));
    if (child !== undefined && (child.exitCode !== null || child.signalCode !== null))
      onExit(child.exitCode, child.signalCode);
    else child?.once("exit", onExit);
  });
  try {
    await Promise.race([waitForGroupAtEnd(admin, stack.groupId, stack.topics.observations, timeoutMs), exited]);
  } catch (error) {
    const tail = stack.reconcilerOutput().split("\n").slice(-40).join("\n");
    throw new Error(`${(error as Error).message}\nthe reconciler's last output:\n${tail}`, { cause: error });
  } finally {
    if (onExit !== undefined) child?.off("exit", onExit);
  }
}

/**
 * Every decision committed on the stack's decisions topic, read to its end with a consumer of its own
 * (read_committed): call it once the reconciler's group is at the end of its input. Per correlation in the
 * order committed (one partition each).
 */
export async function committedDecisions(admin: Admin, stack: Stack, timeoutMs = 60_000): Promise<Decision[]> {
  const messages = await readToEnd(kafka, admin, stack.topics.decisions, timeoutMs);
  return Promise.all(messages.map(async (m) => (await serde.decode(m.value ?? Buffer.alloc(0))).record as Decision));
}
