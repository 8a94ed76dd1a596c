/**
 * The alerting rules are valid Prometheus rules, behave as their unit tests say (`promtool test rules`,
 * Debian's prometheus package: scripts/setup-promtool.sh), and read only metrics the services export:
 * every metric name in an expression is registered by a service's own metrics module.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createMetrics as dispatcherMetrics } from "../../services/dispatcher/src/metrics.ts";
import { createMetrics as projectorMetrics } from "../../services/projector/src/metrics.ts";
import { createMetrics as proxyMetrics } from "../../services/proxy/src/metrics.ts";
import { ReconcilerMetrics } from "../../services/reconciler/src/metrics.ts";

const run = promisify(execFile);
const here = fileURLToPath(new URL(".", import.meta.url));
const rulesFile = "a2a-ledger.rules.yml";

async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run("promtool", args, { cwd: here, timeout: 60_000 });
    return stdout + stderr;
  } catch (e) {
    const err = e as { code?: string | number; stdout?: string; stderr?: string };
    if (err.code === "ENOENT")
      throw new Error("promtool is not installed: run scripts/setup-promtool.sh (Debian's prometheus package)");
    throw new Error(`promtool ${args.join(" ")} failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`);
  }
}

/** Metric names in the rules' expressions (series selectors, not functions, labels or keywords). */
function metricsInRules(): string[] {
  const exprs = [...readFileSync(new URL(rulesFile, import.meta.url), "utf8").matchAll(/^\s+expr: (.+)$/gm)].map(
    (m) => m[1] as string,
  );
  return [
    ...new Set(
      exprs.flatMap((e) => [...e.matchAll(/\b(a2a_[a-z0-9_]+|ingest_[a-z0-9_]+)\b/g)].map((m) => m[1] as string)),
    ),
  ].sort();
}

async function exported(): Promise<Set<string>> {
  const registries = [
    proxyMetrics().registry,
    dispatcherMetrics().registry,
    projectorMetrics().registry,
    new ReconcilerMetrics().registry,
  ];
  const names = new Set<string>();
  for (const r of registries) for (const m of await r.getMetricsAsJSON()) names.add(m.name);
  return names;
}

describe("the Prometheus alerting rules", () => {
  it("are valid rules (promtool check rules)", async () => {
    expect(await promtool("check", "rules", rulesFile)).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("fire and stay silent as their unit tests say (promtool test rules)", async () => {
    expect(await promtool("test", "rules", "a2a-ledger.rules.test.yml")).toContain("SUCCESS");
  });

  it("read only metrics the services really export", async () => {
    const used = metricsInRules();
    expect(used.length).toBeGreaterThan(15);
    const have = await exported();
    expect(used.filter((name) => !have.has(name))).toEqual([]);
  });

  it("cover the operator's signals: old indeterminate tasks, blocked reconciliations, dead letters, lag of each consumer, the proxy's spool, the reconciler's correlation budget", () => {
    const alerts = [...readFileSync(new URL(rulesFile, import.meta.url), "utf8").matchAll(/- alert: (\S+)/g)].map(
      (m) => m[1],
    );
    expect(alerts).toEqual(
      expect.arrayContaining([
        "A2ALedgerIndeterminateTaskOld",
        "A2ALedgerReconciliationBlocked",
        "A2ALedgerDeadLettersGrowing",
        "A2ALedgerReconcilerLag",
        "A2ALedgerProjectorLag",
        "A2ALedgerDispatcherLag",
        "A2ALedgerProxySpoolFilling",
        "A2ALedgerReconcilerCorrelationBudget",
        "A2ALedgerReconcilerCorrelationBudgetReached",
      ]),
    );
  });
});
