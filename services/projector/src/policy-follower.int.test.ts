/**
 * The worker pages judge trust or verify by the trust policy recorded on Kafka (the version in force
 * now), name that version, and follow a new version; A2A_LEDGER_TRUSTED_VENDORS decides nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import { stopChild } from "@a2a-ledger/env/testing";
import type { Admin } from "@a2a-ledger/kafka";
import type { Reconciler } from "@a2a-ledger/reconciler";
import type { TrustPolicy } from "@a2a-ledger/schemas";
import { trustPolicy } from "@a2a-ledger/schemas/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  deleteTopics,
  type Fixture,
  fixture,
  kafka,
  produce,
  serde,
  startProjectorProcess,
  startReconciler,
  waitFor,
  waitForGroupAtEnd,
} from "../test/pipeline.ts";

let admin: Admin;
let f: Fixture;
let reconciler: Reconciler;
const dir = mkdtempSync(join(tmpdir(), "projector-policy-"));

async function record(p: TrustPolicy): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({
    topic: f.topics.policy,
    acks: -1,
    messages: [{ key: String(p.version), value: await serde.encode({ type: "TrustPolicy", ...p }) }],
  });
  await producer.disconnect();
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  f = await fixture(admin, "projector-policy", {
    A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite"),
    A2A_LEDGER_TRUSTED_VENDORS: "Other",
  });
  await record(trustPolicy({ trustedVendors: ["Acme"], setAt: 1 }));
  reconciler = await startReconciler(f);
  const e = events("pp-");
  await produce(f.topics.observations, [
    e.card("w1", agentCard({ org: "Acme", states: ["submitted", "working", "completed"], taskStore: "durable" }), {
      at: Date.now(),
    }),
  ]);
  await waitForGroupAtEnd(admin, f.env.A2A_LEDGER_RECONCILER_GROUP as string, f.topics.observations);
}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  if (f !== undefined) await deleteTopics(admin, f);
  await admin?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

it("shows a worker trusted by the recorded version 1, then under verify once version 2 is in force", async () => {
  const { child, url } = await startProjectorProcess(f.env);
  let last: unknown;
  try {
    const trust = async () =>
      (
        (last = await (await fetch(new URL("v1/workers/w1", url))).json()) as {
          trust?: { policy: string; policyVersion: number | null };
        }
      ).trust;
    expect(
      await waitFor(
        "the worker page",
        async () => ((await trust())?.policyVersion === 1 ? trust() : undefined),
        20_000,
      ),
    ).toMatchObject({ policy: "trust", policyVersion: 1 });
    await record(trustPolicy({ version: 2, validFrom: Date.now(), setAt: Date.now(), reason: "revoked" }));
    expect(
      await waitFor("version 2", async () => ((await trust())?.policyVersion === 2 ? trust() : undefined)),
    ).toMatchObject({ policy: "verify", policyVersion: 2 });
  } catch (e) {
    throw new Error(`${(e as Error).message}: last answer ${JSON.stringify(last)}`);
  } finally {
    await stopChild(child, 20_000);
  }
}, 180_000);
