import { describe, expect, it } from "vitest";
import { agentCard } from "../test/builders.ts";
import { diffCards } from "./card-diff.ts";
import { cardHash } from "./card-hash.ts";
import { interpretCard, lifecycleExtensionUri, outputModesFor } from "./card.ts";
import { mediaTypeAllowed } from "./media-type.ts";
import { policyFor } from "./policy.ts";
import { specStates } from "./task-state.ts";

describe("card interpretation", () => {
  it("reads states and the task store claim from the lifecycle extension, normalizing v0.3 spellings", () => {
    const a = interpretCard(
      agentCard({ org: "Acme", states: ["working", "input-required", "TASK_STATE_COMPLETED"], taskStore: "durable" }),
    );
    expect(a.states).toEqual(["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]);
    expect(a.taskStore).toBe("durable");
    expect(a.vendor).toBe("Acme");
    expect(a.declaresLifecycle).toBe(true);
  });

  it("advertises every spec state with an unknown task store when the extension is absent", () => {
    const a = interpretCard(agentCard({ org: "Beta" }));
    expect(a.states).toEqual(specStates);
    expect(a.taskStore).toBe("unknown");
    expect(a.declaresLifecycle).toBe(false);
  });

  it("lets a skill's outputModes override defaultOutputModes", () => {
    const card = agentCard({
      org: "X",
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "a" }, { id: "b", outputModes: ["application/pdf"] }],
    });
    const a = interpretCard(card);
    expect(a.skills).toEqual([
      { skillId: "a", outputModes: ["text/plain"] },
      { skillId: "b", outputModes: ["application/pdf"] },
    ]);
    const advertised = { advertisedOutputModes: a.skills, defaultOutputModes: a.defaultOutputModes };
    expect(outputModesFor(advertised, "b")).toEqual(["application/pdf"]);
    expect(outputModesFor(advertised, "unknown-skill")).toEqual(["text/plain"]);
  });

  it("ignores malformed parts instead of throwing", () => {
    const a = interpretCard({
      provider: "nope",
      capabilities: { extensions: [{ uri: lifecycleExtensionUri, params: { states: [1, "bogus", "working"] } }] },
      skills: [{ noId: true }],
    });
    expect(a).toMatchObject({ vendor: null, states: ["TASK_STATE_WORKING"], skills: [], taskStore: "unknown" });
  });

  it("hashes the card without its signatures: a card signed again is the same card", () => {
    const card = { name: "w1", version: "1.0", skills: [{ id: "s", outputModes: ["text/plain"] }] };
    const signed = (signature: string) => ({ ...card, signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature }] });
    // sha256sum of the canonical text {"name":"w1","skills":[{"id":"s","outputModes":["text/plain"]}],"version":"1.0"}
    const unsigned = "de3d9935785dec117ca8559b6db62b68069d47ae2a062f1639d755ca49115bd1";
    expect([cardHash(card), cardHash(signed("a")), cardHash(signed("b"))]).toEqual([unsigned, unsigned, unsigned]);
    // Only the top-level field is the card's signatures: a skill's field of that name is content.
    expect(cardHash({ ...card, skills: [{ id: "s", signatures: [] }] })).not.toBe(
      cardHash({ ...card, skills: [{ id: "s" }] }),
    );
  });

  it("hashes the canonical form, so key order and whitespace do not change the hash", () => {
    const h1 = cardHash(JSON.parse('{"b":1,"a":[1,2]}'));
    const h2 = cardHash(JSON.parse('{ "a": [1, 2],\n "b": 1.0 }'));
    expect(h1).toBe(h2);
    expect(h1).toMatch(/^[0-9a-f]{64}$/);
    // sha256 of the canonical text {"a":[1,2],"b":1}
    expect(h1).toBe("94a786c3662bc7beeb598efa7d8cb58d7bea25d6c275ea9785a0230ff1f8c2ba"); // sha256sum of the canonical text
  });
});

describe("card diff", () => {
  it("reports changed, added and removed fields as JSON pointers with canonical values", () => {
    const before = { name: "A", skills: [{ id: "s", outputModes: ["text/plain"] }], "a/b": 1 };
    const after = { name: "A", skills: [{ id: "s", outputModes: ["text/markdown"] }, { id: "t" }], version: "2" };
    expect(diffCards(before, after)).toEqual([
      { path: "/a~1b", before: "1", after: null },
      { path: "/skills/0/outputModes/0", before: '"text/plain"', after: '"text/markdown"' },
      { path: "/skills/1", before: null, after: '{"id":"t"}' },
      { path: "/version", before: null, after: '"2"' },
    ]);
  });

  it("reports nothing for equal cards", () => {
    expect(diffCards(agentCard({ org: "A" }), agentCard({ org: "A" }))).toEqual([]);
  });
});

describe("trust or verify", () => {
  it("trusts only a listed vendor whose card claims a durable store", () => {
    const config = { trustedVendors: ["Acme"] };
    expect(policyFor(config, { vendor: "Acme", taskStore: "durable" })).toBe("trust");
    expect(policyFor(config, { vendor: "Acme", taskStore: "ephemeral" })).toBe("verify");
    expect(policyFor(config, { vendor: "Acme", taskStore: "unknown" })).toBe("verify");
    expect(policyFor(config, { vendor: "Beta", taskStore: "durable" })).toBe("verify");
    expect(policyFor(config, undefined)).toBe("verify");
  });
});

describe("media types", () => {
  it("compares essences case-insensitively and honours ranges on the allowed side", () => {
    expect(mediaTypeAllowed("Text/Plain; charset=utf-8", ["text/plain"])).toBe(true);
    expect(mediaTypeAllowed("text/markdown", ["text/*"])).toBe(true);
    expect(mediaTypeAllowed("image/png", ["*/*"])).toBe(true);
    expect(mediaTypeAllowed("text/markdown", ["text/plain"])).toBe(false);
  });
});
