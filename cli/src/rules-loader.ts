/** --rules / --candidate: a shipped rule set by name, or a module (.ts/.js) exporting one. */
import { isAbsolute, resolve } from "node:path";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import { ruleModels, ruleSetByName, ruleSetNames, type RuleSet } from "@a2a-ledger/core";
import { UsageError } from "./io.ts";

function isRuleSet(value: unknown): value is RuleSet {
  const v = value as Partial<RuleSet> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.name === "string" &&
    typeof v.rulesVersion === "string" &&
    (ruleModels as readonly unknown[]).includes(v.model) &&
    Array.isArray(v.rules) &&
    v.rules.every(
      (r: unknown) => typeof r === "object" && r !== null && typeof (r as { apply?: unknown }).apply === "function",
    )
  );
}

export async function loadRuleSet(spec: string, cwd: string): Promise<RuleSet> {
  const named = ruleSetByName(spec);
  if (named !== undefined) return named;
  const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
  if (!existsSync(path)) {
    throw new UsageError(
      `no rule set named ${JSON.stringify(spec)} (shipped: ${ruleSetNames.join(", ")}) and no module at ${path}`,
    );
  }
  let mod: Record<string, unknown>;
  try {
    // A TypeScript module goes through tsx, also when the CLI itself runs compiled.
    mod = (
      /\.[cm]?ts$/.test(path)
        ? await tsImport(pathToFileURL(path).href, import.meta.url)
        : await import(pathToFileURL(path).href)
    ) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`cannot load the rules module ${spec}: ${(e as Error).message.split("\n")[0]}`);
  }
  const candidate = [mod["default"], mod["ruleSet"]].find(isRuleSet);
  if (candidate === undefined)
    throw new UsageError(
      `${spec} exports no rule set (a default or \`ruleSet\` export with name, rulesVersion, model and rules[{id, apply}] — spread a shipped rule set to build one)`,
    );
  return candidate;
}
