/**
 * ObservationInput is derived from the core's vocabulary and the Avro schemas: these checks run in
 * `npm run typecheck` (the @ts-expect-error lines fail it if the type accepts what the server refuses).
 */
import type { ChannelSpelling, PartKindSpelling, TaskStateSpelling } from "@a2a-ledger/core";
import { channelSpellings, partKindSpellings, taskStateSpellings } from "@a2a-ledger/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ObservationInput } from "./observation-input.ts";

type Of<T extends ObservationInput["type"]> = Extract<ObservationInput, { type: T }>;
const common = {
  eventId: "e",
  correlationId: "c",
  occurredAt: "2025-01-31T12:00:00+01:00",
  observer: "o",
  workerId: "w",
};

describe("ObservationInput", () => {
  it("spells states, channels and part kinds exactly as the vocabulary does", () => {
    expectTypeOf<Of<"TaskStateObserved">["state"]>().toEqualTypeOf<TaskStateSpelling>();
    expectTypeOf<Of<"TaskStateObserved">["via"]>().toEqualTypeOf<ChannelSpelling>();
    expectTypeOf<Of<"ArtifactEmitted">["parts"][number]["kind"]>().toEqualTypeOf<PartKindSpelling>();
    expectTypeOf<Of<"ProbeCompleted">["statesObserved"][number]>().toEqualTypeOf<TaskStateSpelling>();
    const states: TaskStateSpelling[] = taskStateSpellings.map(([s]) => s);
    const channels: ChannelSpelling[] = channelSpellings.map(([s]) => s);
    const kinds: PartKindSpelling[] = partKindSpellings.map(([s]) => s);
    expect(states).toContain("cancelled");
    expect(states).toContain("TASK_STATE_CANCELLED");
    expect(channels).toContain("send-response");
    expect(kinds).toContain("text");
  });

  it("makes defaulted and derived fields optional, and nothing else", () => {
    const card: Of<"AgentCardObserved"> = { type: "AgentCardObserved", ...common, cardUrl: "u", card: '{"name":"x"}' };
    const state: Of<"TaskStateObserved"> = {
      type: "TaskStateObserved",
      ...common,
      serverTaskId: "t",
      state: "cancelled",
      via: "push",
    };
    const dispatch: Of<"TaskDispatched"> = { type: "TaskDispatched", ...common, messageId: "m" };
    const artifact: Of<"ArtifactEmitted"> = {
      type: "ArtifactEmitted",
      ...common,
      serverTaskId: "t",
      artifactId: "a",
      parts: [
        { kind: "text", mimeType: "text/plain", sizeBytes: 1 },
        { kind: "DATA", sizeBytes: 2 },
      ],
    };
    const notFound: Of<"TaskNotFoundObserved"> = {
      type: "TaskNotFoundObserved",
      ...common,
      serverTaskId: "t",
      method: "GetTask",
      errorCode: -32001,
    };
    // @ts-expect-error a probe's cardHash names the card probed: it is required, not derived
    const probe: Of<"ProbeCompleted"> = {
      type: "ProbeCompleted",
      ...common,
      statesObserved: ["working"],
      reobservable: [],
      emittedModes: [],
    };
    expect([card, state, dispatch, artifact, notFound, probe]).toHaveLength(6);
  });

  it("refuses what the server refuses", () => {
    const state: Of<"TaskStateObserved"> = {
      type: "TaskStateObserved",
      ...common,
      serverTaskId: "t",
      // @ts-expect-error mixed case is not a spelling
      state: "Working",
      via: "GET",
    };
    const both: Of<"ArtifactEmitted"> = {
      type: "ArtifactEmitted",
      ...common,
      serverTaskId: "t",
      artifactId: "a",
      // @ts-expect-error mimeType and mediaType together
      parts: [{ kind: "TEXT", mimeType: "a/b", mediaType: "a/b", sizeBytes: 1 }],
    };
    const file: Of<"ArtifactEmitted"> = {
      type: "ArtifactEmitted",
      ...common,
      serverTaskId: "t",
      artifactId: "a",
      // @ts-expect-error "file" is a v0.3 part kind the ledger cannot map without the part's content
      parts: [{ kind: "file", sizeBytes: 1 }],
    };
    expect([state, both, file]).toHaveLength(3);
  });
});
