/**
 * Card admission (card-admission.ts, new in default/4): which card fetches may replace the card in force —
 * a failed or dropped signature is the worker's violation, another vendor's unsigned sighting is not taken.
 * The `default/4` block holds it as specs that fail on default/3 (`fixedInDefault4`, test/given.ts).
 */
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, all, events, lifecycle, skills } from "../../test/builders.ts";
import { fixedInDefault4, given } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";
import { defaultRuleSetV4 } from "./rule-sets.ts";

describe("default/4", () => {
  describe("a card replaces the card in force only when admitted", () => {
    const cardA = agentCard({ org: "Org-w1", states: lifecycle, skills });
    const cardB = agentCard({ org: "Org-w1", states: lifecycle, skills, version: "2.0.0" });
    const worker = { observer: "proxy:w1", standing: "WORKER" } as const;
    /** w1's card A fetched by its own proxy (signed when `signature` says so) and probed. */
    const inForce = (e: ReturnType<typeof events>, signature?: "VERIFIED") => [
      e.card("w1", cardA, { at: 1, ...worker, ...(signature === undefined ? {} : { signature, keyId: "w1-2026" }) }),
      e.probe("w1", cardHash(cardA), { at: 2, states: all, modes: ["text/plain"] }),
    ];

    it("does not let another vendor's sighting replace a worker's card, nor probe it", () => {
      const e = events();
      const sighting = e.card("w1", cardB, { at: 50, observer: "orchestrator:other-vendor", standing: "SIGHTING" });
      const spec = fixedInDefault4(inForce(e)).when(sighting);
      expect(spec.v3.map((d) => d.type)).toEqual(["CardChanged", "ProbeRequested"]);
      spec.thenNothing();
    });

    it("takes a sighting whose signature verified with a key trusted for the worker", () => {
      const e = events();
      const signed = e.card("w1", cardB, {
        at: 50,
        observer: "orchestrator:other-vendor",
        standing: "SIGHTING",
        signature: "VERIFIED",
        keyId: "w1-2026",
      });
      given(inForce(e), { ruleSet: defaultRuleSetV4 })
        .when(signed)
        .then([{ type: "CardChanged", workerId: "w1" }, { type: "ProbeRequested" }]);
    });

    it("records a card whose signature failed as the worker's violation, and keeps the card in force", () => {
      const e = events();
      const history = [
        ...inForce(e),
        e.card("w1", cardB, { at: 50, ...worker, signature: "INVALID", keyId: "w1-2026" }),
      ];
      const spec = fixedInDefault4(history.slice(0, -1)).when(history[2] as Observation);
      expect(spec.v3.map((d) => d.type)).toEqual(["CardChanged", "ProbeRequested"]);
      spec.then([
        {
          type: "ContractViolation",
          kind: "CARD_SIGNATURE_INVALID",
          workerId: "w1",
          observed: "INVALID",
          cardHash: cardHash(cardB),
          detail: expect.stringContaining("key w1-2026"),
        },
      ]);
      // Card B never came into force: a probe of it verifies nothing.
      fixedInDefault4(history)
        .when(e.probe("w1", cardHash(cardB), { at: 60, states: all, modes: ["text/plain"] }))
        .thenNothing();
    });

    it("charges nothing to the worker for a stranger's post of a card with a signature by an unknown key", () => {
      const e = events();
      const forged = e.card("w1", cardB, {
        at: 50,
        observer: "orchestrator:x",
        standing: "SIGHTING",
        signature: "UNKNOWN_KEY",
      });
      fixedInDefault4(inForce(e)).when(forged).thenNothing();
    });

    it("flags a worker whose cards were signed and now arrive unsigned, and keeps the signed card", () => {
      const e = events();
      const spec = fixedInDefault4(inForce(e, "VERIFIED")).when(
        e.card("w1", cardB, { at: 50, ...worker, signature: "UNSIGNED" }),
      );
      expect(spec.v3.map((d) => d.type)).toEqual(["CardChanged", "ProbeRequested"]);
      spec.then([{ type: "ContractViolation", kind: "CARD_SIGNATURE_DROPPED", workerId: "w1", observed: "UNSIGNED" }]);
    });

    it("marks a card in force verified when the same card arrives signed, so dropping the signature later is flagged", () => {
      const e = events();
      const history = [
        ...inForce(e),
        e.card("w1", cardA, { at: 40, ...worker, signature: "VERIFIED", keyId: "w1-2026" }),
      ];
      given(history.slice(0, -1), { ruleSet: defaultRuleSetV4 })
        .when(history[2] as Observation)
        .thenNothing();
      fixedInDefault4(history)
        .when(e.card("w1", cardA, { at: 50, ...worker, signature: "UNSIGNED" }))
        .then([{ type: "ContractViolation", kind: "CARD_SIGNATURE_DROPPED", cardHash: cardHash(cardA) }]);
    });
  });
});
