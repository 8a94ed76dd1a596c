import type { CapabilitySnapshot } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { verifiedCardView } from "./verified-card.ts";

const snapshot: CapabilitySnapshot = {
  workerId: "w-signed",
  validFrom: Date.parse("2026-01-01T00:00:00Z"),
  causeEventId: "probe-1",
  cardHash: "h1",
  vendor: "Acme",
  taskStore: "durable",
  advertisedStates: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
  advertisedOutputModes: [{ skillId: "summarize", outputModes: ["application/json", "text/plain"] }],
  defaultOutputModes: ["application/json"],
  verified: true,
  verifiedStates: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
  verifiedOutputModes: ["application/json"],
  durable: true,
  cardUrl: null,
  card: null,
  cacheMaxAgeSeconds: null,
  verifiedSkills: [
    {
      skillId: "summarize",
      states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      outputModes: ["application/json"],
    },
  ],
  signature: "VERIFIED",
};

const signedCard = {
  name: "signed worker",
  defaultOutputModes: ["application/json"],
  skills: [{ id: "summarize", name: "summarize", outputModes: ["application/json", "text/plain"] }],
  signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2lnbmF0dXJl" }],
};

describe("the verified card of a signed card", () => {
  it("carries no signature: the advertised card's signatures would not verify over the rewritten card", () => {
    const view = verifiedCardView(snapshot, signedCard, [], []);
    expect(view.card).not.toHaveProperty("signatures");
    expect(view.card["skills"]).toEqual([{ id: "summarize", name: "summarize", outputModes: ["application/json"] }]);
  });

  it("names the removal in the diff, with no probe evidence behind it (no probe removed it)", () => {
    const view = verifiedCardView(snapshot, signedCard, [], []);
    const removed = view.diff.find((c) => c.path === "/signatures");
    expect(removed?.after ?? null).toBeNull();
    expect(removed).not.toHaveProperty("evidence");
    expect(view.diff.some((c) => c.path === "/skills/0/outputModes/1")).toBe(true);
  });
});

describe("the signature status beside the verified card", () => {
  it("says what ingest found on the fetch of the card in force, and null for a snapshot stored before it was recorded", () => {
    expect(verifiedCardView(snapshot, signedCard, [], []).signature).toBe("VERIFIED");
    const { signature: _signature, ...older } = snapshot;
    expect(verifiedCardView(older as CapabilitySnapshot, signedCard, [], []).signature).toBeNull();
  });
});
