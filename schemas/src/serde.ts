/**
 * Avro serde in the Confluent wire format (magic byte 0, 4-byte schema id, Avro binary) on
 * @kafkajs/confluent-schema-registry. Registers the catalogue with BACKWARD compatibility per subject,
 * encodes a typed event by its `type`, and decodes any record back into its typed form.
 *
 * Decoding reads with the schema of this catalogue (the reader), whatever schema the record was
 * written with (the writer, found in the registry by the record's schema id): a record written before
 * a backward-compatible change gets the defaults of the fields added since, a field removed since is
 * skipped (Avro schema resolution). One resolver per writer schema id, built at its first record.
 */
import type { SerdeErrorCode } from "./errors.ts";
import registryPkg from "@kafkajs/confluent-schema-registry";
import avro from "avsc";
import type { Decision, Observation, StateRecord } from "./generated/types.ts";
import { eventCopier } from "./plain-record.ts";
import { setSubjectCompatibility } from "./registry-admin.ts";
import { registryAgent, type RegistrySecurity } from "./registry-http.ts";
import { catalogue, namespace, type SubjectSchema } from "./subjects.ts";
import type { SchemaGroup } from "./validate.ts";
import { WireWriter } from "./wire-writer.ts";

const { SchemaRegistry, SchemaType } = registryPkg;

export type LedgerRecord = Observation | Decision | StateRecord;

export interface Decoded {
  schemaId: number;
  typeName: string;
  group: SchemaGroup;
  record: LedgerRecord;
}

/**
 * Why the serde refuses a record, as a stable code of its catalogue (errors.ts). A registry that cannot be
 * reached is none of these: its own error passes through (worth a retry).
 */
export class SerdeError extends Error {
  override name = "SerdeError";
  constructor(
    message: string,
    readonly code: SerdeErrorCode,
  ) {
    super(message);
  }
}

/** The bytes are not a record of this ledger at all: not the wire format, or a schema outside the catalogue. */
export class WireFormatError extends SerdeError {
  override name = "WireFormatError";
  constructor(message: string, code: "SERDE_NOT_WIRE_FORMAT" | "SERDE_NOT_IN_CATALOGUE" = "SERDE_NOT_WIRE_FORMAT") {
    super(message, code);
  }
}

/** The schema id of a Confluent-framed record, or a WireFormatError. */
export function schemaIdOf(buffer: Buffer): number {
  if (buffer.length < 5 || buffer[0] !== 0)
    throw new WireFormatError("not a Confluent wire-format record (magic byte 0 and a schema id expected)");
  return buffer.readInt32BE(1);
}

const headerBytes = 5;

/** avsc types of catalogue schemas, one per schema text, shared by every Serde. */
const typesBySchema = new Map<string, avro.Type>();

function typeOfSchema(schema: string): avro.Type {
  let type = typesBySchema.get(schema);
  if (type === undefined) {
    type = avro.Type.forSchema(JSON.parse(schema) as avro.Schema);
    typesBySchema.set(schema, type);
  }
  return type;
}

type Resolver = ReturnType<avro.Type["createResolver"]>;

/** How the records of one writer schema id are read: the catalogue's type, resolved from the writer's. */
class Reader {
  private readonly copy: (value: unknown) => Record<string, unknown>;

  constructor(
    readonly schemaId: number,
    readonly typeName: string,
    readonly group: SchemaGroup,
    private readonly type: avro.Type,
    private readonly resolver: Resolver | undefined,
  ) {
    this.copy = eventCopier(type, typeName);
  }

