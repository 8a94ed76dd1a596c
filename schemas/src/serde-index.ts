export {
  Serde,
  SerdeError,
  schemaIdOf,
  WireFormatError,
  type Decoded,
  type LedgerRecord,
} from "./serde.ts";
export { serdeErrors, type SerdeErrorCode } from "./errors.ts";
export {
  checkCompatibility,
  getSubjectCompatibility,
  setSubjectCompatibility,
  type Compatibility,
  type CompatibilityVerdict,
} from "./registry-admin.ts";
export {
  registryAgent,
  registryAuthorization,
  registryRefusal,
  registryRequest,
  RegistryUnreachableError,
  type RegistryRequest,
  type RegistryResponse,
  type RegistrySecurity,
} from "./registry-http.ts";
export { classifyDecodeFailure, type DecodeFailure, type DecodeFailureKind } from "./decode-failure.ts";
