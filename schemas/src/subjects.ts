/**
 * Subject naming: Confluent's RecordNameStrategy. Each event type is its own subject, named by the
 * fully qualified record name, so one topic carries several event types and each evolves alone.
 */
import { avroSchemas } from "./generated/avro-schemas.ts";
import type { SchemaGroup } from "./validate.ts";

export const namespace = "a2a.ledger.v1";

export const subjectOf = (typeName: string) => `${namespace}.${typeName}`;

export interface SubjectSchema {
  group: SchemaGroup;
  typeName: string;
  subject: string;
  schema: string;
}

/** Every schema of the catalogue with its subject, in a stable order. */
export function catalogue(schemas: typeof avroSchemas = avroSchemas): SubjectSchema[] {
  return (Object.keys(schemas) as SchemaGroup[]).flatMap((group) =>
    Object.entries(schemas[group]).map(([typeName, schema]) => ({
      group,
      typeName,
      subject: subjectOf(typeName),
      schema: JSON.stringify(schema),
    })),
  );
}