  read(buffer: Buffer): Decoded {
    let decoded: { value: unknown; offset: number };
    try {
      decoded = this.type.decode(buffer, headerBytes, this.resolver);
    } catch (error) {
      throw new SerdeError(
        `a ${this.typeName} record (schema id ${this.schemaId}) does not decode: ${(error as Error).message}`,
        "SERDE_BAD_BYTES",
      );
    }
    if (decoded.offset < 0)
      throw new SerdeError(
        `a ${this.typeName} record (schema id ${this.schemaId}) does not decode: truncated (${buffer.length} bytes)`,
        "SERDE_BAD_BYTES",
      );
    if (decoded.offset !== buffer.length)
      throw new SerdeError(
        `a ${this.typeName} record (schema id ${this.schemaId}) does not decode: ${buffer.length - decoded.offset} bytes after the record`,
        "SERDE_BAD_BYTES",
      );
    return {
      schemaId: this.schemaId,
      typeName: this.typeName,
      group: this.group,
      record: this.copy(decoded.value) as unknown as LedgerRecord,
    };
  }
}

interface Entry extends SubjectSchema {
  type: avro.Type;
}

export class Serde {
  private readonly registry: InstanceType<typeof SchemaRegistry>;
  private readonly ids = new Map<string, number>();
  private readonly entries: Map<string, Entry>;
  /** Per writer schema id, how its records are read; filled at the first record of each id. */
  private readonly readers = new Map<number, Reader>();
  private readonly lookups = new Map<number, Promise<Reader>>();
  private readonly idLookups = new Map<string, Promise<number>>();
  private readonly writer = new WireWriter();

  /**
   * `schemas`: the catalogue this Serde writes and reads as (the shipped one by default).
   * `security`: basic auth and TLS for the registry, none by default; a program passes its client
   * configuration's (`processClientConfig().registry` of @a2a-ledger/kafka).
   */
  constructor(
    readonly registryUrl: string,
    readonly schemas: SubjectSchema[] = catalogue(),
    private readonly security: RegistrySecurity = {},
  ) {
    const auth = security.basicAuth;
    const agent = registryUrl.startsWith("https:") ? registryAgent(security) : undefined;
    this.registry = new SchemaRegistry({
      host: registryUrl,
      retry: { retries: 3 },
      ...(auth === undefined ? {} : { auth: { username: auth.username, password: auth.password } }),
      ...(agent === undefined ? {} : { agent: agent as unknown as import("node:http").Agent }),
    });
    this.entries = new Map(schemas.map((s) => [s.typeName, { ...s, type: typeOfSchema(s.schema) }]));
  }

  /** Sets BACKWARD on each subject and registers (or finds) its schema; idempotent. */
  async registerAll(): Promise<Map<string, number>> {
    for (const entry of this.entries.values()) {
      await setSubjectCompatibility(this.registryUrl, entry.subject, "BACKWARD", this.security);
      const { id } = await this.registry.register(
        { type: SchemaType.AVRO, schema: entry.schema },
        { subject: entry.subject },
      );
      this.remember(entry, id);
    }
    return new Map(this.ids);
  }

  private entryOf(typeName: string): Entry {
    const entry = this.entries.get(typeName);
    if (entry === undefined)
      throw new SerdeError(`no schema for event type ${JSON.stringify(typeName)}`, "SERDE_UNKNOWN_EVENT_TYPE");
    return entry;
  }

  /** The registry id of the entry's schema: one lookup per type, shared by the records encoded meanwhile. */
  private idOf(entry: Entry): Promise<number> {
    const known = this.ids.get(entry.typeName);
    if (known !== undefined) return Promise.resolve(known);
    let lookup = this.idLookups.get(entry.typeName);
    if (lookup === undefined) {
      lookup = this.registry
        .getRegistryIdBySchema(entry.subject, { type: SchemaType.AVRO, schema: entry.schema })
        .then((id) => {
          this.remember(entry, id);
          return id;
        })
        .finally(() => this.idLookups.delete(entry.typeName));
      this.idLookups.set(entry.typeName, lookup);
    }
    return lookup;
  }

  /** `id` is the registry's id of this catalogue's schema of the entry: its records read without a resolver. */
  private remember(entry: Entry, id: number): void {
    this.ids.set(entry.typeName, id);
    if (!this.readers.has(id)) this.readers.set(id, new Reader(id, entry.typeName, entry.group, entry.type, undefined));
  }

