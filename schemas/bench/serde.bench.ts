/**
 * `npm run bench -w @a2a-ledger/schemas`: the Serde's decode and encode per record against avsc alone
 * on the same records, in the same process, rounds interleaved so that both see the same machine.
 *
 * avsc alone: `Type.decode` of the Avro body after the 5-byte frame and `Type.toBuffer` of the record,
 * with the type already in hand. The Serde: `decode` (frame, reader by schema id, avsc, the plain
 * event) and `encodeValidated` / `encode` (the framed bytes), the ids already known, as in a running
 * service. Records: one realistic record of each type of the catalogue (`allSamples`), observations
 * and decisions timed apart; RECORDS (default 200,000) per measurement, ROUNDS (default 5), medians
 * printed. SERDE_MODULE=path/to/serde.ts times another implementation of the same class (an older
 * one, for a before/after) against the same avsc baseline. Needs the registry of `npm run infra:up`.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import type { LedgerRecord } from "../src/serde.ts";
import { allSamples } from "../src/testing/samples.ts";
import { avroType, isKnownType, type SchemaGroup } from "../src/validate.ts";

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name}=${JSON.stringify(raw)}: expected an integer from ${min} to ${max}`);
  return value;
}

const recordCount = envInt("RECORDS", 200_000, 1_000, 10_000_000);
const rounds = envInt("ROUNDS", 5, 1, 50);
const modulePath = process.env["SERDE_MODULE"]?.trim() || resolve(import.meta.dirname, "../src/serde.ts");

interface SerdeLike {
  registerAll(): Promise<Map<string, number>>;
  decode(buffer: Buffer): Promise<{ record: LedgerRecord }>;
  encode(record: LedgerRecord): Promise<Buffer>;
  encodeValidated(record: LedgerRecord): Promise<Buffer>;
}

const { Serde } = (await import(pathToFileURL(modulePath).href)) as { Serde: new (url: string) => SerdeLike };
const { registryUrl } = endpointsFromEnv();
const fmt = (n: number, digits = 2) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function groupOf(record: LedgerRecord): SchemaGroup {
  for (const g of ["observations", "decisions", "state"] as const) if (isKnownType(g, record.type)) return g;
  throw new Error(`unknown type ${record.type}`);
}

/** µs per record of `body` run over `n` records (the loop's own cost included, for both sides alike). */
async function time(n: number, body: (i: number) => unknown): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) await body(i);
  return ((performance.now() - started) * 1_000) / n;
}

/** The same loop, synchronous: avsc alone does not await. */
function timeSync(n: number, body: (i: number) => unknown): number {
  const started = performance.now();
  for (let i = 0; i < n; i++) body(i);
  return ((performance.now() - started) * 1_000) / n;
}

const serde = new Serde(registryUrl);
await serde.registerAll();

console.log(
  `Node ${process.version}; ${modulePath === resolve(import.meta.dirname, "../src/serde.ts") ? "this Serde" : `Serde from ${modulePath}`}; ${fmt(recordCount, 0)} records per measurement, ${rounds} rounds (median)`,
);
const header =
  "| records | bytes | avsc decode | Serde.decode | ratio | avsc encode | Serde.encodeValidated | ratio | Serde.encode | ratio |";
console.log(`\n${header}\n|${"---|".repeat(10)}`);

for (const [label, filter] of [
  ["observations (7 types)", (g: SchemaGroup) => g === "observations"],
  ["decisions and state (10 types)", (g: SchemaGroup) => g !== "observations"],
] as const) {
  const samples = allSamples().filter((r) => filter(groupOf(r)));
  const records = Array.from({ length: recordCount }, (_, i) => samples[i % samples.length] as LedgerRecord);
  const types = records.map((r) => avroType(groupOf(r), r.type as never));
  const framed = await Promise.all(records.map((r) => serde.encodeValidated(r)));
  const bytes = framed.reduce((n, b) => n + b.length, 0) / framed.length;
  // Every decoded record equals its input, so the loops time real work (and warm up).
  for (let i = 0; i < samples.length; i++) {
    const { record } = await serde.decode(framed[i] as Buffer);
    if (!isDeepStrictEqual({ ...record }, { ...records[i] }))
      throw new Error(`${records[i]?.type} does not round-trip`);
  }
  const figures = {
    avscDecode: [] as number[],
    decode: [] as number[],
    avscEncode: [] as number[],
    encodeValidated: [] as number[],
    encode: [] as number[],
  };
  for (let round = 0; round < rounds; round++) {
    figures.avscDecode.push(
      timeSync(recordCount, (i) => (types[i] as (typeof types)[number]).decode(framed[i] as Buffer, 5)),
    );
    figures.decode.push(await time(recordCount, (i) => serde.decode(framed[i] as Buffer)));
    figures.avscEncode.push(timeSync(recordCount, (i) => (types[i] as (typeof types)[number]).toBuffer(records[i])));
    figures.encodeValidated.push(await time(recordCount, (i) => serde.encodeValidated(records[i] as LedgerRecord)));
    figures.encode.push(await time(recordCount, (i) => serde.encode(records[i] as LedgerRecord)));
  }
  const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)])) as Record<
    keyof typeof figures,
    number
  >;
  console.log(
    `| ${label} | ${fmt(bytes, 0)} | ${fmt(m.avscDecode)} µs | ${fmt(m.decode)} µs | **${fmt(m.decode / m.avscDecode)}×** | ${fmt(m.avscEncode)} µs | ${fmt(m.encodeValidated)} µs | **${fmt(m.encodeValidated / m.avscEncode)}×** | ${fmt(m.encode)} µs | **${fmt(m.encode / m.avscEncode)}×** |`,
  );
}
