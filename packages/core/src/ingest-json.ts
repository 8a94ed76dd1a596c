/**
 * Ingest JSON → Observation. The input is one JSON object shaped like the Avro record plus `type`.
 * Lenient where the wire is (times as epoch ms or ISO-8601 with an offset; task states, channels and
 * part kinds in the spellings of vocabulary.ts; the card as an object or JSON text; part `mimeType` for
 * `mediaType`; defaults filled), strict everywhere else: unknown types and fields, missing fields and
 * wrong types are issues with paths. The ingest OpenAPI document describes exactly this input.
 * The Avro schema (validateRecord) is the final gate. Shared by the replay CLI and the HTTP ingest.
 *
 * cardHash: computed when absent; when present it must equal the computed hash (lower-case hex) — a
 * mismatch is an issue, because the hash is the card's identity in the capability table.
 */
import {
  avroSchemas,
  isKnownType,
  isValidRecord,
  validateRecord,
  type Observation,
  type ObservationType,
  type TaskState,
} from "@a2a-ledger/schemas";
import { CanonicalJsonError } from "./canonical-json.ts";
import { cardHash } from "./card-hash.ts";
import { normalizeTaskState } from "./task-state.ts";
import { toEpochMillis } from "./timestamp.ts";
import { channelSpellings, lookupOf, observationTypeNames, partKindSpellings, spellingsOf } from "./vocabulary.ts";

export interface IngestIssue {
  /** Path in the input, e.g. `parts[0].mediaType`; empty for the whole object. */
  path: string;
  message: string;
}

export type IngestResult = { ok: true; observation: Observation } | { ok: false; issues: IngestIssue[] };

export interface IngestOptions {
  /**
   * Deepest nesting accepted anywhere in the input, the card counted from its own top (an object is
   * one level). Default 32. Checked before anything recursive reads the value, so input of any depth
   * is an issue, never a stack overflow.
   */
  maxDepth?: number;
}

interface AvroField {
  name: string;
  type: unknown;
  default?: unknown;
}

const channel = lookupOf(channelSpellings);
const partKind = lookupOf(partKindSpellings);
const channelList = spellingsOf(channelSpellings).join(", ");
const partKindList = spellingsOf(partKindSpellings).join(", ");

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const join = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;

/** Whether anything in `value` is deeper than `max`; no paths, so valid input allocates nothing here. */
function deeperThan(value: unknown, max: number, depth = 1): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], max, depth + 1)) return true;
    return false;
  }
  for (const key in value)
    if (Object.hasOwn(value, key) && deeperThan((value as Record<string, unknown>)[key], max, depth + 1)) return true;
  return false;
}

/** The path of the first place deeper than `max`, or null. Stops descending at the limit. */
function tooDeep(value: unknown, max: number): string | null {
  return deeperThan(value, max) ? deepPath(value, max) : null;
}

function deepPath(value: unknown, max: number, path = "", depth = 1): string | null {
  if (typeof value !== "object" || value === null) return null;
  if (depth > max) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = deepPath(value[i], max, join(path, i), depth + 1);
      if (p !== null) return p;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const p = deepPath((value as Record<string, unknown>)[key], max, join(path, key), depth + 1);
    if (p !== null) return p;
  }
  return null;
}

interface Shape {
  fields: readonly AvroField[];
  declared: ReadonlySet<string>;
}

const shapes = new Map<ObservationType, Shape>();

/** The fields of an observation type and their names, looked up once per type. */
function shapeOf(type: ObservationType): Shape {
  let shape = shapes.get(type);
  if (shape === undefined) {
    const fields = (avroSchemas.observations[type] as { fields: readonly AvroField[] }).fields;
    shape = { fields, declared: new Set(fields.map((f) => f.name)) };
    shapes.set(type, shape);
  }
  return shape;
}

function isNullable(field: AvroField): boolean {
  return Array.isArray(field.type) && field.type.includes("null");
}

function state(value: unknown, path: string, issues: IngestIssue[]): TaskState | undefined {
  if (typeof value !== "string") {
    issues.push({ path, message: "expected a task state string (v1.0 or v0.3 spelling)" });
    return undefined;
  }
  const s = normalizeTaskState(value);
  if (s === null) issues.push({ path, message: `unknown task state ${JSON.stringify(value)}` });
  return s ?? undefined;
}

