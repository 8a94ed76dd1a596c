/**
 * The reconciler judges by the trust policy recorded on Kafka: it seeds version 1 from its variable
 * only on an empty policy topic; once a version is recorded the variable decides nothing, and a version
 * recorded while it runs governs the events after its validFrom.
 */
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import type { Decision } from "@a2a-ledger/schemas";
import { trustPolicy } from "@a2a-ledger/schemas/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fixture,
  kafkaSuite,
  produce,
  readAll,
  readDecisions,
  recordPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });
const acme = agentCard({ org: "Acme", states: ["submitted", "working", "completed", "failed"], taskStore: "durable" });

/** The losses decided, by correlation (c1 and c2 may sit on different partitions: no order between them). */
const lossesOf = (decisions: Decision[]) =>
  decisions
    .filter((d) => d.type === "TaskFailed" || d.type === "TaskIndeterminate")
    .map((d) => [d.correlationId, d.type, d.policyVersion])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe("the recorded trust policy", () => {
  it("decides instead of A2A_LEDGER_TRUSTED_VENDORS once a version is recorded, and a new version governs from its validFrom", async () => {
    // given version 1 recorded trusting Acme, and a reconciler whose variable trusts nobody
    const f = await fixture(admin, "policy-recorded", { A2A_LEDGER_TRUSTED_VENDORS: "Other" });
    fixtures.push(f);
    await recordPolicy(f.topics.policy, trustPolicy({ trustedVendors: ["Acme"], setAt: 1 }));
    running.push(await startInProcess(f));
    const e = events("pf-");
    const t = Date.now();
    // when Acme's task is lost (version 1 in force), then version 2 (nobody trusted) is recorded and another is lost after it
    // (the card first, on its own: it may sit on another partition than c1, and a loss judged before the
    // card's snapshot is in the capability table would be judged without it — not what this test is about)
    await produce(f.topics.observations, [e.card("w1", acme, { at: t })]);
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, [
      e.dispatch("c1", "w1", { at: t + 1 }),
      e.state("c1", "w1", "a1", "working", { at: t + 2 }),
      e.notFound("c1", "w1", "a1", { at: t + 3 }),
    ]);
    await waitForGroupAtEnd(admin, f);
    await recordPolicy(
      f.topics.policy,
      trustPolicy({ version: 2, validFrom: t + 10_000, setAt: t, reason: "revoked" }),
    );
    await produce(f.topics.observations, [
      e.dispatch("c2", "w1", { at: t + 10_000 }),
      e.state("c2", "w1", "a2", "working", { at: t + 10_001 }),
      e.notFound("c2", "w1", "a2", { at: t + 10_002 }),
    ]);
    await waitForGroupAtEnd(admin, f);
    // then the first loss failed under version 1, the second is indeterminate under version 2, and nothing was seeded
    expect(lossesOf(await readDecisions(f.topics.decisions))).toEqual([
      ["c1", "TaskFailed", 1],
      ["c2", "TaskIndeterminate", 2],
    ]);
    expect(await readAll(f.topics.policy, 5_000)).toHaveLength(2);
  }, 120_000);
});
