/**
 * Least privilege as code (DESIGN §9): the ACLs each process of the ledger needs on a secured cluster
 * (`StandardAuthorizer`, `allow.everyone.if.no.acl.found=false`), each process as its own principal.
 * Printed as the `kafka-acls` commands an operator runs (`a2a-ledger acls`), and applied through the
 * admin API by the launcher's secured mode.
 *
 * No `IdempotentWrite` on the cluster: since Kafka 3.0 (KIP-679) an idempotent producer needs only
 * `Write` on a topic, and the brokers this project runs on are 4.1.
 */
import type { Admin } from "kafkajs";
import kafkajs from "kafkajs";
import { topicNames, type TopicNames } from "./topics.ts";

export type AclOperation = "Read" | "Write" | "Create" | "Describe" | "DescribeConfigs" | "IdempotentWrite";
export type AclResource =
  | { type: "topic" | "group" | "transactional-id"; name: string; pattern: "literal" | "prefixed" }
  | { type: "cluster" };

export interface AclRule {
  resource: AclResource;
  operations: AclOperation[];
  /** Why the service needs it, for the printed commands. */
  why: string;
}

export const ledgerServices = ["ingest", "reconciler", "projector", "dispatcher", "cli"] as const;
export type LedgerService = (typeof ledgerServices)[number];

/** Names a deployment chooses: its topic set (A2A_LEDGER_TOPIC_SUFFIX) and consumer groups. */
export interface AclNames {
  topics: TopicNames;
  reconcilerGroup: string;
  projectorGroup: string;
  dispatcherGroup: string;
}

export const defaultAclNames: AclNames = {
  topics: topicNames,
  reconcilerGroup: "a2a-ledger-reconciler",
  projectorGroup: "a2a-ledger-projector",
  dispatcherGroup: "a2a-ledger-dispatcher",
};

/** The names of a topic set with A2A_LEDGER_TOPIC_SUFFIX, and the groups the services then default to. */
export function aclNamesFor(topics: TopicNames, suffix?: string): AclNames {
  const withSuffix = (group: string) => (suffix === undefined ? group : `${group}.${suffix}`);
  return {
    topics,
    reconcilerGroup: defaultAclNames.reconcilerGroup,
    projectorGroup: withSuffix(defaultAclNames.projectorGroup),
    dispatcherGroup: withSuffix(defaultAclNames.dispatcherGroup),
  };
}

/** The principal a service runs as unless the operator says otherwise: `User:<service>`. */
export const defaultPrincipal = (service: LedgerService): string => `User:${service}`;

const topic = (name: string, operations: AclOperation[], why: string): AclRule => ({
  resource: { type: "topic", name, pattern: "literal" },
  operations,
  why,
});
const group = (name: string, pattern: "literal" | "prefixed", why: string): AclRule => ({
  resource: { type: "group", name, pattern },
  operations: ["Read"],
  why,
});

/** The ACLs of one service, as rules on resources. */
export function serviceAcls(service: LedgerService, names: AclNames = defaultAclNames): AclRule[] {
  const t = names.topics;
  const all = Object.values(t);
  switch (service) {
    case "ingest":
      return [topic(t.observations, ["Write", "Describe"], "produces the accepted observations (idempotent producer)")];
    case "reconciler":
      return [
        topic(t.observations, ["Read", "Describe"], "consumes the observations"),
        topic(t.changelog, ["Read", "Write", "Describe"], "writes and restores its state per correlation"),
        topic(t.capabilities, ["Read", "Write", "Describe"], "follows and writes the capability table"),
        topic(
          t.policy,
          ["Read", "Write", "Describe"],
          "follows the trust policy; seeds version 1 from A2A_LEDGER_TRUSTED_VENDORS when none is recorded",
        ),
        ...[t.decisions, t.commands, t.dlq, t.batches].map((name) =>
          topic(
            name,
            ["Write", "Describe"],
            "writes decisions, commands, dead letters and what each batch read in its transactions",
          ),
        ),
        group(
          names.reconcilerGroup,
          "prefixed",
          "its consumer group and the throwaway groups of its changelog and capability readers",
        ),
        {
          resource: {
            type: "transactional-id",
            name: `${names.reconcilerGroup}.${t.observations}.`,
            pattern: "prefixed",
          },
          operations: ["Write", "Describe"],
          why: "one transactional producer per input partition",
        },
      ];
    case "projector":
      return [
        ...[t.observations, t.decisions, t.commands, t.capabilities, t.dlq, t.policy].map((name) =>
          topic(
            name,
            ["Read", "Describe", "DescribeConfigs"],
            "consumes it into the views (and checks it is as code says)",
          ),
        ),
        ...[t.changelog, t.batches].map((name) =>
          topic(name, ["Describe", "DescribeConfigs"], "checks the topic is as code says"),
        ),
        group(names.projectorGroup, "prefixed", "its consumer group and the groups of rebuilds"),
      ];
    case "dispatcher":
      return [
        topic(t.commands, ["Read", "Describe"], "consumes the commands"),
        group(names.dispatcherGroup, "literal", "its consumer group"),
      ];
    case "cli":
      return [
        ...all.map((name) =>
          topic(
            name,
            ["Read", "Describe", "DescribeConfigs"],
            "replay --kafka, export and projector rebuild read the topics",
          ),
        ),
        topic(t.policy, ["Write"], "policy set records a new version of the trust policy"),
        group("a2a-ledger-replay", "prefixed", "the throwaway groups of replay and export"),
        group(names.projectorGroup, "prefixed", "projector rebuild runs the projector's consumer under this principal"),
      ];
  }
}

