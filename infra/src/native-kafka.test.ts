import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { serverProperties } from "./native-kafka.ts";

describe("the native broker's server.properties", () => {
  const props = serverProperties(loadConfig({ A2A_LEDGER_KAFKA_PORT: "29092", A2A_LEDGER_KAFKA_CONTROLLER_PORT: "29093" }), "/data");

  it("binds broker and controller to loopback only", () => {
    expect(props).toMatch(/^listeners=PLAINTEXT:\/\/127\.0\.0\.1:29092,CONTROLLER:\/\/127\.0\.0\.1:29093$/m);
    expect(props).toMatch(/^advertised\.listeners=PLAINTEXT:\/\/127\.0\.0\.1:29092$/m);
  });

  it("gives every internal topic replication 1, as one node requires", () => {
    for (const key of ["offsets.topic.replication.factor", "transaction.state.log.replication.factor", "transaction.state.log.min.isr", "share.coordinator.state.topic.replication.factor"]) {
      expect(props).toMatch(new RegExp(`^${key.replace(/\./g, "\\.")}=1$`, "m"));
    }
  });

  it("creates no topic implicitly: topics are code", () => {
    expect(props).toMatch(/^auto\.create\.topics\.enable=false$/m);
  });
});
