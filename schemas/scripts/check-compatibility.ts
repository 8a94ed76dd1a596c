/**
 * `npm run schemas:check`: fails when a schema in avro/ is not BACKWARD compatible with the latest
 * version the registry holds for its subject. `--avro-dir DIR` checks another source tree.
 * A development tool, not part of the library: it reads the registry's address and security from
 * this process's client configuration (@a2a-ledger/client-config, a devDependency; not the Kafka library).
 */
import { endpointsFromEnv, processClientConfig } from "@a2a-ledger/client-config";
import { checkCompatibility } from "../src/registry-admin.ts";
import { subjectOf } from "../src/subjects.ts";
import { avroRoot, readSources, resolveEvents } from "./avro-sources.ts";

export async function checkAll(registryUrl: string, avroDir = avroRoot) {
  const events = resolveEvents(readSources(avroDir));
  return Promise.all(
    events.map((e) =>
      checkCompatibility(registryUrl, subjectOf(e.name), JSON.stringify(e.schema), processClientConfig().registry),
    ),
  );
}

const dirFlag = process.argv.indexOf("--avro-dir");
const avroDir = dirFlag >= 0 ? process.argv[dirFlag + 1] : undefined;
if (dirFlag >= 0 && !avroDir) {
  console.error("--avro-dir needs a folder");
  process.exit(2);
}
const { registryUrl } = endpointsFromEnv();
try {
  const verdicts = await checkAll(registryUrl, avroDir ? `${avroDir.replace(/\/?$/, "/")}` : undefined);
  let failed = 0;
  for (const v of verdicts) {
    if (v.verdict === "incompatible") {
      failed++;
      console.log(`INCOMPATIBLE ${v.subject}\n  ${v.messages.join("\n  ")}`);
    } else {
      console.log(`${v.verdict === "new" ? "new         " : "compatible  "} ${v.subject}`);
    }
  }
  console.log(`${verdicts.length - failed} compatible or new, ${failed} incompatible (registry ${registryUrl})`);
  process.exit(failed > 0 ? 1 : 0);
} catch (error) {
  console.error(`schemas:check could not reach the registry at ${registryUrl}: ${(error as Error).message}`);
  process.exit(2);
}
