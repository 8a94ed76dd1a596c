/**
 * The trust policy is data: a live reconciler (its own process) judges a history in two halves with a
 * `policy set` between them; `replay --kafka --baseline recorded` reproduces both halves, whatever
 * A2A_LEDGER_TRUSTED_VENDORS the replay runs with, and each half's decisions name their version.
 */
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import type { Admin } from "@a2a-ledger/kafka";
import type { Decision } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  committedDecisions,
  createStack,
  deleteStack,
  kafka,
  produce,
  serde,
  type Stack,
  startReconciler,
  waitForReconciler,
} from "../../test/ledger-stack.ts";
import { run } from "../../test/run.ts";
import type { ReplaySummary } from "../replay/replay-report.ts";

const lifecycle = ["submitted", "working", "input-required", "completed", "failed"];
// A durable store claimed by Acme: trusted only once the policy lists Acme.
const acme = agentCard({ org: "Acme", states: lifecycle, taskStore: "durable" });
const e = events("policy-");
let admin: Admin;
let stack: Stack;
let reconcilerOutput: () => string;
let validFrom: number;
let recorded: Decision[] = [];
const savedEnv = { ...process.env };

const summaryOf = (stdout: string) =>
  (JSON.parse(stdout.trim().split("\n").at(-1) as string) as { summary: ReplaySummary }).summary;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  stack = await createStack(admin, "cli-policy");
  process.env.A2A_LEDGER_TOPIC_SUFFIX = stack.suffix;
  // The reconciler's variable seeds version 1 (nobody trusted) on the empty policy topic.
  ({ output: reconcilerOutput } = await startReconciler(stack, { A2A_LEDGER_TRUSTED_VENDORS: "" }));

  const t0 = Date.now() - 120_000;
  // The card lands before the task it governs: they sit on different partitions, and the order in which
  // the reconciler reads two partitions is not what this test is about.
  // Two workers of Acme: a loss under a durable claim is evidence against that card (default/4), so each
  // half loses its task on its own worker, judged by its own policy version and nothing else.
  await produce(stack.topics.observations, [e.card("w1", acme, { at: t0 }), e.card("w2", acme, { at: t0 })]);
  await waitForReconciler(admin, stack);
  await produce(stack.topics.observations, [
    e.dispatch("before", "w1", { at: t0 + 1_000 }),
    e.state("before", "w1", "task-1", "working", { at: t0 + 2_000 }),
    e.notFound("before", "w1", "task-1", { at: t0 + 3_000 }),
  ]);
  await waitForReconciler(admin, stack);

  const set = await run([
    "policy",
    "set",
    "--trusted-vendors",
    "Acme",
    "--valid-from",
    String(Date.now() + 20_000),
    "--reason",
    "Acme's store is durable",
  ]);
  expect(set.stderr).toBe("");
  expect(set.code).toBe(0);
  const shown = await run(["policy", "show", "--json"]);
  const versions = (
    JSON.parse(shown.stdout) as { versions: { version: number; validFrom: number; trustedVendors: string[] }[] }
  ).versions;
  expect(versions.map((v) => [v.version, v.trustedVendors])).toEqual([
    [1, []],
    [2, ["Acme"]],
  ]);
  validFrom = versions[1]!.validFrom;

  // The second half happens after the change (its occurredAt at or after validFrom).
  await produce(stack.topics.observations, [
    e.dispatch("after", "w2", { at: validFrom }),
    e.state("after", "w2", "task-2", "working", { at: validFrom + 1_000 }),
    e.notFound("after", "w2", "task-2", { at: validFrom + 2_000 }),
  ]);
  await waitForReconciler(admin, stack);
  recorded = await committedDecisions(admin, stack);
}, 400_000);

afterAll(async () => {
  process.env = { ...savedEnv };
  if (stack) await deleteStack(admin, stack);
  await admin?.disconnect();
});

describe("a history across a change of the trust policy", () => {
  it("the reconciler seeded version 1 from its variable and judged each half by its own version", () => {
    expect(reconcilerOutput()).toContain("seeded version 1 from A2A_LEDGER_TRUSTED_VENDORS");
    const of = (corr: string) => recorded.filter((d) => d.correlationId === corr).map((d) => [d.type, d.policyVersion]);
    // Under version 1 (nobody trusted) the loss is indeterminate; under version 2 (Acme trusted) it fails.
    // Either way, a loss under a card claiming a durable store is evidence against the claim (default/4).
    expect(of("before")).toEqual([
      ["ContractViolation", 1],
      ["CapabilitiesVerified", 1],
      ["TaskIndeterminate", 1],
      ["ReconciliationBlocked", 1],
    ]);
    expect(of("after")).toEqual([
      ["ContractViolation", 2],
      ["CapabilitiesVerified", 2],
      ["TaskFailed", 2],
    ]);
    expect(of("probe-w1")).toEqual([["ProbeRequested", 1]]);
    expect(of("probe-w2")).toEqual([["ProbeRequested", 1]]);
  });

  it("replays from Kafka to an empty diff against the recorded decisions, whatever A2A_LEDGER_TRUSTED_VENDORS says", async () => {
    for (const vendors of ["", "Acme", "Other"]) {
      process.env.A2A_LEDGER_TRUSTED_VENDORS = vendors;
      const { code, stdout, stderr } = await run([
        "replay",
        "--kafka",
        "--baseline",
        "recorded",
        "--json",
        "--fail-on-diff",
      ]);
      expect({ vendors, code, stderr }).toEqual({ vendors, code: 0, stderr: "" });
      expect(summaryOf(stdout)).toMatchObject({ determinism: { reproduced: true }, correlationsChanged: 0 });
    }
  });

  it("tells the difference when a fixed vendor list replaces the recorded policy (a what-if)", async () => {
    const { code, stdout } = await run([
      "replay",
      "--kafka",
      "--baseline",
      "recorded",
      "--trusted-vendors",
      "",
      "--json",
      "--fail-on-diff",
    ]);
    expect(code).toBe(1);
    const changed = stdout
      .trim()
      .split("\n")
      .slice(0, -1)
      .map((l) => JSON.parse(l) as { correlationId: string });
    // Every correlation decided under a recorded version: the what-if stamps none.
    expect(changed.map((c) => c.correlationId).sort()).toEqual(["after", "before", "probe-w1", "probe-w2"]);
  });

  it("refuses a validFrom in the past with a stable code and records nothing", async () => {
    const { code, stderr } = await run([
      "policy",
      "set",
      "--trusted-vendors",
      "Other",
      "--valid-from",
      String(Date.now() - 1_000),
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain("POLICY_VALID_FROM_TOO_EARLY");
    const shown = JSON.parse((await run(["policy", "show", "--json"])).stdout) as { versions: unknown[] };
    expect(shown.versions).toHaveLength(2);
  });
});
