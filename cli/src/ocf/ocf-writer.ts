/**
 * Writes observations to an Avro object container file with the observation union as writer schema
 * (avsc's BlockEncoder), waiting for the file to take each block so memory stays flat.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";
import avro from "avsc";
import type { Observation } from "@a2a-ledger/schemas";
import { observationFileSchema, toBranch } from "./observation-schema.ts";

export type OcfCodec = "null" | "deflate";

export class OcfWriter {
  private readonly encoder: avro.streams.BlockEncoder;
  private readonly file: WriteStream;
  private readonly finished: Promise<void>;
  private failure: Error | undefined;

  constructor(path: string, codec: OcfCodec = "deflate") {
    this.encoder = new avro.streams.BlockEncoder(observationFileSchema, { codec, blockSize: 256 * 1024 });
    this.file = createWriteStream(path);
    this.encoder.on("error", (e: Error) => (this.failure ??= e));
    this.file.on("error", (e: Error) => (this.failure ??= e));
    this.encoder.pipe(this.file);
    this.finished = once(this.file, "close").then(() => undefined);
  }

  async write(observation: Observation): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.encoder.write(toBranch(observation))) await Promise.race([once(this.encoder, "drain"), this.finished]);
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    if (!this.file.closed) this.encoder.end();
    await this.finished;
    if (this.failure) throw this.failure;
  }
}
