import { readFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import "./client.ts";
import { type FetchedMessage, filterAbortedMessages } from "./read-committed.ts";

const require = createRequire(import.meta.url);
const originalPath = require.resolve("kafkajs/src/consumer/filterAbortedMessages.js");

/** kafkajs 2.2.4's own filter, compiled from its file (the installed one is ours). */
function kafkajsFilter(): typeof filterAbortedMessages {
  const m = new Module(originalPath) as Module & { _compile(code: string, filename: string): void; paths: string[] };
  m.filename = originalPath;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(originalPath));
  m._compile(readFileSync(originalPath, "utf8"), originalPath);
  return m.exports as typeof filterAbortedMessages;
}

const data = (offset: number, producerId: string, inTransaction = true): FetchedMessage => ({
  offset: String(offset),
  key: Buffer.from("k"),
  batchContext: { producerId, inTransaction },
});
const marker = (offset: number, producerId: string, type: "abort" | "commit"): FetchedMessage => ({
  offset: String(offset),
  key: Buffer.from([0, 0, 0, type === "abort" ? 0 : 1]),
  isControlRecord: true,
  batchContext: { producerId, inTransaction: true },
});

/**
 * P's transaction starts at 50 and is aborted at 60; Q's starts at 55 and is aborted at 58. The broker lists
 * aborted transactions in the order their abort markers were written: Q's before P's. P's next transaction
 * (61, 70) commits; N writes outside transactions.
 */
const fetch = {
  messages: [
    data(50, "P"),
    data(55, "Q"),
    marker(58, "Q", "abort"),
    marker(60, "P", "abort"),
    data(61, "P"),
    marker(62, "P", "commit"),
    data(70, "P"),
    data(71, "N", false),
  ],
  abortedTransactions: [
    { producerId: "Q", firstOffset: "55" },
    { producerId: "P", firstOffset: "50" },
  ],
};
const dataOffsets = (ms: FetchedMessage[]) => ms.filter((m) => m.isControlRecord !== true).map((m) => Number(m.offset));

describe("read_committed filtering of aborted transactions", () => {
  it("keeps every committed record and drops every aborted one when transactions of several producers interleave", () => {
    expect(dataOffsets(filterAbortedMessages(fetch))).toEqual([61, 70, 71]);
  });

  it("fixes kafkajs 2.2.4, which lets P's aborted record through: it activates one aborted transaction per record, in list order", () => {
    expect(dataOffsets(kafkajsFilter()(fetch))).toEqual([50, 61, 70, 71]);
  });

  it("drops the aborted records of transactions that started before the fetch", () => {
    const late = {
      messages: [data(5, "A"), data(6, "P"), marker(7, "A", "abort"), data(8, "A", false)],
      abortedTransactions: [{ producerId: "A", firstOffset: "1" }],
    };
    expect(dataOffsets(filterAbortedMessages(late))).toEqual([6, 8]);
  });

  it("is the filter kafkajs's consumer batches use once @a2a-ledger/kafka is loaded", () => {
    const Batch = require("kafkajs/src/consumer/batch.js") as new (
      topic: string,
      fetchedOffset: string,
      partitionData: Record<string, unknown>,
    ) => { messages: FetchedMessage[] };
    const batch = new Batch("t", "0", { partition: 0, highWatermark: "80", ...fetch });
    expect(dataOffsets(batch.messages)).toEqual([61, 70, 71]);
  });

  it("keeps everything when nothing was aborted", () => {
    expect(filterAbortedMessages({ messages: fetch.messages, abortedTransactions: [] })).toBe(fetch.messages);
  });
});
