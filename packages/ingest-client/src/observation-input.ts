/**
 * The ingest JSON shape of an observation, typed from the generated Avro types: what the server
 * accepts besides the exact Avro record (times as epoch ms, ISO-8601 text or Date; the card as an
 * object; v0.3 spellings; nullable fields, `cardHash` and `rawState` optional).
 */
import type { Observation, ObservationChannel, TaskState } from "@a2a-ledger/schemas";

type Time = number | string | Date;
type V03State = "submitted" | "working" | "input-required" | "auth-required" | "completed" | "failed" | "canceled" | "rejected" | "unknown";
type V03Channel = "send-response" | "get" | "stream" | "push" | "other";

type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];
type DerivedKeys<T> = Extract<keyof T, "cardHash" | "rawState">;

type Lenient<T> = {
  [K in keyof T]: K extends "occurredAt" | "cardFetchedAt"
    ? null extends T[K] ? Time | null : Time
    : K extends "card"
      ? string | Record<string, unknown>
      : K extends "state"
        ? TaskState | V03State
        : K extends "via"
          ? ObservationChannel | V03Channel
          : T[K];
};

type Input<T> = Omit<Lenient<T>, NullableKeys<T> | DerivedKeys<T>> & Partial<Pick<Lenient<T>, NullableKeys<T> | DerivedKeys<T>>>;

/** One observation as the ingest API accepts it. */
export type ObservationInput = Observation extends infer O ? (O extends Observation ? Input<O> : never) : never;
