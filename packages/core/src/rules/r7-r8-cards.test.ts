/**
 * R7 (r7-probes.ts) and R8 (r8-cards.ts): a probe requested on first contact and on every card change, and
 * a card diffed when it changes and flagged when a dispatch relied on it past its max-age. These hold since
 * default/1 (`givenEach` checks default/1 and default/2 alike). Which card fetches count at all under
 * default/4 is card admission's (card-admission.test.ts); default/4's re-probe of a revoked card is
 * r9-durability.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { givenEach as given } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";

const durable = agentCard({ org: "Acme", states: ["working", "completed"], taskStore: "durable" });

describe("R7 probes", () => {
  it("requests a probe on first contact with a worker under verify", () => {
    const e = events();
    given([])
      .when(e.card("w1", durable, { at: 1 }))
      .then([
        {
          type: "ProbeRequested",
          workerId: "w1",
          cardHash: cardHash(durable),
          reason: "first-contact",
          cardUrl: "https://w1.example/.well-known/agent-card.json",
        },
      ]);
  });

  it("does not probe a trusted worker on first contact", () => {
    const e = events();
    given([], { policy: { trustedVendors: ["Acme"] } })
      .when(e.card("w1", durable, { at: 1 }))
      .thenNothing();
  });

  it("does nothing when the same card is fetched again", () => {
    const e = events();
    given([e.card("w1", durable, { at: 1 })])
      .when(e.card("w1", durable, { at: 500, corr: "other" }))
      .thenNothing();
  });

  it("does nothing when the card is signed again (only its signatures changed), fetch after fetch", () => {
    const e = events();
    const signed = (n: number) => ({
      ...durable,
      signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: `sig-${n}` }],
    });
    const fetches = Array.from({ length: 50 }, (_, i) => e.card("w1", signed(i), { at: 2 + i, corr: `c-${i}` }));
    given([e.card("w1", signed(-1), { at: 1 }), ...fetches])
      .when(e.card("w1", signed(99), { at: 500, corr: "other" }))
      .thenNothing();
  });

  it("probes every card change, even of a trusted worker, and reports the changed fields", () => {
    const e = events();
    const v2 = agentCard({ org: "Acme", states: ["working", "completed", "input-required"], taskStore: "durable" });
    const [changed] = given([e.card("w1", durable, { at: 1 })], { policy: { trustedVendors: ["Acme"] } })
      .when(e.card("w1", v2, { at: 100 }))
      .then([
        { type: "CardChanged", previousCardHash: cardHash(durable), cardHash: cardHash(v2) },
        { type: "ProbeRequested", reason: "card-changed", cardHash: cardHash(v2) },
      ]);
    expect(changed?.type === "CardChanged" && changed.changes).toEqual([
      { path: "/capabilities/extensions/0/params/states/2", before: null, after: '"input-required"' },
    ]);
  });

  it("ignores a probe of a card that is no longer in force", () => {
    const e = events();
    const v2 = agentCard({ org: "Acme", version: "2" });
    given([e.card("w1", durable, { at: 1 }), e.card("w1", v2, { at: 5 })])
      .when(e.probe("w1", cardHash(durable), { at: 6, states: ["TASK_STATE_WORKING"], modes: [] }))
      .thenNothing();
  });
});

describe("R8 card age", () => {
  it("records a dispatch that relied on a card past its max-age", () => {
    const e = events();
    given([e.card("w1", durable, { at: 1_000, maxAge: 60 })])
      .when(e.dispatch("t", "w1", { at: 62_000, cardHash: cardHash(durable), cardFetchedAt: 1_000 }))
      .then([
        {
          type: "ContractViolation",
          kind: "CARD_USED_PAST_MAX_AGE",
          observed: "61s",
          allowed: ["60s"],
          cardHash: cardHash(durable),
        },
      ]);
  });

  it("accepts a dispatch within the max-age, and finds the card by fetch time when the dispatch names no hash", () => {
    const e = events();
    given([e.card("w1", durable, { at: 1_000, maxAge: 60 })])
      .when(e.dispatch("t", "w1", { at: 61_000, cardFetchedAt: 1_000 }))
      .thenNothing();
    given([e.card("w1", durable, { at: 1_000, maxAge: 60 })])
      .when(e.dispatch("t", "w1", { at: 61_001, cardFetchedAt: 1_000 }))
      .then([{ type: "ContractViolation", kind: "CARD_USED_PAST_MAX_AGE" }]);
  });
});
