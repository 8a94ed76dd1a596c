export { Serde, schemaIdOf, WireFormatError, type Decoded, type LedgerRecord } from "./serde.ts";
export { checkCompatibility, getSubjectCompatibility, setSubjectCompatibility, type Compatibility, type CompatibilityVerdict } from "./registry-admin.ts";
export { classifyDecodeFailure, type DecodeFailure, type DecodeFailureKind } from "./decode-failure.ts";
