/**
 * The changelog value of a correlation/2 state: one format byte (2) and the state as Avro binary
 * (schema below, internal to the reconciler and versioned by that byte). A default/1 state is JSON
 * text (its first byte is `{`) and is read by migrating it (migrate.ts). Compact: ids once, no field
 * names, no whitespace.
 */
import avro from "avsc";
import { TaskStateSymbols } from "@a2a-ledger/schemas";
import { deserializeCorrelationState } from "../v1/correlation-state.ts";
import { fromV1 } from "./migrate.ts";
import { type CorrelationState, recentInOrder } from "./state.ts";

export class StateFormatError extends Error {
  override name = "StateFormatError";
}

/**
 * 4: format 3 and the block's pending fallback (fallbackAt, default/4). 3: format 2 and the last event
 * (lastEventAt, lastEventId) that retention measures idleness from. Older formats are read with the
 * fields they lack at their defaults.
 */
const formatVersion = 4;
const formatWithoutFallback = 3;
const formatWithoutLastEvent = 2;
const state: avro.Schema = { type: "enum", name: "TaskState", symbols: [...TaskStateSymbols] };
const nullableString: avro.Schema = ["null", "string"];

const schema: avro.Schema = {
  type: "record",
  name: "CorrelationState",
  namespace: "a2a.ledger.state.v2",
  fields: [
    { name: "correlationId", type: nullableString },
    {
      name: "status",
      type: {
        type: "enum",
        name: "Status",
        symbols: ["open", "terminal", "indeterminate", "redispatched", "blocked", "failed", "reconciled"],
      },
    },
    { name: "recent", type: { type: "array", items: "string" } },
    {
      name: "attempts",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Attempt",
          fields: [
            { name: "attempt", type: "int" },
            { name: "workerId", type: "string" },
            { name: "skillId", type: nullableString },
            { name: "messageId", type: nullableString },
            { name: "acceptedOutputModes", type: { type: "array", items: "string" } },
            { name: "dispatchedAt", type: ["null", "long"] },
            { name: "dispatchEventId", type: nullableString },
            { name: "taskCount", type: "int" },
            { name: "artifactCount", type: "int" },
          ],
        },
      },
    },
    {
      name: "tasks",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Task",
          fields: [
            { name: "workerId", type: "string" },
            { name: "serverTaskId", type: "string" },
            { name: "attempt", type: "int" },
            { name: "contextId", type: nullableString },
            {
              name: "last",
              type: [
                "null",
                {
                  type: "record",
                  name: "LastSeen",
                  fields: [
                    { name: "state", type: state },
                    { name: "rawState", type: "string" },
                    { name: "observer", type: "string" },
                    { name: "occurredAt", type: "long" },
                    { name: "eventId", type: "string" },
                  ],
                },
              ],
            },
            { name: "terminal", type: "boolean" },
            { name: "lost", type: "boolean" },
            {
              name: "artifacts",
              type: {
                type: "array",
                items: {
                  type: "record",
                  name: "Artifact",
                  fields: [
                    { name: "artifactId", type: "string" },
                    { name: "attempt", type: "int" },
                    { name: "name", type: nullableString },
                    { name: "ordinal", type: "int" },
                    { name: "mediaTypes", type: { type: "array", items: "string" } },
                    { name: "complete", type: "boolean" },
                    { name: "eventId", type: "string" },
                  ],
                },
              },
            },
          ],
        },
      },
    },
    {
      name: "canaries",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Canary",
          fields: [
            { name: "workerId", type: "string" },
            { name: "serverTaskId", type: "string" },
            { name: "state", type: "TaskState" },
            { name: "cardHash", type: "string" },
            { name: "probeEventId", type: "string" },
            { name: "parkedAt", type: "long" },
            { name: "lost", type: "boolean" },
          ],
        },
      },
    },
    {
      name: "loss",
      type: [
        "null",
        {
          type: "record",
          name: "Loss",
          fields: [
            { name: "workerId", type: "string" },
            { name: "serverTaskId", type: "string" },
            { name: "attempt", type: "int" },
            { name: "lastState", type: "TaskState" },
            { name: "eventId", type: "string" },
            { name: "outcome", type: { type: "enum", name: "LossOutcome", symbols: ["indeterminate", "failed"] } },
          ],
        },
      ],
    },
    { name: "blockedAt", type: ["null", "long"] },
    { name: "reported", type: { type: "array", items: "string" } },
    { name: "lastEventAt", type: ["null", "long"], default: null },
    { name: "lastEventId", type: nullableString, default: null },
    { name: "fallbackAt", type: ["null", "long"], default: null },
  ],
};
const stateType = avro.Type.forSchema(schema);
/** The schema of an older format: this one without `dropped` fields. */
const without = (...dropped: string[]) =>
  avro.Type.forSchema({
    ...(schema as { fields: { name: string }[] }),
    fields: (schema as { fields: { name: string }[] }).fields.filter((f) => !dropped.includes(f.name)),
  } as avro.Schema);
