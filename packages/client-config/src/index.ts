export * from "./client-config.ts";
export * from "./endpoints.ts";
export { parseProperties } from "./properties.ts";
