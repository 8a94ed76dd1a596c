export * from "./client.ts";
export * from "./client-config.ts";
export * from "./access-failure.ts";
export * from "./registry-http.ts";
export * from "./topics.ts";
export * from "./endpoints.ts";
export * from "./partition.ts";
export * from "./acls.ts";
