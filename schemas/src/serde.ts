/**
 * Avro serde in the Confluent wire format (magic byte 0, 4-byte schema id, Avro binary) on
 * @kafkajs/confluent-schema-registry. Registers the catalogue with BACKWARD compatibility per subject,
 * encodes a typed event by its `type`, and decodes any record back into its typed form.
 */
import registryPkg from "@kafkajs/confluent-schema-registry";
import { processClientConfig, registryAgent, type RegistrySecurity } from "@a2a-ledger/kafka";
import type avro from "avsc";
import type { Decision, Observation, StateRecord } from "./generated/types.ts";
import { setSubjectCompatibility } from "./registry-admin.ts";
import { catalogue, namespace, type SubjectSchema } from "./subjects.ts";
import { avroType, type SchemaGroup } from "./validate.ts";
import { WireWriter } from "./wire-writer.ts";

const { SchemaRegistry, SchemaType } = registryPkg;

export type LedgerRecord = Observation | Decision | StateRecord;

export interface Decoded {
  schemaId: number;
  typeName: string;
  group: SchemaGroup;
  record: LedgerRecord;
}

export class WireFormatError extends Error {
  override name = "WireFormatError";
}

/** The schema id of a Confluent-framed record, or a WireFormatError. */
export function schemaIdOf(buffer: Buffer): number {
  if (buffer.length < 5 || buffer[0] !== 0) throw new WireFormatError("not a Confluent wire-format record (magic byte 0 and a schema id expected)");
  return buffer.readInt32BE(1);
}

export class Serde {
  private readonly registry: InstanceType<typeof SchemaRegistry>;
  private readonly ids = new Map<string, number>();
  private readonly types = new Map<number, { typeName: string; group: SchemaGroup }>();
  /** Schema ids whose registered schema is exactly this catalogue's: decoded without the registry client. */
  private readonly exact = new Map<number, { typeName: string; group: SchemaGroup; type: avro.Type }>();
  private readonly bySubjectName: Map<string, SubjectSchema>;
  private readonly writer = new WireWriter();

  /** `security`: basic auth and TLS for the registry; this process's client configuration by default. */
  constructor(readonly registryUrl: string, readonly schemas: SubjectSchema[] = catalogue(), private readonly security: RegistrySecurity = processClientConfig().registry) {
    const auth = security.basicAuth;
    const agent = registryUrl.startsWith("https:") ? registryAgent(security) : undefined;
    this.registry = new SchemaRegistry({
      host: registryUrl,
      retry: { retries: 3 },
      ...(auth === undefined ? {} : { auth: { username: auth.username, password: auth.password } }),
      ...(agent === undefined ? {} : { agent: agent as unknown as import("node:http").Agent }),
    });
    this.bySubjectName = new Map(schemas.map((s) => [s.typeName, s]));
  }

  /** Sets BACKWARD on each subject and registers (or finds) its schema; idempotent. */
  async registerAll(): Promise<Map<string, number>> {
    for (const entry of this.schemas) {
      await setSubjectCompatibility(this.registryUrl, entry.subject, "BACKWARD", this.security);
      const { id } = await this.registry.register({ type: SchemaType.AVRO, schema: entry.schema }, { subject: entry.subject });
      this.remember(entry.typeName, entry.group, id);
    }
    return new Map(this.ids);
  }

  private async idOf(typeName: string): Promise<number> {
    const known = this.ids.get(typeName);
    if (known !== undefined) return known;
    const entry = this.bySubjectName.get(typeName);
    if (entry === undefined) throw new Error(`no schema for event type ${JSON.stringify(typeName)}`);
    const id = await this.registry.getRegistryIdBySchema(entry.subject, { type: SchemaType.AVRO, schema: entry.schema });
    this.remember(typeName, entry.group, id);
    return id;
  }

  /** `id` is the registry's id of this catalogue's schema of `typeName`. */
  private remember(typeName: string, group: SchemaGroup, id: number): void {
    this.ids.set(typeName, id);
    this.types.set(id, { typeName, group });
    this.exact.set(id, { typeName, group, type: avroType(group, typeName as never) });
  }

  /** Encodes any record; a record that does not fit its schema is an error naming the bad paths. */
  async encode(record: LedgerRecord): Promise<Buffer> {
    const { type, ...fields } = record;
    return this.registry.encode(await this.idOf(type), fields);
  }

  /**
   * Encodes a record already validated against its schema (by `validateRecord` or the core's
   * `parseObservation`), to the same bytes as `encode`. It skips the registry client's per-record
   * work and copies: the frame is written directly with the event's avsc type. avsc still refuses a
   * value of the wrong type, but fields the schema does not declare are dropped silently, so
   * unvalidated input belongs in `encode`.
   */
  async encodeValidated(record: LedgerRecord): Promise<Buffer> {
    const type = record.type;
    const id = this.ids.get(type) ?? (await this.idOf(type));
    const entry = this.bySubjectName.get(type);
    if (entry === undefined) throw new Error(`no schema for event type ${JSON.stringify(type)}`);
    return this.writer.frame(id, avroType(entry.group, type as never), record);
  }

  async decode(buffer: Buffer): Promise<Decoded> {
    const schemaId = schemaIdOf(buffer);
    const exact = this.exact.get(schemaId);
    if (exact !== undefined) {
      // The writer's schema is ours: read the bytes directly (avsc refuses truncated or trailing bytes).
      const value = exact.type.fromBuffer(buffer.subarray(5)) as Record<string, unknown>;
      return { schemaId, typeName: exact.typeName, group: exact.group, record: toPlain({ type: exact.typeName, ...value }) as LedgerRecord };
    }
    const value = (await this.registry.decode(buffer)) as Record<string, unknown>;
    let known = this.types.get(schemaId);
    if (known === undefined) {
      const schema = (await this.registry.getSchema(schemaId)) as { name?: string };
      const fullName = schema.name ?? "";
      const typeName = fullName.startsWith(`${namespace}.`) ? fullName.slice(namespace.length + 1) : fullName;
      const entry = this.bySubjectName.get(typeName);
      if (entry === undefined) throw new WireFormatError(`schema id ${schemaId} is ${fullName || "not a named record"}, not an event of this catalogue`);
      known = { typeName, group: entry.group };
      this.types.set(schemaId, known);
      // When this id is the catalogue's own schema, later records with it take the direct path.
      await this.idOf(typeName).catch(() => undefined);
    }
    return { schemaId, typeName: known.typeName, group: known.group, record: toPlain({ type: known.typeName, ...value }) as LedgerRecord };
  }
}

/** avsc decodes records into class instances; events travel as plain objects. */
function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === "object" && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}
