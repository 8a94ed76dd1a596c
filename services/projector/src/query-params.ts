/**
 * Query strings and path ids → typed filters, or a 4xx with a stable code. Every route names the
 * parameters it knows; an unknown or repeated parameter is refused rather than ignored, and values
 * are checked for shape before any of them is bound into SQL.
 */
import { normalizeTaskState, routableState, taskStateSpellings, toEpochMillis } from "@a2a-ledger/core";
import type { TaskState } from "@a2a-ledger/schemas";
import { ViolationKindSymbols } from "@a2a-ledger/schemas";
import { wellFormedCursor } from "./cursor.ts";
import { ProjectorError } from "./errors.ts";
import { type TaskStatus, taskStatuses } from "./views/rows.ts";

/** Ids are counted in characters (code points), as JSON Schema's maxLength counts them. */
export const maxIdChars = 512;
/** Control characters (C0, DEL, C1) never appear in ids a person or a client would send; the OpenAPI pattern of an id. */
export const idPattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]+$";
const validId = new RegExp(idPattern, "u");
const characters = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};
const isId = (value: string): boolean => validId.test(value) && characters(value) <= maxIdChars;

/** Epoch milliseconds as a time filter: up to 15 digits, optionally negative (before 1970). */
export const epochMillisPattern = "^-?[0-9]{1,15}$";
const epochMillis = new RegExp(epochMillisPattern);
/** A DLQ reason code: capitals, digits and '_'. */
export const reasonPattern = "^[A-Z0-9_]+$";
export const maxReasonChars = 100;
const reasonCode = new RegExp(reasonPattern);

/** At most this many media ranges in one `accept`. */
export const maxAcceptRanges = 16;
/** One media range of `accept`: type/subtype (either may be *), each part 1 to 64 characters, no parameters. */
const mediaRangeSource = "[A-Za-z0-9*][A-Za-z0-9!#$&^_.+*-]{0,63}/[A-Za-z0-9*][A-Za-z0-9!#$&^_.+*-]{0,63}";
/** `accept`: 1 to 16 media ranges separated by commas, no spaces. */
export const acceptPattern = `^${mediaRangeSource}(,${mediaRangeSource}){0,${maxAcceptRanges - 1}}$`;
const accept = new RegExp(acceptPattern);
/** The spellings of a state route takes: every ingest spelling of a state that is not terminal, and of completed. */
export const routeStateSpellings: readonly string[] = taskStateSpellings
  .filter(([, state]) => routableState(state))
  .map(([spelling]) => spelling);

/** A path id: 1–512 characters without control characters. */
export function pathId(value: unknown, parameter: string): string {
  if (typeof value !== "string" || !isId(value)) {
    throw new ProjectorError(
      "PROJECTOR_BAD_ID",
      `${parameter} must be 1 to ${maxIdChars} characters without control characters`,
      parameter,
    );
  }
  return value;
}

type Parser<T> = (raw: string, name: string) => T;

export const parsers = {
  id: ((raw, name) => {
    if (!isId(raw))
      throw new ProjectorError(
        "PROJECTOR_BAD_FILTER",
        `${name} must be 1 to ${maxIdChars} characters without control characters`,
        name,
      );
    return raw;
  }) as Parser<string>,
  status: ((raw, name) => {
    if (!(taskStatuses as readonly string[]).includes(raw))
      throw new ProjectorError("PROJECTOR_BAD_FILTER", `${name} must be one of ${taskStatuses.join(", ")}`, name);
    return raw as TaskStatus;
  }) as Parser<TaskStatus>,
  violationKind: ((raw, name) => {
    if (!(ViolationKindSymbols as readonly string[]).includes(raw))
      throw new ProjectorError(
        "PROJECTOR_BAD_FILTER",
        `${name} must be one of ${ViolationKindSymbols.join(", ")}`,
        name,
      );
    return raw;
  }) as Parser<string>,
  time: ((raw, name) => {
    const parsed = toEpochMillis(epochMillis.test(raw) ? Number(raw) : raw);
    if (!parsed.ok)
      throw new ProjectorError(
        "PROJECTOR_BAD_FILTER",
        `${name} must be epoch milliseconds or an ISO-8601 date-time with offset`,
        name,
      );
    return parsed.value;
  }) as Parser<number>,
  timelineFormat: ((raw, name) => {
    if (raw !== "a2a")
      throw new ProjectorError("PROJECTOR_BAD_FILTER", `${name} must be a2a (A2A's Task.timeline shape)`, name);
    return raw;
  }) as Parser<"a2a">,
  /** A task state in any spelling the ingest takes; a terminal one (other than completed) has nothing to route. */
  taskState: ((raw, name) => {
    const state = routeStateSpellings.includes(raw) ? normalizeTaskState(raw) : null;
    if (state === null)
      throw new ProjectorError(
        "PROJECTOR_BAD_FILTER",
        `${name} must be a task state that is not terminal (e.g. input-required or TASK_STATE_INPUT_REQUIRED); a terminal one has no task to take over`,
        name,
      );
    return state;
  }) as Parser<TaskState>,
  /** Comma-separated media ranges (type/subtype, * allowed), at most 16. */
  accept: ((raw, name) => {
    if (!accept.test(raw))
      throw new ProjectorError(
        "PROJECTOR_BAD_FILTER",
        `${name} must be 1 to ${maxAcceptRanges} media ranges separated by commas without spaces (type/subtype, each part 1 to 64 characters, * allowed, no parameters)`,
        name,
      );
    return raw.split(",");
  }) as Parser<string[]>,
  limit:
    (max: number): Parser<number> =>
    (raw, name) => {
      if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
        throw new ProjectorError("PROJECTOR_BAD_FILTER", `${name} must be an integer from 1 to ${max}`, name);
      return Number(raw);
    },
  cursor: ((raw, name) => {
    if (!wellFormedCursor(raw))
      throw new ProjectorError("PROJECTOR_BAD_CURSOR", "The cursor is not valid for this query: malformed.", name);
    return raw;
  }) as Parser<string>,
  reason: ((raw, name) => {
    if (!reasonCode.test(raw) || raw.length > maxReasonChars)
      throw new ProjectorError(
        "PROJECTOR_BAD_FILTER",
        `${name} must be a reason code (capitals, digits and '_')`,
        name,
      );
    return raw;
  }) as Parser<string>,
};

export type Spec = Record<string, Parser<unknown>>;
export type Parsed<S extends Spec> = { [K in keyof S]?: ReturnType<S[K]> };

/** Parses `query` by `spec`: unknown or repeated parameters are PROJECTOR_UNKNOWN_PARAMETER; empty values count as absent. */
export function queryParams<S extends Spec>(query: unknown, spec: S): Parsed<S> {
  const out: Record<string, unknown> = {};
  const entries = typeof query === "object" && query !== null ? Object.entries(query as Record<string, unknown>) : [];
  for (const [name, value] of entries) {
    if (!Object.hasOwn(spec, name))
      throw new ProjectorError(
        "PROJECTOR_UNKNOWN_PARAMETER",
        `Unknown query parameter ${JSON.stringify(name.slice(0, 100))}; this route knows ${Object.keys(spec).join(", ") || "none"}`,
        name.slice(0, 100),
      );
    if (typeof value !== "string")
      throw new ProjectorError("PROJECTOR_UNKNOWN_PARAMETER", `Query parameter ${name} is given more than once`, name);
    if (value === "") continue;
    out[name] = (spec[name] as Parser<unknown>)(value, name);
  }
  return out as Parsed<S>;
}
