import { describe, expect, it } from "vitest";
import { checkEmission, type Emission } from "./emission-check.ts";

const lifecycle = (states: string[]) => ({
  uri: "urn:a2a-ledger:ext:task-lifecycle:v1",
  params: { states, taskStore: "ephemeral" },
});
const card = {
  name: "W",
  capabilities: { extensions: [lifecycle(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"])] },
  defaultOutputModes: ["text/plain"],
  skills: [
    { id: "answer", outputModes: ["text/plain"] },
    { id: "report", outputModes: ["application/json", "image/*"] },
    { id: "plain" },
  ],
};
const status = (rawState: string): Emission => ({
  emission: "STATUS",
  serverTaskId: "t-1",
  contextId: "c-1",
  rawState,
});
const artifact = (...mediaTypes: (string | null)[]): Emission => ({
  emission: "ARTIFACT",
  serverTaskId: "t-1",
  contextId: null,
  artifactId: "a-1",
  parts: mediaTypes.map((mediaType) => ({ kind: "TEXT", mediaType, sizeBytes: 1 })),
});

describe("states: given a card with the lifecycle extension", () => {
  it("allows an advertised state, in either protocol version's spelling", () => {
    expect(checkEmission(card, status("TASK_STATE_WORKING"), null)).toEqual({ allowed: true });
    expect(checkEmission(card, status("completed"), null)).toEqual({ allowed: true });
  });

  it("refuses a state the extension does not list, naming what it does list", () => {
    expect(checkEmission(card, status("TASK_STATE_INPUT_REQUIRED"), "answer")).toEqual({
      allowed: false,
      kind: "STATE_NOT_ADVERTISED",
      state: "TASK_STATE_INPUT_REQUIRED",
      rawState: "TASK_STATE_INPUT_REQUIRED",
      allowedValues: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
    });
  });

  it("refuses UNSPECIFIED and spellings outside the spec", () => {
    expect(checkEmission(card, status("TASK_STATE_UNSPECIFIED"), null)).toMatchObject({
      allowed: false,
      state: "TASK_STATE_UNSPECIFIED",
    });
    expect(checkEmission(card, status("paused"), null)).toMatchObject({
      allowed: false,
      state: null,
      rawState: "paused",
    });
  });
});

describe("states: given a card without the extension", () => {
  it("allows every spec state and refuses only what is not one", () => {
    const plain = { name: "W", defaultOutputModes: ["text/plain"] };
    for (const s of [
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_AUTH_REQUIRED",
      "TASK_STATE_COMPLETED",
      "TASK_STATE_FAILED",
      "TASK_STATE_CANCELED",
      "TASK_STATE_REJECTED",
    ]) {
      expect(checkEmission(plain, status(s), null)).toEqual({ allowed: true });
    }
    expect(checkEmission(plain, status("TASK_STATE_UNSPECIFIED"), null).allowed).toBe(false);
  });

  it("treats a malformed card as advertising no extension (every spec state), never as a crash", () => {
    expect(checkEmission("not a card", status("TASK_STATE_WORKING"), null)).toEqual({ allowed: true });
    expect(checkEmission({ capabilities: { extensions: "x" } }, status("TASK_STATE_WORKING"), null)).toEqual({
      allowed: true,
    });
  });
});

describe("artifacts", () => {
  it("holds a named skill to its own output modes, ranges and parameters included", () => {
    expect(checkEmission(card, artifact("application/json"), "report")).toEqual({ allowed: true });
    expect(checkEmission(card, artifact("image/png", "application/json; charset=utf-8"), "report")).toEqual({
      allowed: true,
    });
    expect(checkEmission(card, artifact("application/json"), "answer")).toEqual({
      allowed: false,
      kind: "OUTPUT_MODE_NOT_ADVERTISED",
      refusedModes: ["application/json"],
      allowedValues: ["text/plain"],
    });
  });

  it("holds a skill without its own modes, and a request naming no skill, to the card's defaults", () => {
    expect(checkEmission(card, artifact("text/plain"), "plain")).toEqual({ allowed: true });
    expect(checkEmission(card, artifact("text/html"), "plain")).toMatchObject({
      allowed: false,
      allowedValues: ["text/plain"],
    });
    expect(checkEmission(card, artifact("application/json"), null)).toMatchObject({
      allowed: false,
      refusedModes: ["application/json"],
    });
  });

  it("refuses the artifact when any one part is outside, listing each refused mode once", () => {
    expect(checkEmission(card, artifact("text/plain", "text/html", "text/html"), "answer")).toMatchObject({
      allowed: false,
      refusedModes: ["text/html"],
    });
  });

  it("does not judge a skill the card does not list, nor parts without a media type (as the ledger's R2)", () => {
    expect(checkEmission(card, artifact("application/pdf"), "unlisted")).toEqual({ allowed: true });
    expect(checkEmission(card, artifact(null), "answer")).toEqual({ allowed: true });
  });
});
