/**
 * Decodes Confluent wire-format values (magic byte 0, schema id, Avro binary) with avsc and the writer
 * schema fetched from the registry by id: the oracle's decoding, independent of the ledger's serde.
 */
import avsc from "avsc";

export interface Decoded {
  /** The record's type name without namespace, e.g. TaskDispatched. */
  type: string;
  /** The record's fields as avsc reads them without logical types (timestamps are epoch-ms numbers). */
  fields: Record<string, unknown>;
  schemaId: number;
}

export class WireDecoder {
  private readonly types = new Map<number, Promise<avsc.Type>>();

  constructor(private readonly registryUrl: string) {}

  private typeOf(id: number): Promise<avsc.Type> {
    let type = this.types.get(id);
    if (type === undefined) {
      type = (async () => {
        const response = await fetch(`${this.registryUrl}/schemas/ids/${id}`, { signal: AbortSignal.timeout(30_000) });
        if (!response.ok) throw new Error(`the registry answered ${response.status} for schema id ${id}`);
        const { schema } = (await response.json()) as { schema: string };
        return avsc.Type.forSchema(JSON.parse(schema) as avsc.Schema, { wrapUnions: false });
      })();
      type.catch(() => this.types.delete(id));
      this.types.set(id, type);
    }
    return type;
  }

  /** The avsc type of a registered schema id (to normalise expected records the same way). */
  async schema(id: number): Promise<avsc.Type> {
    return this.typeOf(id);
  }

  async decode(value: Buffer): Promise<Decoded> {
    if (value.length < 5 || value[0] !== 0)
      throw new Error(`not Confluent wire format (first byte ${value[0]}, ${value.length} bytes)`);
    const schemaId = value.readInt32BE(1);
    const type = await this.typeOf(schemaId);
    const fields = type.fromBuffer(value.subarray(5)) as Record<string, unknown>;
    const name = (type as avsc.Type & { name?: string }).name ?? "";
    return { type: name.slice(name.lastIndexOf(".") + 1), fields, schemaId };
  }
}
