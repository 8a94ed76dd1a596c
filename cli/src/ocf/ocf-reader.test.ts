import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import avro from "avsc";
import { avroSchemas, type Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { exampleObservations, generatedObservations } from "../../test/observations.ts";
import { InputError } from "../sources/observation-source.ts";
import { toBranch } from "./observation-schema.ts";
import { isOcfFile, ocfSource } from "./ocf-reader.ts";
import { OcfWriter } from "./ocf-writer.ts";

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-ocf-"));

async function write(
  name: string,
  observations: readonly Observation[],
  codec: "null" | "deflate" = "deflate",
): Promise<string> {
  const path = join(dir, name);
  const writer = new OcfWriter(path, codec);
  for (const o of observations) await writer.write(o);
  await writer.close();
  return path;
}

async function readAll(path: string): Promise<{ observations: Observation[]; where: string[] }> {
  const observations: Observation[] = [];
  const where: string[] = [];
  for await (const chunk of ocfSource(path, statSync(path).size, "the-file.avro").chunks()) {
    chunk.observations.forEach((o, i) => {
      observations.push(o);
      where.push(chunk.where(i));
    });
  }
  return { observations, where };
}

const failure = (path: string) =>
  readAll(path).then(
    () => undefined,
    (e: unknown) => e,
  );

describe("Avro object container files of observations", () => {
  it.each(["deflate", "null"] as const)("read back exactly what was written (%s codec), in order", async (codec) => {
    const observations = [...exampleObservations(), ...generatedObservations(12_000)];
    const path = await write(`round-${codec}.avro`, observations, codec);
    expect(await isOcfFile(path)).toBe(true);
    const back = await readAll(path);
    expect(back.observations).toEqual(observations);
  });

  it("embed the observation union as writer schema, readable by avsc's own decoder", async () => {
    const observations = exampleObservations();
    const path = await write("interop.avro", observations);
    const decoded: unknown[] = [];
    const decoder = avro.createFileDecoder(path).on("data", (v: unknown) => decoded.push(v));
    await once(decoder, "end");
    expect(decoded).toHaveLength(observations.length);
    expect(Object.keys(decoded[0] as object)).toEqual(["a2a.ledger.v1.AgentCardObserved"]);
  });

  it("read a file written by another Avro writer with an older, compatible schema (fields added since get their defaults)", async () => {
    const artifact = avroSchemas.observations.ArtifactEmitted as unknown as { fields: { name: string }[] };
    const older = { ...artifact, fields: artifact.fields.filter((f) => f.name !== "append" && f.name !== "lastChunk") };
    const observation = exampleObservations().find((o) => o.type === "ArtifactEmitted") as Observation;
    const path = join(dir, "older.avro");
    // The writer schema is the bare record, not a union: the reader's union takes it by name.
    const encoder = avro.createFileEncoder(path, older as unknown as avro.Schema);
    encoder.end(observation);
    await once(encoder, "finish");
    await new Promise((r) => setTimeout(r, 50));
    const back = await readAll(path);
    expect(back.observations).toEqual([{ ...observation, append: false, lastChunk: null }]);
  });

  it("name the byte offset of every record (null codec) or of its block (deflate)", async () => {
    const observations = exampleObservations();
    const plain = await readAll(await write("where-null.avro", observations, "null"));
    expect(plain.where[0]).toMatch(/^the-file\.avro: byte \d+$/);
    expect(new Set(plain.where).size).toBe(observations.length);
    const deflated = await readAll(await write("where-deflate.avro", observations));
    expect(new Set(deflated.where).size).toBe(1);
  });
});

describe("a bad Avro file is an error naming the file and the byte, never a shorter result", () => {
  it("a file truncated inside a block", async () => {
    const path = await write("whole.avro", generatedObservations(3_000), "null");
    const bytes = readFileSync(path);
    const cut = join(dir, "truncated.avro");
    writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
    const error = await failure(cut);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(
      /^the-file\.avro:byte \d+: truncated: a block of \d+ records needs \d+ bytes from byte \d+, the file ends at byte \d+$/,
    );
  });

  it("a file truncated inside its header", async () => {
    const path = await write("whole-2.avro", exampleObservations());
    const cut = join(dir, "truncated-header.avro");
    writeFileSync(cut, readFileSync(path).subarray(0, 200));
    expect(String(await failure(cut))).toMatch(
      /the-file\.avro:byte 4: truncated: the file ends at byte 200 inside the header/,
    );
  });

  it("a file written with a schema that is not the observation catalogue", async () => {
    const path = join(dir, "foreign.avro");
    const encoder = avro.createFileEncoder(path, {
      type: "record",
      name: "com.example.Invoice",
      fields: [{ name: "amount", type: "long" }],
    });
    encoder.end({ amount: 12 });
    await once(encoder, "finish");
    await new Promise((r) => setTimeout(r, 50));
    const error = await failure(path);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(
      /^the-file\.avro:byte 4: written with an unknown schema \(com\.example\.Invoice\)/,
    );
  });

  it("a corrupted sync marker", async () => {
    const path = await write("sync.avro", exampleObservations(), "null");
    const bytes = Buffer.from(readFileSync(path));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    const bad = join(dir, "bad-sync.avro");
    writeFileSync(bad, bytes);
    expect(String(await failure(bad))).toMatch(
      /the-file\.avro:byte \d+: the sync marker after the block does not match/,
    );
  });

  it("garbage in place of a record", async () => {
    const path = await write("garbage.avro", exampleObservations(), "null");
    const bytes = Buffer.from(readFileSync(path));
    const header = bytes.indexOf(Buffer.from("probe-w-acme"));
    bytes.fill(0xff, header - 40, header + 40);
    const bad = join(dir, "garbage-record.avro");
    writeFileSync(bad, bytes);
    expect(String(await failure(bad))).toMatch(/the-file\.avro:byte \d+: /);
  });

  it("a block that claims more bytes than any block may hold", async () => {
    const path = await write("huge.avro", exampleObservations(), "null");
    const bytes = readFileSync(path);
    // The first block header (right after the sync marker that ends the file header) becomes count 1, size 2^40.
    const syncAt = bytes.indexOf(bytes.subarray(-16));
    const forged = Buffer.concat([
      bytes.subarray(0, syncAt + 16),
      Buffer.from([0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]),
      bytes.subarray(syncAt + 16 + 3),
    ]);
    const bad = join(dir, "huge-block.avro");
    writeFileSync(bad, forged);
    expect(String(await failure(bad))).toMatch(
      new RegExp(`the-file\\.avro:byte ${syncAt + 16}: not a block header \\(count 1, size \\d+\\)`),
    );
  });

  it("a file that is not an Avro container at all is not taken for one", async () => {
    const path = join(dir, "text.avro");
    writeFileSync(path, "not avro\n");
    expect(await isOcfFile(path)).toBe(false);
    expect(String(await failure(path))).toMatch(/the-file\.avro:byte 0: not an Avro object container file/);
  });

  it("the observation union value carries the record under its full name", () => {
    const [first] = exampleObservations();
    expect(Object.keys(toBranch(first as Observation))).toEqual(["a2a.ledger.v1.AgentCardObserved"]);
  });
});