  /**
   * Encodes any record; a record that does not fit its schema is a SerdeError (`SERDE_INVALID_RECORD`)
   * naming the bad paths. Fields the schema does not declare are not written.
   */
  async encode(record: LedgerRecord): Promise<Buffer> {
    const entry = this.entryOf(record.type);
    const id = this.ids.get(entry.typeName) ?? (await this.idOf(entry));
    try {
      return this.writer.frame(id, entry.type, record);
    } catch (error) {
      const paths: string[] = [];
      entry.type.isValid(record, { errorHook: (path: string[]) => paths.push(path.join(".")) });
      throw new SerdeError(
        `a ${record.type} record does not fit its schema${paths.length > 0 ? ` at ${paths.join(", ")}` : ""}: ${(error as Error).message}`,
        "SERDE_INVALID_RECORD",
      );
    }
  }

  /**
   * Encodes a record already validated against its schema (by `validateRecord` or the core's
   * `parseObservation`), to the same bytes as `encode`, without its error report: avsc still refuses
   * a value of the wrong type, but the error names no path.
   */
  async encodeValidated(record: LedgerRecord): Promise<Buffer> {
    const entry = this.entryOf(record.type);
    const id = this.ids.get(entry.typeName) ?? (await this.idOf(entry));
    return this.writer.frame(id, entry.type, record);
  }

  /** The typed record, read as this catalogue's schema of its type; a SerdeError says why not. */
  async decode(buffer: Buffer): Promise<Decoded> {
    const schemaId = schemaIdOf(buffer);
    const reader = this.readers.get(schemaId) ?? (await this.readerOf(schemaId));
    return reader.read(buffer);
  }

  /** The reader of a writer schema id not seen yet: one registry lookup, shared by concurrent records. */
  private readerOf(schemaId: number): Promise<Reader> {
    let lookup = this.lookups.get(schemaId);
    if (lookup === undefined) {
      lookup = this.resolve(schemaId).finally(() => this.lookups.delete(schemaId));
      this.lookups.set(schemaId, lookup);
    }
    return lookup;
  }

  private async resolve(schemaId: number): Promise<Reader> {
    let writer: unknown;
    try {
      writer = await this.registry.getSchema(schemaId);
    } catch (error) {
      if ((error as { status?: number }).status === 404)
        throw new SerdeError(`schema id ${schemaId} is not in the registry`, "SERDE_UNKNOWN_SCHEMA_ID");
      throw error;
    }
    if (!avro.Type.isType(writer))
      throw new WireFormatError(
        `schema id ${schemaId} is not an Avro schema, not an event of this catalogue`,
        "SERDE_NOT_IN_CATALOGUE",
      );
    const writerType = writer as avro.Type;
    const fullName = writerType.name ?? "";
    const entry = fullName.startsWith(`${namespace}.`)
      ? this.entries.get(fullName.slice(namespace.length + 1))
      : undefined;
    if (entry === undefined)
      throw new WireFormatError(
        `schema id ${schemaId} is ${fullName || "not a named record"}, not an event of this catalogue`,
        "SERDE_NOT_IN_CATALOGUE",
      );
    let resolver: Resolver | undefined;
    if (!writerType.equals(entry.type)) {
      try {
        resolver = entry.type.createResolver(writerType);
      } catch (error) {
        const why = (error as Error).message.split("\n")[0] ?? "";
        throw new SerdeError(
          `schema id ${schemaId} (${fullName}) cannot be read as this catalogue's ${entry.typeName}: ${why.slice(0, 500)}`,
          "SERDE_UNRESOLVABLE_SCHEMA",
        );
      }
    }
    const reader = new Reader(schemaId, entry.typeName, entry.group, entry.type, resolver);
    this.readers.set(schemaId, reader);
    return reader;
  }
}
