/**
 * Workers: the card history with field-level diffs, advertised vs verified per skill (states, output
 * modes, durability), probes and parked canaries, and whether the ledger trusts or verifies the
 * worker, and why. The trust decision uses the same policy as the reconciler (`policyOf` with the
 * trust policy version in force now, `policyAt` over the versions recorded on a2a.policy.v1) on the
 * newest capability snapshot, and names that version; a snapshot with durable = false means verify
 * whatever the vendor list says: trust is revoked by evidence.
 */
import {
  clientViolationKinds,
  diffCards,
  isPolicyHistory,
  type PolicyConfig,
  policyAt,
  type PolicySource,
  policyOf,
} from "@a2a-ledger/core";
import type { CapabilitySnapshot } from "@a2a-ledger/schemas";
import type { Cursors } from "../cursor.ts";
import type { Tables } from "../store/schema.ts";
import type { Reader } from "../store/store.ts";
import { eventView, iso } from "./lineage.ts";
import { refusalsOfWorker } from "./refusals.ts";
import { cardCodec, eventCodec, probeCodec, violationCodec, type WorkerRow, workerCodec } from "./rows.ts";
import { type LostCanary, type LostTask, probed, type VerifiedCardView, verifiedCardView } from "./verified-card.ts";

export interface TrustVerdict {
  policy: "trust" | "verify";
  /** The trust policy version judged by (null: a fixed vendor list, not a recorded policy). */
  policyVersion: number | null;
  reasons: string[];
}

/** The vendor list in force at `now`, and its version: the recorded one, or the fixed list given. */
export function policyInForce(source: PolicySource, now: number): { config: PolicyConfig; version: number | null } {
  if (!isPolicyHistory(source)) return { config: source, version: null };
  const p = policyAt(source.versions, now);
  return { config: p, version: p.version };
}

export function trustOf(
  source: PolicySource,
  snapshot: CapabilitySnapshot | null,
  now: number = Date.now(),
): TrustVerdict {
  const { config, version: policyVersion } = policyInForce(source, now);
  if (snapshot === null)
    return {
      policy: "verify",
      policyVersion,
      reasons: ["no capability snapshot yet: the reconciler has not seen a card of this worker"],
    };
  if (snapshot.durable === false) {
    return {
      policy: "verify",
      policyVersion,
      reasons: [
        "trust revoked by evidence: a probe or a lost parked canary showed that tasks do not survive (durable = false)",
      ],
    };
  }
  const policy = policyOf(config, snapshot);
  if (policy === "trust")
    return {
      policy,
      policyVersion,
      reasons: [`vendor ${JSON.stringify(snapshot.vendor)} is trusted and the card claims a durable task store`],
    };
  const reasons: string[] = [];
  if (snapshot.vendor === null) reasons.push("the card names no provider.organization");
  else if (!config.trustedVendors.includes(snapshot.vendor))
    reasons.push(
      `vendor ${JSON.stringify(snapshot.vendor)} is not a trusted vendor (${policyVersion === null ? "the vendor list given" : `trust policy version ${policyVersion}`})`,
    );
  if (snapshot.taskStore !== "durable")
    reasons.push(`the card claims taskStore ${JSON.stringify(snapshot.taskStore)}, not durable`);
  return { policy, policyVersion, reasons };
}

const snapshotOf = (w: WorkerRow): CapabilitySnapshot | null =>
  w.snapshot === null ? null : (JSON.parse(w.snapshot) as CapabilitySnapshot);

/**
 * Advertised vs verified, one row per skill the card names or a probe verified. A verified snapshot
 * without per-skill entries (written by rules that verified per card) verifies every skill alike.
 */
