export * from "./client.ts";
export * from "./topics.ts";
export * from "./endpoints.ts";
export * from "./partition.ts";
export * from "./end-offsets.ts";
export * from "./partition-send.ts";
