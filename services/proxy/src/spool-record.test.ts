import { describe, expect, it } from "vitest";
import { observation } from "../test/observation-fixture.ts";
import { decodeSegment, encodeRecord, headerBytes } from "./spool-record.ts";

const segment = (...records: Buffer[]) => Buffer.concat(records);

describe("spool records", () => {
  it("read back what was written, observations and acknowledgements, in order, with their sizes", () => {
    const a = encodeRecord({ kind: "observation", seq: 0, observation: observation(0) });
    const b = encodeRecord({ kind: "ack", seq: 0 });
    const c = encodeRecord({
      kind: "observation",
      seq: 1,
      observation: { ...observation(1), correlationId: 'ünï\u2028code "quoted"' },
    });
    const decoded = decodeSegment(segment(a, b, c));
    expect(decoded.stoppedAt).toBeNull();
    expect(decoded.records.map((r) => r.body)).toEqual([
      { kind: "observation", seq: 0, observation: observation(0) },
      { kind: "ack", seq: 0 },
      { kind: "observation", seq: 1, observation: { ...observation(1), correlationId: 'ünï\u2028code "quoted"' } },
    ]);
    expect(decoded.records.map((r) => r.bytes)).toEqual([a.length, b.length, c.length]);
  });

  it("an empty segment holds no record and is not an error", () => {
    expect(decodeSegment(Buffer.alloc(0))).toEqual({ records: [], stoppedAt: null });
  });

  it("a last record cut short anywhere — in its header or its body — ends the reading there, after the good ones", () => {
    const good = encodeRecord({ kind: "observation", seq: 0, observation: observation(0) });
    const torn = encodeRecord({ kind: "observation", seq: 1, observation: observation(1) });
    for (const cut of [1, headerBytes - 1, headerBytes, headerBytes + 5, torn.length - 1]) {
      const decoded = decodeSegment(segment(good, torn.subarray(0, cut)));
      expect(decoded.records.map((r) => r.body.seq)).toEqual([0]);
      expect(decoded.stoppedAt).toEqual({ offset: good.length, reason: "cut-short" });
    }
  });

  it("a flipped byte fails the checksum; what follows it is not trusted", () => {
    const records = [0, 1, 2].map((i) => encodeRecord({ kind: "observation", seq: i, observation: observation(i) }));
    const bytes = segment(...records);
    const flipAt = (records[0] as Buffer).length + headerBytes + 3;
    bytes[flipAt] = (bytes[flipAt] as number) ^ 0xff;
    const decoded = decodeSegment(bytes);
    expect(decoded.records.map((r) => r.body.seq)).toEqual([0]);
    expect(decoded.stoppedAt).toEqual({ offset: (records[0] as Buffer).length, reason: "checksum" });
  });

  it("garbage is not read as records: a huge length, random bytes, JSON that is not a spool body", () => {
    const huge = Buffer.alloc(16);
    huge.writeUInt32BE(0xffffffff, 0);
    expect(decodeSegment(huge).stoppedAt).toEqual({ offset: 0, reason: "not-a-record" });

    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    const decoded = decodeSegment(random);
    expect(decoded.records).toEqual([]);
    expect(decoded.stoppedAt?.offset).toBe(0);

    for (const json of [
      '{"s":1,"o":{"eventId":"x"}}',
      '{"s":-1,"o":{"type":"T","eventId":"x"}}',
      '{"a":"1"}',
      "[1,2]",
      "null",
      "not json",
    ]) {
      const body = Buffer.from(json);
      const framed = encodeRecord({ kind: "ack", seq: 0 });
      const record = Buffer.alloc(headerBytes + body.length);
      record.writeUInt32BE(body.length, 0);
      // A correct checksum over a body that is no spool record.
      record.writeUInt32BE(crcOf(body), 4);
      body.copy(record, headerBytes);
      expect(decodeSegment(segment(framed, record))).toMatchObject({
        records: [{ body: { kind: "ack", seq: 0 } }],
        stoppedAt: { offset: framed.length, reason: "not-a-record" },
      });
    }
  });
});

function crcOf(body: Buffer): number {
  // The framing's checksum, recomputed independently of spool-record.ts: CRC-32 (IEEE 802.3, reflected).
  let crc = 0xffffffff;
  for (const byte of body) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
