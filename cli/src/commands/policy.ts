/**
 * `a2a-ledger policy set --trusted-vendors a,b [--valid-from TIME] [--reprobe-after D] [--canary-outlives D]
 * [--reason TEXT] [--set-by WHO]` and
 * `a2a-ledger policy show [--json]`: the trust policy recorded on a2a.policy.v1. Every reader judges an
 * event by the version in force at its occurredAt (`policyAt`), so a change is a new version from a
 * time on, never an edit of the past.
 */
import { userInfo, hostname } from "node:os";
import { policyAt } from "@a2a-ledger/core";
import type { TrustPolicy } from "@a2a-ledger/schemas";
import type { Command } from "../command.ts";
import { exitCodes, type Io, UsageError } from "../io.ts";
import { type Cluster, clusterFromEnv } from "../kafka/cluster.ts";
import { readPolicyHistory, writePolicyVersion } from "../kafka/policy-topic.ts";
import { parseOptions } from "../parse-options.ts";
import {
  defaultValidFromMarginMs,
  minimumValidFromMarginMs,
  planPolicyChange,
  PolicyChangeError,
} from "../policy-change.ts";
import { asCliError } from "./replay.ts";

const usage = `usage: a2a-ledger policy set --trusted-vendors a,b [--valid-from TIME] [--reprobe-after D] [--canary-outlives D]
                         [--fallback SKILL=D[,SKILL=D…]|none] [--reason TEXT] [--set-by WHO]
       a2a-ledger policy show [--json]

  set    records a new version of the trust policy on a2a.policy.v1 (A2A_LEDGER_TOPIC_SUFFIX applies):
         the highest version plus one, trusting exactly the vendors listed ("" trusts none).
         --valid-from  when it comes into force (ISO-8601 with offset, or epoch ms); default now + ${defaultValidFromMarginMs / 1000} s,
                       never earlier than now + ${minimumValidFromMarginMs / 1000} s (events before it keep the version they were judged by)
         --reprobe-after    default/4: a card whose interrupted states were revoked is probed again on its first
                            fetch in each period this long after the revocation (default 1h)
         --canary-outlives  default/4: a parked canary re-observed in its state this long after it was parked and
                            after the revocation outlived a restart and earns the states back (default 24h)
                            Both take 1s to 365d (90m, 24h, 7d) or "default"; left out, the latest version's value.
         --fallback         default/4: a blocked task of SKILL restarts from scratch after waiting D (1s to 365d;
                            * for every skill); none: no fallback (the default); left out, the latest version's.
  show   every recorded version, and the one in force now`;