function states(value: unknown, path: string, issues: IngestIssue[]): unknown {
  if (!Array.isArray(value)) return value; // the schema gate reports the type
  return value.map((v, i) => state(v, join(path, i), issues) ?? v);
}

function parts(value: unknown, path: string, issues: IngestIssue[]): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((part, i) => {
    if (!isRecord(part)) return part;
    const { mimeType, ...out } = part;
    if (mimeType !== undefined) {
      if (out["mediaType"] !== undefined)
        issues.push({
          path: join(join(path, i), "mimeType"),
          message: "give mediaType or its v0.3 name mimeType, not both",
        });
      else out["mediaType"] = mimeType;
    }
    if (out["mediaType"] === undefined) out["mediaType"] = null;
    if (typeof out["kind"] === "string") {
      const kind = partKind(out["kind"]);
      if (kind !== null) out["kind"] = kind;
      else
        issues.push({
          path: join(join(path, i), "kind"),
          message: `expected one of ${partKindList}, got ${JSON.stringify(out["kind"].slice(0, 40))}`,
        });
    }
    return out;
  });
}

function canaries(value: unknown, path: string, issues: IngestIssue[]): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((c, i) => {
    if (!isRecord(c) || c["state"] === undefined) return c;
    return { ...c, state: state(c["state"], join(join(path, i), "state"), issues) ?? c["state"] };
  });
}

/** `depthChecked`: the card, given as an object, was already found no deeper than `maxDepth`. */
function card(
  input: Record<string, unknown>,
  issues: IngestIssue[],
  maxDepth: number,
  depthChecked: boolean,
): { text: string; hash: string } | undefined {
  const raw = input["card"];
  let parsed: unknown;
  if (typeof raw === "string") {
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      issues.push({ path: "card", message: `card is not JSON text: ${(e as Error).message}` });
      return undefined;
    }
  } else parsed = raw;
  if (!isRecord(parsed)) {
    issues.push({ path: "card", message: "expected the Agent Card as a JSON object (or its JSON text)" });
    return undefined;
  }
  // Bounded before anything recursive touches it: JSON.parse takes any depth, JSON.stringify and the
  // hashing recurse, and a card thousands of levels deep would overflow the stack.
  const deep = depthChecked && typeof raw !== "string" ? null : tooDeep(parsed, maxDepth);
  if (deep !== null) {
    issues.push({ path: join("card", deep), message: `nested deeper than ${maxDepth} levels` });
    return undefined;
  }
  const text = typeof raw === "string" ? raw : JSON.stringify(raw);
  try {
    return { text, hash: cardHash(parsed) };
  } catch (e) {
    // JSON.parse turns a number beyond the double range into Infinity, which RFC 8785 cannot hash.
    if (!(e instanceof CanonicalJsonError)) throw e;
    issues.push({ path: "card", message: `the card is not I-JSON (RFC 7493): ${e.message}` });
    return undefined;
  }
}

