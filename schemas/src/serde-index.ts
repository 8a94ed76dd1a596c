export { Serde, SerdeError, schemaIdOf, WireFormatError, type Decoded, type LedgerRecord, type SerdeErrorCode } from "./serde.ts";
export { checkCompatibility, getSubjectCompatibility, setSubjectCompatibility, type Compatibility, type CompatibilityVerdict } from "./registry-admin.ts";
export { classifyDecodeFailure, type DecodeFailure, type DecodeFailureKind } from "./decode-failure.ts";