/** A duration as `policy set` takes it: the largest unit that divides it (`90m`, `24h`), or `default`. */
function durationText(ms: number | null): string {
  if (ms === null) return "default";
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

const line = (p: TrustPolicy, now: number, inForce: number) => {
  const mark = p.version === inForce ? "  (in force)" : p.validFrom > now ? "  (scheduled)" : "";
  const earnBack =
    p.reprobeAfterMs === null && p.canaryOutlivesMs === null
      ? ""
      : `\n    re-probe after ${durationText(p.reprobeAfterMs)}, canary outlives ${durationText(p.canaryOutlivesMs)}`;
  const fallbacks =
    p.fallbacks.length === 0
      ? ""
      : `\n    fallback: ${p.fallbacks.map((f) => `${f.skillId} restarts from scratch after ${durationText(f.afterMs)} blocked`).join(", ")}`;
  return `version ${p.version}  valid from ${p.validFrom === 0 ? "the epoch" : new Date(p.validFrom).toISOString()}  trusted vendors: ${p.trustedVendors.length === 0 ? "(none)" : p.trustedVendors.join(", ")}${mark}${earnBack}${fallbacks}\n    set ${new Date(p.setAt).toISOString()} by ${p.setBy}${p.reason === null ? "" : `: ${p.reason}`}\n`;
};

async function show(cluster: Cluster, json: boolean, io: Io): Promise<number> {
  const { versions, skipped } = await readPolicyHistory(cluster);
  const now = Date.now();
  const inForce = policyAt(versions, now).version;
  for (const s of skipped) io.stderr(`a2a-ledger policy: ${s.where} skipped: ${s.reason}\n`);
  const sorted = [...versions].sort((a, b) => a.version - b.version);
  if (json) io.stdout(`${JSON.stringify({ inForce, versions: sorted })}\n`);
  else if (sorted.length === 0)
    io.stdout(
      `no trust policy recorded on ${cluster.topics.policy}: version 0 (no vendor trusted) until a reconciler seeds version 1 from A2A_LEDGER_TRUSTED_VENDORS or policy set records one\n`,
    );
  else io.stdout(sorted.map((p) => line(p, now, inForce)).join(""));
  return exitCodes.ok;
}

async function set(
  cluster: Cluster,
  o: {
    "trusted-vendors"?: string;
    "valid-from"?: string;
    "reprobe-after"?: string;
    "canary-outlives"?: string;
    fallback?: string;
    reason?: string;
    "set-by"?: string;
  },
  io: Io,
): Promise<number> {
  if (o["trusted-vendors"] === undefined)
    throw new UsageError(`policy set needs --trusted-vendors (give "" to trust no vendor)\n${usage}`);
  const { versions } = await readPolicyHistory(cluster);
  let planned: TrustPolicy;
  try {
    planned = planPolicyChange(versions, {
      trustedVendors: o["trusted-vendors"],
      validFrom: o["valid-from"],
      reprobeAfter: o["reprobe-after"],
      canaryOutlives: o["canary-outlives"],
      fallbacks: o.fallback,
      reason: o.reason,
      setBy: o["set-by"] ?? `${userInfo().username}@${hostname()}`,
      now: Date.now(),
    });
  } catch (e) {
    if (e instanceof PolicyChangeError) throw new UsageError(e.message);
    throw e;
  }
  await writePolicyVersion(cluster, planned);
  // Another `policy set` at the same moment takes the same number: the later record wins (compaction).
  const after = (await readPolicyHistory(cluster)).versions.find((p) => p.version === planned.version);
  if (after === undefined || after.setAt !== planned.setAt || after.setBy !== planned.setBy) {
    io.stderr(
      `a2a-ledger policy: POLICY_CONCURRENT_SET: version ${planned.version} was written again by ${after?.setBy ?? "someone else"} at the same time; run policy show and set again\n`,
    );
    return exitCodes.checkFailed;
  }
  io.stdout(line(planned, Date.now(), -1));
  return exitCodes.ok;
}

export const command: Command = {
  name: "policy",
  summary: "record a new version of the trust policy, or show the recorded versions",
  usage,
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === undefined) throw new UsageError(usage);
    if (sub === "--help" || sub === "-h") {
      io.stdout(`${usage}\n`);
      return exitCodes.ok;
    }
    if (sub !== "set" && sub !== "show")
      throw new UsageError(`unknown policy command ${JSON.stringify(sub)}: set or show\n${usage}`);
    const o =
      sub === "set"
        ? parseOptions(
            rest,
            {
              "trusted-vendors": { type: "string" },
              "valid-from": { type: "string" },
              "reprobe-after": { type: "string" },
              "canary-outlives": { type: "string" },
              fallback: { type: "string" },
              reason: { type: "string" },
              "set-by": { type: "string" },
            },
            usage,
          )
        : parseOptions(rest, { json: { type: "boolean" } }, usage);
    const cluster = clusterFromEnv("a2a-ledger-policy");
    try {
      return sub === "set"
        ? await set(cluster, o as Parameters<typeof set>[1], io)
        : await show(cluster, (o as { json?: boolean }).json === true, io);
    } catch (e) {
      throw asCliError(e);
    }
  },
};