/** Parses one ingest-JSON value (already JSON-parsed) into an Observation. */
export function parseObservation(input: unknown, options: IngestOptions = {}): IngestResult {
  const maxDepth = options.maxDepth ?? 32;
  if (!isRecord(input)) {
    const got = Array.isArray(input) ? "an array" : input === null ? "null" : typeof input;
    return { ok: false, issues: [{ path: "", message: `expected one observation as a JSON object, got ${got}` }] };
  }
  const type = input["type"];
  if (type === undefined)
    return { ok: false, issues: [{ path: "type", message: "missing (one of the observation types)" }] };
  if (!isKnownType("observations", type)) {
    return {
      ok: false,
      issues: [
        {
          path: "type",
          message: `unknown observation type ${JSON.stringify(type)}; expected one of ${observationTypeNames.join(", ")}`,
        },
      ],
    };
  }
  // The card is bounded on its own (below, also when it comes as JSON text); every other field here.
  const hasCard = type === "AgentCardObserved" && input["card"] !== undefined;
  const deep = tooDeep(hasCard ? { ...input, card: null } : input, maxDepth + 1);
  if (deep !== null) return { ok: false, issues: [{ path: deep, message: `nested deeper than ${maxDepth} levels` }] };
  const cardDeep = hasCard ? tooDeep(input["card"], maxDepth) : null;

  const { fields, declared } = shapeOf(type);
  const issues: IngestIssue[] = [];
  for (const key of Object.keys(input))
    if (key !== "type" && !declared.has(key)) issues.push({ path: key, message: "unknown field" });

  const record: Record<string, unknown> = {};
  for (const field of fields) {
    const name = field.name;
    const value = input[name];
    if (type === "AgentCardObserved" && (name === "card" || name === "cardHash")) continue;
    // TaskStateObserved derives rawState from state when absent (below); elsewhere it is an ordinary field.
    if (name === "rawState" && type === "TaskStateObserved") continue;
    if (value === undefined) {
      if ("default" in field) record[name] = Array.isArray(field.default) ? [] : field.default;
      else issues.push({ path: name, message: "missing" });
      continue;
    }
    if (value === null && isNullable(field)) {
      record[name] = null;
      continue;
    }
    switch (name) {
      case "occurredAt":
      case "cardFetchedAt": {
        const t = toEpochMillis(value);
        if (t.ok) record[name] = t.value;
        else issues.push({ path: name, message: t.message });
        break;
      }
      case "state":
        record[name] = state(value, name, issues);
        break;
      case "statesObserved":
      case "reobservable":
        record[name] = states(value, name, issues);
        break;
      case "parkedCanaries":
        record[name] = canaries(value, name, issues);
        break;
      case "parts":
        record[name] = parts(value, name, issues);
        break;
      case "via":
        if (typeof value === "string" && channel(value) !== null) record[name] = channel(value);
        else
          issues.push({
            path: name,
            message: `expected one of ${channelList}, got ${typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value}`,
          });
        break;
      case "errorCode":
        record[name] = typeof value === "number" ? String(value) : value;
        break;
      default:
        record[name] = value;
    }
  }
  if (type === "TaskStateObserved") {
    const raw = input["rawState"];
    record["rawState"] = raw === undefined ? input["state"] : raw;
  }
  if (type === "AgentCardObserved") {
    if (input["card"] === undefined) issues.push({ path: "card", message: "missing" });
    else {
      const c = card(input, issues, maxDepth, cardDeep === null);
      if (c !== undefined) {
        record["card"] = c.text;
        const given = input["cardHash"];
        if (given === undefined || given === null) record["cardHash"] = c.hash;
        else if (typeof given !== "string") issues.push({ path: "cardHash", message: "expected a sha256 hex string" });
        else if (given.toLowerCase() !== c.hash)
          issues.push({ path: "cardHash", message: `does not match the card: its RFC 8785 sha256 is ${c.hash}` });
        else record["cardHash"] = c.hash;
      }
    }
  }

  // Avro is the final gate; it reports what the steps above let through, without repeating their issues.
  const ordered: Record<string, unknown> = {};
  for (const f of fields) if (record[f.name] !== undefined) ordered[f.name] = record[f.name];
  if (issues.length === 0 && isValidRecord("observations", type, ordered))
    return { ok: true, observation: { type, ...ordered } as Observation };
  const reported = issues.map((i) => i.path);
  // cardHash is derived from the card: a card already reported leaves it unset, not missing.
  if (reported.some((p) => covered(["card"], p))) reported.push("card", "cardHash");
  for (const issue of validateRecord("observations", type, ordered)) {
    if (!covered(reported, issue.path)) issues.push(issue);
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, observation: { type, ...ordered } as Observation };
}

/** Whether an issue at `path` lies inside one already reported (the same place or below it). */
function covered(reported: readonly string[], path: string): boolean {
  return reported.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
}

/** Parses one ingest-JSON text. */
export function parseObservationJson(text: string, options: IngestOptions = {}): IngestResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, issues: [{ path: "", message: `invalid JSON: ${(e as Error).message}` }] };
  }
  return parseObservation(value, options);
}
