/**
 * `npm run docs:settings`: writes each service's settings table into its README (between
 * `<!-- settings -->` and `<!-- /settings -->`) from the service's declaration, src/settings.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { withSettingsBlock } from "@a2a-ledger/env";
import { dispatcherSettings } from "../services/dispatcher/src/settings.ts";
import { ingestSettings } from "../services/ingest/src/settings.ts";
import { projectorSettings } from "../services/projector/src/settings.ts";
import { proxySettings } from "../services/proxy/src/settings.ts";
import { reconcilerSettings } from "../services/reconciler/src/settings.ts";

const declared = {
  dispatcher: dispatcherSettings,
  ingest: ingestSettings,
  projector: projectorSettings,
  proxy: proxySettings,
  reconciler: reconcilerSettings,
};

for (const [service, settings] of Object.entries(declared)) {
  const readme = new URL(`../services/${service}/README.md`, import.meta.url);
  const before = readFileSync(readme, "utf8");
  const after = withSettingsBlock(before, settings.markdown());
  if (after !== before) writeFileSync(readme, after);
  console.log(`${service}: ${after === before ? "unchanged" : "written"}`);
}
