/**
 * The DESIGN §1 story as observations: three workers, probes, a dispatch to an in-memory worker that
 * parks the task in input-required (v0.3 spelling) and loses it on restart.
 */
import type { Observation } from "@a2a-ledger/schemas";
import { cardHash } from "../src/card-hash.ts";
import { agentCard, events } from "./builders.ts";

export const acmeCard = agentCard({
  org: "Acme",
  states: ["submitted", "working", "input-required", "completed", "failed"],
  taskStore: "ephemeral",
  skills: [{ id: "summarize", outputModes: ["text/plain"] }],
});
export const betaCard = agentCard({
  org: "Beta",
  states: ["submitted", "working", "completed", "failed"],
  skills: [{ id: "summarize", outputModes: ["text/plain", "text/markdown"] }],
});
export const gammaCard = agentCard({
  org: "Gamma",
  states: [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
  ],
  taskStore: "durable",
  skills: [{ id: "summarize", outputModes: ["text/plain"] }],
});

export function designSection1(options: { withGamma?: boolean } = {}) {
  const e = events("s1-");
  const withGamma = options.withGamma ?? true;
  const cards: Observation[] = [
    e.card("w-acme", acmeCard, { at: 1_000, maxAge: 3600 }),
    e.card("w-beta", betaCard, { at: 1_001, maxAge: 3600 }),
    ...(withGamma ? [e.card("w-gamma", gammaCard, { at: 1_002, maxAge: 3600 })] : []),
  ];
  const probes: Observation[] = [
    e.probe("w-acme", cardHash(acmeCard), {
      at: 2_000,
      states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
      modes: ["text/plain"],
    }),
    e.probe("w-beta", cardHash(betaCard), {
      at: 2_001,
      states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      modes: ["text/plain"],
    }),
    ...(withGamma
      ? [
          e.probe("w-gamma", cardHash(gammaCard), {
            at: 2_002,
            states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
            modes: ["text/plain"],
            durable: true,
          }),
        ]
      : []),
  ];
  const corr = "task-42";
  const firstAttempt: Observation[] = [
    e.dispatch(corr, "w-acme", {
      at: 10_000,
      accepted: ["text/plain", "text/markdown"],
      cardHash: cardHash(acmeCard),
      cardFetchedAt: 1_000,
    }),
    e.state(corr, "w-acme", "acme-t1", "submitted", { at: 10_010, via: "send-response" }),
    e.state(corr, "w-acme", "acme-t1", "working", { at: 10_020, observer: "proxy", via: "stream" }),
    e.artifact(corr, "w-acme", "acme-t1", { at: 10_030, mediaTypes: ["text/plain"], observer: "proxy" }),
    e.state(corr, "w-acme", "acme-t1", "input-required", { at: 10_040, observer: "proxy", via: "stream" }),
  ];
  const lost = e.notFound(corr, "w-acme", "acme-t1", { at: 20_000 });
  const secondAttempt: Observation[] = [
    e.dispatch(corr, "w-gamma", {
      at: 21_000,
      accepted: ["text/plain", "text/markdown"],
      attempt: 2,
      messageId: "task-42-m2",
      observer: "dispatcher",
    }),
    e.state(corr, "w-gamma", "gamma-t9", "TASK_STATE_WORKING", { at: 21_010, observer: "dispatcher", via: "stream" }),
    e.artifact(corr, "w-gamma", "gamma-t9", { at: 21_020, mediaTypes: ["text/markdown"], observer: "dispatcher" }),
    e.state(corr, "w-gamma", "gamma-t9", "TASK_STATE_COMPLETED", { at: 21_030, observer: "dispatcher", via: "stream" }),
  ];
  return { corr, cards, probes, firstAttempt, lost, secondAttempt, e };
}
