import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { brokersOf, kafkaNodes, newClusterId, serverProperties } from "./native-kafka.ts";

const setting = (props: string, key: string) => new RegExp(`^${key.replace(/\./g, "\\.")}=(.*)$`, "m").exec(props)?.[1];

describe("the native broker's server.properties", () => {
  const config = loadConfig({
    A2A_LEDGER_KAFKA_PORT: "29092",
    A2A_LEDGER_KAFKA_CONTROLLER_PORT: "29093",
    A2A_LEDGER_DATA_DIR: "/data",
  });
  const props = serverProperties(config);

  it("binds broker and controller to loopback only", () => {
    expect(props).toMatch(/^listeners=PLAINTEXT:\/\/127\.0\.0\.1:29092,CONTROLLER:\/\/127\.0\.0\.1:29093$/m);
    expect(props).toMatch(/^advertised\.listeners=PLAINTEXT:\/\/127\.0\.0\.1:29092$/m);
  });

  it("gives every internal topic replication 1, as one node requires", () => {
    for (const key of [
      "offsets.topic.replication.factor",
      "transaction.state.log.replication.factor",
      "transaction.state.log.min.isr",
      "share.coordinator.state.topic.replication.factor",
      "default.replication.factor",
      "min.insync.replicas",
    ]) {
      expect(setting(props, key)).toBe("1");
    }
  });

  it("keeps the single node's folder and dynamic quorum, so existing data directories start as before", () => {
    expect(kafkaNodes(config).map((n) => n.data)).toEqual(["/data/kafka/data"]);
    expect(setting(props, "controller.quorum.bootstrap.servers")).toBe("127.0.0.1:29093");
    expect(setting(props, "controller.quorum.voters")).toBeUndefined();
  });

  it("creates no topic implicitly: topics are code", () => {
    expect(props).toMatch(/^auto\.create\.topics\.enable=false$/m);
  });
});

describe("a three-node cluster's server.properties", () => {
  const config = loadConfig({
    A2A_LEDGER_KAFKA_NODES: "3",
    A2A_LEDGER_KAFKA_PORT: "29092",
    A2A_LEDGER_KAFKA_CONTROLLER_PORT: "29093",
    A2A_LEDGER_DATA_DIR: "/data",
  });
  const nodes = kafkaNodes(config);
  const props = nodes.map((n) => serverProperties(config, n));

  it("gives each node its own id, port pair and data directory", () => {
    expect(nodes.map((n) => [n.id, n.port, n.controllerPort, n.data])).toEqual([
      [1, 29092, 29093, "/data/kafka/node-1/data"],
      [2, 29094, 29095, "/data/kafka/node-2/data"],
      [3, 29096, 29097, "/data/kafka/node-3/data"],
    ]);
    expect(props.map((p) => setting(p, "node.id"))).toEqual(["1", "2", "3"]);
    expect(props.map((p) => setting(p, "advertised.listeners"))).toEqual([
      "PLAINTEXT://127.0.0.1:29092",
      "PLAINTEXT://127.0.0.1:29094",
      "PLAINTEXT://127.0.0.1:29096",
    ]);
    expect(brokersOf(config)).toBe("127.0.0.1:29092,127.0.0.1:29094,127.0.0.1:29096");
  });

  it("names the same static controller quorum on every node", () => {
    for (const p of props)
      expect(setting(p, "controller.quorum.voters")).toBe("1@127.0.0.1:29093,2@127.0.0.1:29095,3@127.0.0.1:29097");
  });

  it("replicates the internal topics three times with two in sync, and never elects an unclean leader", () => {
    for (const p of props) {
      for (const key of [
        "offsets.topic.replication.factor",
        "transaction.state.log.replication.factor",
        "share.coordinator.state.topic.replication.factor",
        "default.replication.factor",
      ])
        expect(setting(p, key)).toBe("3");
      for (const key of [
        "transaction.state.log.min.isr",
        "share.coordinator.state.topic.min.isr",
        "min.insync.replicas",
      ])
        expect(setting(p, key)).toBe("2");
      expect(setting(p, "unclean.leader.election.enable")).toBe("false");
    }
  });

  it("refuses a node count the launcher does not run", () => {
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_NODES: "0" })).toThrow(/A2A_LEDGER_KAFKA_NODES="0"/);
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_NODES: "three" })).toThrow(/node count/);
  });

  it("refuses node ports that collide with the registry's", () => {
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_NODES: "3", A2A_LEDGER_REGISTRY_PORT: "19096" })).toThrow(/must differ/);
  });
});

describe("a secured node's server.properties", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "secured-props-"));
  const config = loadConfig({
    A2A_LEDGER_KAFKA_SECURITY: "secured",
    A2A_LEDGER_KAFKA_PORT: "25000",
    A2A_LEDGER_KAFKA_CONTROLLER_PORT: "25001",
    A2A_LEDGER_KAFKA_SSL_PORT: "25010",
    A2A_LEDGER_REGISTRY_PORT: "25020",
    A2A_LEDGER_DATA_DIR: dataDir,
  });
  const props = serverProperties(config);

  it("listens with SASL_SSL and mTLS only, on loopback, and talks between brokers and to the controller over mTLS", () => {
    expect(setting(props, "listeners")).toBe(
      "SASL_SSL://127.0.0.1:25000,SSL://127.0.0.1:25010,CONTROLLER://127.0.0.1:25001",
    );
    expect(setting(props, "listener.security.protocol.map")).toBe("SASL_SSL:SASL_SSL,SSL:SSL,CONTROLLER:SSL");
    expect(setting(props, "inter.broker.listener.name")).toBe("SSL");
    expect(setting(props, "listener.name.ssl.ssl.client.auth")).toBe("required");
    expect(setting(props, "listener.name.controller.ssl.client.auth")).toBe("required");
    expect(props).not.toMatch(/PLAINTEXT:\/\//);
  });

  it("allows nothing without an ACL, with the brokers' certificate and admin as the only super users", () => {
    expect(setting(props, "authorizer.class.name")).toBe("org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    expect(setting(props, "allow.everyone.if.no.acl.found")).toBe("false");
    expect(setting(props, "super.users")).toBe("User:broker;User:admin");
    expect(setting(props, "sasl.enabled.mechanisms")).toBe("SCRAM-SHA-256,SCRAM-SHA-512,PLAIN");
  });

  it("keeps its certificates and passwords private in the data directory", () => {
    const secrets = join(dataDir, "secrets");
    expect(statSync(secrets).mode & 0o077).toBe(0);
    for (const file of ["ca.key", "server.key", "ingest.key", "passwords.json"])
      expect(statSync(join(secrets, file)).mode & 0o077, file).toBe(0);
    expect(readFileSync(join(secrets, "server.pem"), "utf8")).toContain("BEGIN CERTIFICATE");
  });
});

describe("a new cluster id", () => {
  it("never starts with '-', which the storage tool would take for an option", () => {
    // 0xf8 is 111110 in its first six bits: base64url's 62nd letter, "-".
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0xfb), Buffer.alloc(16, 0x04)];
    const seen: string[] = [];
    const id = newClusterId(() => {
      const next = draws.shift();
      if (next === undefined) throw new Error("drew more than three times");
      seen.push(next.toString("base64url"));
      return next;
    });
    expect(seen.map((s) => s[0])).toEqual(["-", "-", "B"]);
    expect(id).toBe(Buffer.alloc(16, 0x04).toString("base64url"));
    expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  });
});
