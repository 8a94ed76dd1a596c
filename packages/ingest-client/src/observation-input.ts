/**
 * The ingest JSON shape of an observation, typed from the Avro schemas and the core's input
 * vocabulary, so it accepts exactly the spellings the server accepts: times as epoch ms, ISO-8601
 * text with an offset or a Date; the card as an object or its JSON text; task states, channels and
 * part kinds in any spelling of the vocabulary; `mimeType` or `mediaType` on a part, not both; fields
 * with an Avro default optional; `cardHash` of a card fetch and `rawState` derived when absent.
 */
import type { ChannelSpelling, PartKindSpelling, TaskStateSpelling } from "@a2a-ledger/core";
import type { Observation, ObservationType, avroSchemas } from "@a2a-ledger/schemas";

type Time = number | string | Date;

/** The Avro fields of an observation type, as the const schema declares them. */
type Fields<T extends ObservationType> = (typeof avroSchemas.observations)[T]["fields"][number];
/** Fields with an Avro default: optional in the input. */
type DefaultedKeys<T extends ObservationType> = Extract<Fields<T>, { default: unknown }>["name"];
/** Fields the server derives when absent. */
type DerivedKeys<T extends ObservationType> = T extends "AgentCardObserved"
  ? "cardHash"
  : T extends "TaskStateObserved"
    ? "rawState"
    : never;

export type PartInput = { kind: PartKindSpelling; sizeBytes: number } & (
  | { mediaType?: string | null; mimeType?: never }
  | { mimeType?: string | null; mediaType?: never }
);
export interface ParkedCanaryInput {
  serverTaskId: string;
  state: TaskStateSpelling;
}

type Lenient<T, Type extends ObservationType> = {
  [K in keyof T]: K extends "occurredAt" | "cardFetchedAt"
    ? null extends T[K]
      ? Time | null
      : Time
    : K extends "card"
      ? string | Record<string, unknown>
      : K extends "state"
        ? null extends T[K]
          ? TaskStateSpelling | null
          : TaskStateSpelling
        : K extends "statesObserved" | "reobservable"
          ? TaskStateSpelling[]
          : K extends "parkedCanaries"
            ? ParkedCanaryInput[]
            : K extends "parts"
              ? PartInput[]
              : K extends "via"
                ? ChannelSpelling
                : K extends "errorCode"
                  ? string | number
                  : K extends "cardHash"
                    ? Type extends "AgentCardObserved"
                      ? string | null
                      : T[K]
                    : T[K];
};

type OptionalKeys<T extends ObservationType> = DefaultedKeys<T> | DerivedKeys<T>;
type Input<O extends Observation> = O["type"] extends infer T extends ObservationType
  ? Omit<Lenient<O, T>, OptionalKeys<T>> & Partial<Pick<Lenient<O, T>, Extract<OptionalKeys<T>, keyof O>>>
  : never;

/** One observation as the ingest API accepts it. */
export type ObservationInput = Observation extends infer O ? (O extends Observation ? Input<O> : never) : never;