function resourceFlags(resource: AclResource): string[] {
  if (resource.type === "cluster") return ["--cluster"];
  const flag = resource.type === "topic" ? "--topic" : resource.type === "group" ? "--group" : "--transactional-id";
  return [flag, resource.name, ...(resource.pattern === "prefixed" ? ["--resource-pattern-type", "prefixed"] : [])];
}

const quote = (word: string): string =>
  /^[A-Za-z0-9._:/=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;

/** The `kafka-acls` commands that grant `rules` to `principal`, one a line, with the reason as a comment. */
export function kafkaAclsCommands(
  principal: string,
  rules: readonly AclRule[],
  options: { bootstrapServer: string; commandConfig: string; tool?: string },
): string[] {
  const tool = options.tool ?? "kafka-acls.sh";
  return rules.flatMap((rule) => [
    `# ${principal}: ${rule.why}`,
    [
      tool,
      "--bootstrap-server",
      options.bootstrapServer,
      "--command-config",
      options.commandConfig,
      "--add",
      "--allow-principal",
      principal,
      ...rule.operations.flatMap((o) => ["--operation", o]),
      ...resourceFlags(rule.resource),
    ]
      .map(quote)
      .join(" "),
  ]);
}

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;

const operationCodes: Record<AclOperation, kafkajs.AclOperationTypes> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Create: AclOperationTypes.CREATE,
  Describe: AclOperationTypes.DESCRIBE,
  DescribeConfigs: AclOperationTypes.DESCRIBE_CONFIGS,
  IdempotentWrite: AclOperationTypes.IDEMPOTENT_WRITE,
};

/** The admin API's entries for `rules` granted to `principal` from any host. */
export function aclEntries(principal: string, rules: readonly AclRule[]): kafkajs.AclEntry[] {
  return rules.flatMap((rule) =>
    rule.operations.map((operation) => {
      const r = rule.resource;
      return {
        resourceType:
          r.type === "cluster"
            ? AclResourceTypes.CLUSTER
            : r.type === "topic"
              ? AclResourceTypes.TOPIC
              : r.type === "group"
                ? AclResourceTypes.GROUP
                : AclResourceTypes.TRANSACTIONAL_ID,
        resourceName: r.type === "cluster" ? "kafka-cluster" : r.name,
        resourcePatternType:
          r.type !== "cluster" && r.pattern === "prefixed"
            ? ResourcePatternTypes.PREFIXED
            : ResourcePatternTypes.LITERAL,
        principal,
        host: "*",
        operation: operationCodes[operation],
        permissionType: AclPermissionTypes.ALLOW,
      };
    }),
  );
}

/** Grants `rules` to `principal` (creating an ACL that exists is a no-op for Kafka). */
export async function applyAcls(admin: Admin, principal: string, rules: readonly AclRule[]): Promise<number> {
  const entries = aclEntries(principal, rules);
  if (entries.length > 0) await admin.createAcls({ acl: entries });
  return entries.length;
}

/** Revokes `rules` from `principal`. */
export async function revokeAcls(admin: Admin, principal: string, rules: readonly AclRule[]): Promise<void> {
  const filters = aclEntries(principal, rules);
  if (filters.length > 0) await admin.deleteAcls({ filters });
}
