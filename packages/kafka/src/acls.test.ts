import { describe, expect, it } from "vitest";
import { aclEntries, aclNamesFor, defaultAclNames, kafkaAclsCommands, ledgerServices, serviceAcls } from "./acls.ts";
import { suffixedTopicNames, topicNames } from "./topics.ts";

const target = { bootstrapServer: "kafka-1.example.com:9094", commandConfig: "admin.properties" };

describe("the ledger's ACLs as code", () => {
  it("prints each rule as one kafka-acls --add command with the operations and the resource", () => {
    const lines = kafkaAclsCommands("User:reconciler", serviceAcls("reconciler"), target).filter(
      (l) => !l.startsWith("#"),
    );
    expect(lines).toContain(
      "kafka-acls.sh --bootstrap-server kafka-1.example.com:9094 --command-config admin.properties --add --allow-principal User:reconciler --operation Read --operation Describe --topic a2a.observations.v1",
    );
    expect(lines).toContain(
      "kafka-acls.sh --bootstrap-server kafka-1.example.com:9094 --command-config admin.properties --add --allow-principal User:reconciler --operation Read --group a2a-ledger-reconciler --resource-pattern-type prefixed",
    );
    expect(lines).toContain(
      "kafka-acls.sh --bootstrap-server kafka-1.example.com:9094 --command-config admin.properties --add --allow-principal User:reconciler --operation Write --operation Describe --transactional-id a2a-ledger-reconciler.a2a.observations.v1. --resource-pattern-type prefixed",
    );
  });

  it("quotes what a shell would split", () => {
    const [, line] = kafkaAclsCommands("User:CN=my service,O=Acme", serviceAcls("dispatcher"), {
      ...target,
      commandConfig: "my admin.properties",
    });
    expect(line).toContain("--allow-principal 'User:CN=my service,O=Acme'");
    expect(line).toContain("--command-config 'my admin.properties'");
  });

  it("gives each service only what it does: ingest writes one topic, the dispatcher reads one, nobody writes what it only reads", () => {
    expect(serviceAcls("ingest")).toEqual([
      expect.objectContaining({
        resource: { type: "topic", name: topicNames.observations, pattern: "literal" },
        operations: ["Write", "Describe"],
      }),
    ]);
    const dispatcher = serviceAcls("dispatcher");
    expect(dispatcher.map((r) => r.resource)).toEqual([
      { type: "topic", name: topicNames.commands, pattern: "literal" },
      { type: "group", name: "a2a-ledger-dispatcher", pattern: "literal" },
    ]);
    for (const service of ["projector", "dispatcher"] as const) {
      expect(
        serviceAcls(service).some((r) => r.operations.includes("Write")),
        service,
      ).toBe(false);
    }
    // The CLI writes one topic: a new version of the trust policy (policy set).
    expect(
      serviceAcls("cli")
        .filter((r) => r.operations.includes("Write"))
        .map((r) => r.resource),
    ).toEqual([{ type: "topic", name: topicNames.policy, pattern: "literal" }]);
    for (const service of ledgerServices)
      expect(
        serviceAcls(service).some((r) => r.resource.type === "cluster"),
        service,
      ).toBe(false);
  });

  it("follows a suffixed topic set and the groups the services then use", () => {
    const names = aclNamesFor(suffixedTopicNames("blue"), "blue");
    expect(names).toEqual({
      topics: suffixedTopicNames("blue"),
      reconcilerGroup: "a2a-ledger-reconciler",
      projectorGroup: "a2a-ledger-projector.blue",
      dispatcherGroup: "a2a-ledger-dispatcher.blue",
    });
    expect(serviceAcls("ingest", names)[0]?.resource).toEqual({
      type: "topic",
      name: "a2a.observations.v1.blue",
      pattern: "literal",
    });
    expect(aclNamesFor(topicNames)).toEqual(defaultAclNames);
  });

  it("becomes one admin API entry per operation", () => {
    const entries = aclEntries("User:ingest", serviceAcls("ingest"));
    expect(entries).toHaveLength(2);
    expect(
      entries.every(
        (e) => e.principal === "User:ingest" && e.host === "*" && e.resourceName === topicNames.observations,
      ),
    ).toBe(true);
  });
});