export function skillComparison(s: CapabilitySnapshot | null) {
  if (s === null) return [];
  const ids = [
    ...new Set([...s.advertisedOutputModes.map((m) => m.skillId), ...s.verifiedSkills.map((v) => v.skillId)]),
  ];
  const perCard = s.verified && s.verifiedSkills.length === 0;
  return ids.map((skillId) => {
    const advertised = s.advertisedOutputModes.find((m) => m.skillId === skillId);
    const verified = perCard
      ? { states: s.verifiedStates, outputModes: s.verifiedOutputModes }
      : s.verifiedSkills.find((v) => v.skillId === skillId);
    return {
      skillId,
      advertised:
        advertised === undefined
          ? null
          : {
              states: s.advertisedStates,
              outputModes: advertised.outputModes.length > 0 ? advertised.outputModes : s.defaultOutputModes,
              taskStore: s.taskStore,
            },
      verified:
        verified === undefined
          ? null
          : {
              states: verified.states,
              outputModes: verified.outputModes,
              durable: s.durable,
              scope: perCard ? "card" : "skill",
            },
      statesNotVerified:
        verified === undefined ? s.advertisedStates : s.advertisedStates.filter((x) => !verified.states.includes(x)),
      outputModesNotVerified:
        advertised === undefined
          ? []
          : verified === undefined
            ? advertised.outputModes
            : advertised.outputModes.filter((m) => !verified.outputModes.includes(m)),
    };
  });
}

function workerSummary(w: WorkerRow, config: PolicySource, violations: number) {
  const snapshot = snapshotOf(w);
  return {
    workerId: w.workerId,
    vendor: w.vendor,
    cardHash: w.cardHash,
    cardUrl: w.cardUrl,
    taskStore: w.taskStore,
    verified: snapshot?.verified ?? false,
    durable: snapshot?.durable ?? null,
    // Snapshots stored before signatures were recorded have none: not checked.
    signature: snapshot?.signature ?? null,
    firstSeen: iso(w.firstSeen),
    lastSeen: iso(w.lastSeen),
    cards: w.cardCount,
    probes: w.probeCount,
    violations,
    trust: trustOf(config, snapshot),
  };
}

/** Kinds that record a client's mistake seen at the worker (CLIENT_UNKNOWN_TASK): not the worker's violations, so its page leaves them out. */
const notTheWorkers = JSON.stringify(clientViolationKinds);

async function violationCounts(r: Reader, t: Tables, workerIds: readonly string[]): Promise<Map<string, number>> {
  if (workerIds.length === 0) return new Map();
  const rows = await r.all(
    `SELECT worker_id, COUNT(*) AS n FROM ${t.violation} WHERE worker_id${r.inList} AND NOT (kind${r.inList}) GROUP BY worker_id`,
    [JSON.stringify(workerIds), notTheWorkers],
  );
  return new Map(rows.map((row) => [String(row.worker_id), Number(row.n)]));
}

export async function workerList(
  r: Reader,
  t: Tables,
  cursors: Cursors,
  config: PolicySource,
  page: { limit: number; cursor?: string | undefined },
) {
  const after =
    page.cursor === undefined ? undefined : (cursors.decode("workers", page.cursor, ["string"])[0] as string);
  const rows = (
    await r.all(
      `SELECT * FROM ${t.worker}${after === undefined ? "" : " WHERE worker_id > ?"} ORDER BY worker_id LIMIT ?`,
      after === undefined ? [page.limit + 1] : [after, page.limit + 1],
    )
  ).map((row) => workerCodec.decode(row));
  const shown = rows.slice(0, page.limit);
  const counts = await violationCounts(
    r,
    t,
    shown.map((w) => w.workerId),
  );
  const last = shown[shown.length - 1];
  return {
    items: shown.map((w) => workerSummary(w, config, counts.get(w.workerId) ?? 0)),
    nextCursor: rows.length > page.limit && last !== undefined ? cursors.encode("workers", [last.workerId]) : null,
  };
}

const detailLimit = 200;

