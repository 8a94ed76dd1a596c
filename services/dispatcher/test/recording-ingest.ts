/**
 * A small HTTP server that answers as ingest does: 202 with `{accepted}` and the batch kept in
 * `received`, or, while `status` is set to another code, that status with ingest's error shape (the
 * fault a test injects, as a full disk is for the proxy).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ObservationInput } from "@a2a-ledger/ingest-client";

export interface RecordingIngest {
  url: string;
  received: ObservationInput[][];
  status: number;
  close(): Promise<void>;
}

export async function startRecordingIngest(status = 202): Promise<RecordingIngest> {
  const ingest: RecordingIngest = { url: "", received: [], status, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const batch = JSON.parse(Buffer.concat(chunks).toString()) as ObservationInput[];
      res.setHeader("content-type", "application/json");
      if (ingest.status !== 202) {
        res.statusCode = ingest.status;
        res.end(JSON.stringify({ error: "invalid bearer token", code: "INGEST_UNAUTHORIZED" }));
        return;
      }
      ingest.received.push(batch);
      res.statusCode = 202;
      res.end(JSON.stringify({ accepted: batch.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  ingest.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ingest.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return ingest;
}