const fromFormat = new Map<number, ReturnType<avro.Type["createResolver"]>>([
  [formatWithoutFallback, stateType.createResolver(without("fallbackAt"))],
  [formatWithoutLastEvent, stateType.createResolver(without("lastEventAt", "lastEventId", "fallbackAt"))],
]);

/**
 * A format-2 state kept no last event: the latest time it holds (a task's last sighting, a dispatch, a
 * parked canary, a block) stands for it, so a state written before retention existed is judged idle from
 * its last recorded activity, never from the epoch.
 */
function lastEventOf(e: Pick<CorrelationState, "attempts" | "tasks" | "canaries" | "blockedAt">): number | null {
  let at: number | null = null;
  const see = (t: number | null) => {
    if (t !== null && (at === null || t > at)) at = t;
  };
  for (const a of e.attempts) see(a.dispatchedAt);
  for (const t of e.tasks) see(t.last?.occurredAt ?? null);
  for (const c of e.canaries) see(c.parkedAt);
  see(e.blockedAt);
  return at;
}

type Encoded = Omit<CorrelationState, "model" | "recentHead" | "recentSet" | "reported"> & { reported: string[] };

/**
 * Largest changelog value written (a fraction of the changelog topic's 1 MiB record limit). The count
 * limits (state.ts) keep a state far below it with ordinary ids; only ids of hundreds of kilobytes could
 * reach it. Then the value keeps what pending decisions need — status, attempts, the loss, the latest
 * attempt's tasks and the lost task — and drops the de-duplication window, reported keys, artifacts and
 * older tasks, so the partition never stops (a restart from that value decides as if those were evicted).
 */
export const maxStateBytes = 512 * 1024;

function essentials(s: Encoded): Encoded {
  const latest = s.attempts[s.attempts.length - 1]?.attempt;
  const needed = (t: Encoded["tasks"][number]) =>
    t.attempt === latest ||
    (s.loss !== null && t.workerId === s.loss.workerId && t.serverTaskId === s.loss.serverTaskId);
  return {
    ...s,
    recent: [],
    reported: [],
    canaries: [],
    tasks: s.tasks.filter(needed).map((t) => ({ ...t, artifacts: [] })),
  };
}

export function encodeState(s: CorrelationState): Uint8Array {
  const record: Encoded = {
    correlationId: s.correlationId,
    status: s.status,
    recent: recentInOrder(s),
    attempts: s.attempts,
    tasks: s.tasks,
    canaries: s.canaries,
    loss: s.loss,
    blockedAt: s.blockedAt,
    reported: [...s.reported],
    lastEventAt: s.lastEventAt,
    lastEventId: s.lastEventId,
    fallbackAt: s.fallbackAt,
  };
  let body = stateType.toBuffer(record);
  if (body.length + 1 > maxStateBytes) body = stateType.toBuffer(essentials(record));
  const out = new Uint8Array(body.length + 1);
  out[0] = formatVersion;
  out.set(body, 1);
  return out;
}

/** Reads a correlation/2 state, or migrates a correlation/1 (default/1) one; throws StateFormatError otherwise. */
export function decodeState(bytes: Uint8Array): CorrelationState {
  if (bytes[0] === 0x7b) {
    let v1;
    try {
      v1 = deserializeCorrelationState(new TextDecoder().decode(bytes));
    } catch (error) {
      throw new StateFormatError(`not a correlation state: ${(error as Error).message}`);
    }
    const migrated = fromV1(v1);
    migrated.lastEventAt = lastEventOf(migrated);
    return migrated;
  }
  const format = bytes[0] ?? -1;
  const resolver = fromFormat.get(format);
  if (format !== formatVersion && resolver === undefined)
    throw new StateFormatError(`not a correlation state: format byte ${bytes[0] ?? "(none)"}`);
  let e: Encoded;
  try {
    const body = Buffer.from(bytes.buffer, bytes.byteOffset + 1, bytes.byteLength - 1);
    e = (resolver === undefined ? stateType.fromBuffer(body) : stateType.fromBuffer(body, resolver)) as Encoded;
  } catch (error) {
    throw new StateFormatError(`not a correlation/2 state: ${(error as Error).message}`);
  }
  if (e.lastEventAt === null) e.lastEventAt = lastEventOf(e);
  return {
    model: 2,
    ...e,
    recentHead: 0,
    recentSet: e.recent.length > 32 ? new Set(e.recent) : null,
    reported: new Set(e.reported),
  };
}