export async function workerDetail(r: Reader, t: Tables, config: PolicySource, workerId: string) {
  const rows = await r.all(`SELECT * FROM ${t.worker} WHERE worker_id = ?`, [workerId]);
  if (rows[0] === undefined) return undefined;
  const worker = workerCodec.decode(rows[0]);
  const snapshot = snapshotOf(worker);
  const cards = (
    await r.all(`SELECT * FROM ${t.card} WHERE worker_id = ? ORDER BY first_seen, first_event_id`, [workerId])
  ).map((row) => cardCodec.decode(row));
  const probes = (
    await r.all(`SELECT * FROM ${t.probe} WHERE worker_id = ? ORDER BY occurred_at DESC, event_id LIMIT ?`, [
      workerId,
      detailLimit,
    ])
  ).map((row) => probeCodec.decode(row));
  const violations = (
    await r.all(
      `SELECT * FROM ${t.violation} WHERE worker_id = ? AND NOT (kind${r.inList}) ORDER BY decided_at DESC, decision_id DESC LIMIT ?`,
      [workerId, notTheWorkers, detailLimit],
    )
  ).map((row) => violationCodec.decode(row));
  const decisions = (
    await r.all(
      `SELECT * FROM ${t.event} WHERE worker_id = ? AND kind = 'decision' AND type IN ('CardChanged', 'CapabilitiesVerified', 'ProbeRequested') ORDER BY occurred_at DESC, id LIMIT ?`,
      [workerId, detailLimit],
    )
  ).map((row) => eventCodec.decode(row));
  const parked = probes.flatMap((p) =>
    p.parkedCanaries.map((c) => ({ ...c, probeEventId: p.eventId, parkedAt: p.occurredAt })),
  );
  const lost = new Map<string, { at: number; eventId: string | null }>();
  if (parked.length > 0) {
    const lostRows = await r.all(
      `SELECT server_task_id, lost_at, lost_event_id FROM ${t.serverTask} WHERE worker_id = ? AND server_task_id${r.inList} AND lost_at IS NOT NULL`,
      [workerId, JSON.stringify(parked.map((c) => c.serverTaskId))],
    );
    for (const row of lostRows)
      lost.set(String(row.server_task_id), {
        at: Number(row.lost_at),
        eventId: row.lost_event_id === null ? null : String(row.lost_event_id),
      });
  }
  const counts = await violationCounts(r, t, [workerId]);
  let previous: unknown;
  const history = cards.map((c, i) => {
    const parsed = JSON.parse(c.card) as unknown;
    const changes = i === 0 ? [] : diffCards(previous, parsed);
    previous = parsed;
    return {
      cardHash: c.cardHash,
      firstSeen: iso(c.firstSeen),
      lastSeen: iso(c.lastSeen),
      fetches: c.fetches,
      cardUrl: c.cardUrl,
      etag: c.etag,
      cacheMaxAgeSeconds: c.maxAgeSeconds,
      eventId: c.firstEventId,
      card: parsed,
      changes,
    };
  });
  return {
    ...workerSummary(worker, config, counts.get(workerId) ?? 0),
    snapshot: snapshot === null ? null : { ...snapshot, card: undefined, validFrom: iso(snapshot.validFrom) },
    skills: skillComparison(snapshot),
    cardHistory: history,
    probes: probes.map((p) => ({ ...p, occurredAt: iso(p.occurredAt) })),
    parkedCanaries: parked.map((c) => {
      const l = lost.get(c.serverTaskId);
      return {
        serverTaskId: c.serverTaskId,
        state: c.state,
        parkedAt: iso(c.parkedAt),
        probeEventId: c.probeEventId,
        lostAt: iso(l?.at ?? null),
        lostEventId: l?.eventId ?? null,
      };
    }),
    violationsRecent: violations.map((v) => ({ ...v, decidedAt: iso(v.decidedAt) })),
    decisions: decisions.map(eventView),
    refusedEmissions: await refusalsOfWorker(r, t, workerId),
  };
}

