import { beforeAll, describe, expect, it } from "vitest";
import { endpointsFromEnv, topicNames } from "@a2a-ledger/kafka";
import { dlqHeader } from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { sampleDecision } from "@a2a-ledger/schemas/testing";
import { story } from "../test/story.ts";
import { InputDecoder, type ProjectorInput } from "./inputs.ts";

const serde = new Serde(endpointsFromEnv().registryUrl);
const decoder = new InputDecoder(serde, topicNames);
const at = (topic: string, offset = 7) => ({ topic, partition: 2, offset, timestamp: 1_750_000_000_000 });
const [card] = story();

beforeAll(async () => {
  await serde.registerAll();
});

function deadLetter(input: ProjectorInput) {
  if (input.kind !== "dead-letter") throw new Error(`expected a dead letter, got ${input.kind}`);
  return input.deadLetter;
}

describe("records of the input topics that cannot be projected become dead letters with a stable reason (against the real registry)", () => {
  it("decodes what each topic carries", async () => {
    const observation = await decoder.decode(at(topicNames.observations), {
      key: Buffer.from(card!.correlationId),
      value: await serde.encode(card!),
    });
    expect(observation).toMatchObject({ kind: "observation", record: { eventId: card!.eventId } });
    const d = sampleDecision("RedispatchCommanded");
    expect(
      await decoder.decode(at(topicNames.commands), {
        key: Buffer.from(d.correlationId),
        value: await serde.encode(d),
      }),
    ).toMatchObject({ kind: "command" });
    expect(await decoder.decode(at(topicNames.capabilities), { key: Buffer.from("w-1"), value: null })).toMatchObject({
      kind: "skip",
    });
  });

  it.each([
    [
      "bytes that are not Avro",
      topicNames.observations,
      "k",
      Buffer.from('{"type":"TaskStateObserved"}'),
      "PROJECTOR_UNDECODABLE",
    ],
    ["an empty value", topicNames.decisions, "k", Buffer.alloc(0), "PROJECTOR_UNDECODABLE"],
    ["a tombstone on a non-compacted topic", topicNames.observations, "k", null, "PROJECTOR_UNDECODABLE"],
    [
      "an unknown schema id",
      topicNames.observations,
      "k",
      Buffer.from([0, 0x7f, 0xff, 0xff, 0x01, 0x02]),
      "PROJECTOR_UNKNOWN_SCHEMA",
    ],
  ])("%s", async (_what, topic, key, value, reason) => {
    const d = deadLetter(await decoder.decode(at(topic), { key: Buffer.from(key), value }));
    expect(d).toMatchObject({
      recordedBy: "projector",
      reason,
      sourceTopic: topic,
      sourcePartition: 2,
      sourceOffset: 7,
    });
  });

  it("a record of the wrong type for its topic, and a key that is not its correlation", async () => {
    const wrong = deadLetter(
      await decoder.decode(at(topicNames.decisions), {
        key: Buffer.from(card!.correlationId),
        value: await serde.encode(card!),
      }),
    );
    expect(wrong.reason).toBe("PROJECTOR_WRONG_TOPIC");
    const notCommand = sampleDecision("TaskIndeterminate");
    expect(
      deadLetter(
        await decoder.decode(at(topicNames.commands), {
          key: Buffer.from(notCommand.correlationId),
          value: await serde.encode(notCommand),
        }),
      ).reason,
    ).toBe("PROJECTOR_WRONG_TOPIC");
    expect(
      deadLetter(
        await decoder.decode(at(topicNames.observations), {
          key: Buffer.from("someone-else"),
          value: await serde.encode(card!),
        }),
      ).reason,
    ).toBe("PROJECTOR_KEY_MISMATCH");
    expect(
      deadLetter(await decoder.decode(at(topicNames.observations), { key: null, value: await serde.encode(card!) }))
        .reason,
    ).toBe("PROJECTOR_KEY_MISMATCH");
  });

  it("text with a NUL character, which PostgreSQL cannot store, on every store alike", async () => {
    const hostile = { ...card!, correlationId: "task\u0000x", eventId: "nul" };
    const d = deadLetter(
      await decoder.decode(at(topicNames.observations), {
        key: Buffer.from(hostile.correlationId),
        value: await serde.encode(hostile as never),
      }),
    );
    expect(d.reason).toBe("PROJECTOR_UNSTORABLE_TEXT");
  });

  it("keeps only a bounded preview of oversized and hostile records", async () => {
    const huge = Buffer.alloc(2_000_000, 0x41);
    const d = deadLetter(
      await decoder.decode(at(topicNames.observations), { key: Buffer.from("k".repeat(10_000)), value: huge }),
    );
    expect(d.valueBytes).toBe(2_000_000);
    expect(Buffer.from(d.valuePreview, "base64").length).toBe(256);
    expect(d.key?.length).toBe(512);
    expect(d.detail.length).toBeLessThanOrEqual(2_000);
  });

  it("takes the reconciler's dead letters with their reason and source coordinates from the headers", async () => {
    const headers = {
      [dlqHeader.reason]: "RECONCILER_KEY_MISMATCH",
      [dlqHeader.detail]: "key x",
      [dlqHeader.topic]: "a2a.observations.v1",
      [dlqHeader.partition]: "3",
      [dlqHeader.offset]: "41",
    };
    const d = deadLetter(
      await decoder.decode(at(topicNames.dlq), { key: Buffer.from("x"), value: Buffer.from("v"), headers }),
    );
    expect(d).toMatchObject({
      recordedBy: "reconciler",
      reason: "RECONCILER_KEY_MISMATCH",
      sourceTopic: "a2a.observations.v1",
      sourcePartition: 3,
      sourceOffset: 41,
    });
    const bare = deadLetter(
      await decoder.decode(at(topicNames.dlq), {
        key: null,
        value: null,
        headers: { [dlqHeader.partition]: "not a number" },
      }),
    );
    expect(bare).toMatchObject({ reason: "UNKNOWN", sourcePartition: null, valueBytes: 0 });
  });
});
