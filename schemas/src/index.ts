export * from "./generated/types.ts";
export { avroSchemas } from "./generated/avro-schemas.ts";
export {
  avroType,
  isKnownType,
  isValidRecord,
  validateRecord,
  type SchemaGroup,
  type SchemaIssue,
  type TypeName,
} from "./validate.ts";
export { catalogue, namespace, subjectOf, type SubjectSchema } from "./subjects.ts";