/** GET /v1/workers/:id/verified-card: undefined for an unknown worker, "unprobed" when V holds nothing for its card in force. */
export async function workerVerifiedCard(
  r: Reader,
  t: Tables,
  workerId: string,
): Promise<VerifiedCardView | "unprobed" | undefined> {
  const rows = await r.all(`SELECT * FROM ${t.worker} WHERE worker_id = ?`, [workerId]);
  if (rows[0] === undefined) return undefined;
  const snapshot = snapshotOf(workerCodec.decode(rows[0]));
  if (snapshot === null || !probed(snapshot)) return "unprobed";
  let text = snapshot.card;
  if (text === null) {
    const card = (
      await r.all(`SELECT * FROM ${t.card} WHERE worker_id = ? AND card_hash = ?`, [workerId, snapshot.cardHash])
    ).map((row) => cardCodec.decode(row))[0];
    text = card?.card ?? null;
  }
  if (text === null) return "unprobed";
  const probes = (
    await r.all(
      `SELECT * FROM ${t.probe} WHERE worker_id = ? AND card_hash = ? ORDER BY occurred_at DESC, event_id LIMIT ?`,
      [workerId, snapshot.cardHash, detailLimit],
    )
  ).map((row) => probeCodec.decode(row));
  const parked = probes.flatMap((p) => p.parkedCanaries.map((c) => ({ ...c, probeEventId: p.eventId })));
  const lost: LostCanary[] = [];
  if (parked.length > 0) {
    const lostRows = await r.all(
      `SELECT server_task_id, lost_at, lost_event_id FROM ${t.serverTask} WHERE worker_id = ? AND server_task_id${r.inList} AND lost_at IS NOT NULL`,
      [workerId, JSON.stringify(parked.map((c) => c.serverTaskId))],
    );
    for (const row of lostRows) {
      const c = parked.find((p) => p.serverTaskId === String(row.server_task_id));
      if (c !== undefined)
        lost.push({
          serverTaskId: c.serverTaskId,
          state: c.state,
          probeEventId: c.probeEventId,
          lostAt: Number(row.lost_at),
          lostEventId: row.lost_event_id === null ? null : String(row.lost_event_id),
        });
    }
  }
  return verifiedCardView(
    snapshot,
    JSON.parse(text) as unknown,
    probes,
    lost,
    await lostTasksOfCard(r, t, workerId, snapshot.cardHash),
  );
}

/**
 * The real tasks whose loss revoked the interrupted states of the card: default/3's R9 for tasks
 * decides a CapabilitiesVerified (durable false) for the card, caused by the TaskNotFound and the
 * task's last state; a lost canary's revocation is caused by its probe alone, and default/2 decides
 * none, so only what the rules took as evidence is listed.
 */
async function lostTasksOfCard(r: Reader, t: Tables, workerId: string, cardHash: string): Promise<LostTask[]> {
  const revocations = (
    await r.all(
      `SELECT * FROM ${t.event} WHERE worker_id = ? AND kind = 'decision' AND type = 'CapabilitiesVerified' ORDER BY occurred_at, id LIMIT ?`,
      [workerId, detailLimit],
    )
  )
    .map((row) => eventCodec.decode(row))
    .flatMap((e) => {
      const d = JSON.parse(e.body) as {
        decisionId?: unknown;
        cardHash?: unknown;
        durable?: unknown;
        causeEventIds?: unknown;
      };
      const causes = Array.isArray(d.causeEventIds)
        ? d.causeEventIds.filter((c): c is string => typeof c === "string")
        : [];
      return d.cardHash === cardHash && d.durable === false && causes.length === 2 && typeof d.decisionId === "string"
        ? [
            {
              decisionId: d.decisionId,
              correlationId: e.correlationId,
              lostEventId: causes[0] as string,
              lastSeenEventId: causes[1] as string,
            },
          ]
        : [];
    });
  const found: LostTask[] = [];
  for (const v of revocations) {
    const rows = (
      await r.all(
        `SELECT * FROM ${t.event} WHERE correlation_id = ? AND event_id${r.inList} AND kind = 'observation'`,
        [v.correlationId, JSON.stringify([v.lostEventId, v.lastSeenEventId])],
      )
    ).map((row) => eventCodec.decode(row));
    const notFound = rows.find((e) => e.eventId === v.lostEventId && e.type === "TaskNotFoundObserved");
    const seen = rows.find((e) => e.eventId === v.lastSeenEventId && e.type === "TaskStateObserved");
    if (notFound === undefined || seen === undefined || notFound.serverTaskId === null || seen.state === null) continue;
    found.push({
      correlationId: v.correlationId,
      serverTaskId: notFound.serverTaskId,
      state: seen.state,
      lastSeenEventId: v.lastSeenEventId,
      lostAt: notFound.occurredAt,
      lostEventId: v.lostEventId,
      decisionId: v.decisionId,
    });
  }
  return found;
}
