/**
 * The reconciler with A2A_LEDGER_RULES=default/4 on Kafka: a card posted by another vendor's
 * orchestrator (standing SIGHTING, unsigned) for the worker that the DESIGN §1 story re-dispatches to,
 * and a card of that worker whose signature failed (its own proxy, INVALID), both through the registry's
 * schema with the fields ingest stamps. Neither replaces the card in force: the lost task still goes to
 * w-gamma, where under default/3 the forgery takes w-gamma's verified card away; the failed signature is
 * w-gamma's CARD_SIGNATURE_INVALID; and live decides what a replay with default/4 decides.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSetV3, defaultRuleSetV4, replay } from "@a2a-ledger/core";
import type { Decision } from "@a2a-ledger/schemas";
import {
  byCorrelation,
  designSection1Story,
  fixture,
  kafkaSuite,
  parseLines,
  produce,
  readDecisions,
  seededPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { story, capabilityPhase, taskPhase } = designSection1Story();
const gamma = capabilityPhase.find((o) => o.type === "AgentCardObserved" && o.workerId === "w-gamma");
if (gamma?.type !== "AgentCardObserved") throw new Error("the story has no card of w-gamma");
const changed = JSON.stringify({ ...JSON.parse(gamma.card), defaultOutputModes: ["text/html"], skills: [] });
const cards = parseLines([
  JSON.stringify({
    ...gamma,
    eventId: "forged-gamma",
    occurredAt: "2025-06-02T09:05:00Z",
    observer: "orchestrator:mallory",
    card: changed,
    cardHash: null,
    standing: "SIGHTING",
  }),
  JSON.stringify({
    ...gamma,
    eventId: "bad-signature-gamma",
    occurredAt: "2025-06-02T09:06:00Z",
    observer: "proxy:w-gamma",
    card: changed,
    cardHash: null,
    signature: "INVALID",
    signatureKeyId: "gamma-2025",
    standing: "WORKER",
  }),
]);
const log = [...capabilityPhase, ...cards, ...taskPhase];
const redispatchTargets = (decisions: readonly Decision[]) =>
  decisions.flatMap((d) => (d.type === "RedispatchCommanded" ? [d.targetWorkerId] : []));

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

describe("the reconciler with A2A_LEDGER_RULES=default/4: cards that may not replace the card in force", () => {
  it("keeps w-gamma's verified card against a stranger's sighting and a failed signature, as the replay does", async () => {
    const policy = { policy: seededPolicy() };
    const expected = replay(log, defaultRuleSetV4, policy);
    // The forgery matters: default/3 takes it, and the lost task no longer goes to w-gamma.
    expect(redispatchTargets(replay(story, defaultRuleSetV4, policy))).toEqual(["w-gamma"]);
    expect(redispatchTargets(replay(log, defaultRuleSetV3, policy))).not.toContain("w-gamma");
    expect(redispatchTargets(expected)).toEqual(["w-gamma"]);

    const f = await fixture(admin, "card-admission");
    fixtures.push(f);
    const reconciler = await startInProcess(f, { A2A_LEDGER_RULES: "default/4" });
    running.push(reconciler);
    await produce(f.topics.observations, [...capabilityPhase, ...cards]);
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, taskPhase);
    await waitForGroupAtEnd(admin, f);

    const decisions = await readDecisions(f.topics.decisions);
    expect(new Set(decisions.map((d) => d.rulesVersion))).toEqual(new Set(["default/4"]));
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
    const caused = (id: string) => decisions.filter((d) => d.causeEventIds[0] === id);
    expect(caused("forged-gamma")).toEqual([]);
    expect(caused("bad-signature-gamma")).toMatchObject([
      { type: "ContractViolation", kind: "CARD_SIGNATURE_INVALID", workerId: "w-gamma", observed: "INVALID" },
    ]);
    expect(redispatchTargets(decisions)).toEqual(["w-gamma"]);
  }, 120_000);
});
