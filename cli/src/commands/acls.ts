/**
 * `a2a-ledger acls [--service NAME] [--principal User:…] [--bootstrap-server HOST:PORT] [--command-config FILE]`:
 * the ACLs each process of the ledger needs on a secured cluster (least privilege, held in
 * @a2a-ledger/kafka acls.ts), printed as the `kafka-acls` commands an operator runs. Topic and group
 * names follow A2A_LEDGER_TOPIC_SUFFIX as the services do.
 */
import {
  aclNamesFor,
  defaultPrincipal,
  endpointsFromEnv,
  kafkaAclsCommands,
  ledgerServices,
  type LedgerService,
  serviceAcls,
} from "@a2a-ledger/kafka";
import type { Command } from "../command.ts";
import { exitCodes, UsageError } from "../io.ts";
import { topicsFromEnv } from "../kafka/cluster.ts";
import { parseOptions } from "../parse-options.ts";

const usage = `usage: a2a-ledger acls [--service ${ledgerServices.join("|")}] [--principal User:NAME] [--bootstrap-server HOST:PORT] [--command-config admin.properties]`;

export const command: Command = {
  name: "acls",
  summary: "print the kafka-acls commands that grant each service exactly what it needs",
  usage,
  async run(args, io) {
    const options = parseOptions(
      args,
      {
        service: { type: "string" },
        principal: { type: "string" },
        "bootstrap-server": { type: "string" },
        "command-config": { type: "string" },
      },
      usage,
    );
    const service = options.service;
    if (service !== undefined && !(ledgerServices as readonly string[]).includes(service))
      throw new UsageError(`unknown service ${JSON.stringify(service)}: one of ${ledgerServices.join(", ")}`);
    if (options.principal !== undefined && service === undefined)
      throw new UsageError(`--principal names one service's principal: give --service too\n${usage}`);
    if (options.principal !== undefined && !/^[A-Za-z][A-Za-z0-9]*:\S+$/.test(options.principal))
      throw new UsageError(
        `--principal ${JSON.stringify(options.principal)} is not a Kafka principal such as User:ingest`,
      );
    const suffix = process.env.A2A_LEDGER_TOPIC_SUFFIX?.trim() || undefined;
    const names = aclNamesFor(topicsFromEnv(), suffix);
    const target = {
      bootstrapServer: options["bootstrap-server"] ?? endpointsFromEnv().brokers,
      commandConfig: options["command-config"] ?? "admin.properties",
    };
    const lines: string[] = [];
    for (const name of (service === undefined ? ledgerServices : [service]) as LedgerService[]) {
      const principal = options.principal ?? defaultPrincipal(name);
      lines.push(
        `# --- ${name} (${principal}) ---`,
        ...kafkaAclsCommands(principal, serviceAcls(name, names), target),
        "",
      );
    }
    io.stdout(`${lines.join("\n")}`);
    return exitCodes.ok;
  },
};
