/**
 * Inputs for view tests without Kafka: a log of observations run through the core's decider the way
 * the reconciler runs it, giving the records each topic would carry (observations, decisions,
 * commands, capability snapshots) with made-up but consistent coordinates.
 */
import { readFileSync } from "node:fs";
import {
  applyCapabilityUpdates,
  CapabilityTable,
  createDecider,
  defaultRuleSet,
  parseObservationJson,
  type PolicyConfig,
  type RuleSet,
} from "@a2a-ledger/core";
import { topicNames, type TopicNames } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput } from "../src/inputs.ts";

export const storyFile = new URL("../../../cli/examples/design-section-1.ndjson", import.meta.url);

export function parseLines(lines: readonly string[]): Observation[] {
  return lines
    .filter((l) => l.trim() !== "")
    .map((line, i) => {
      const result = parseObservationJson(line);
      if (!result.ok) throw new Error(`line ${i + 1}: ${JSON.stringify(result.issues)}`);
      return result.observation;
    });
}

export const story = (): Observation[] => parseLines(readFileSync(storyFile, "utf8").split("\n"));

export interface TopicInputs {
  topic: string;
  partition: number;
  inputs: ProjectorInput[];
}

/** Every record the ledger's topics would hold for `observations`, grouped per topic (partition 0 each, offsets from 0). */
export function inputsFor(
  observations: readonly Observation[],
  options: { topics?: TopicNames; policy?: PolicyConfig; timestamp?: number; ruleSet?: RuleSet } = {},
): TopicInputs[] {
  const topics = options.topics ?? topicNames;
  const decider = createDecider(options.ruleSet ?? defaultRuleSet);
  const table = new CapabilityTable();
  const ctx = { capabilities: table, policy: options.policy ?? { trustedVendors: [] } };
  const states = new Map<string, ReturnType<typeof decider.initialState>>();
  const out = new Map<string, ProjectorInput[]>();
  const push = (topic: string, make: (source: ProjectorInput["source"]) => ProjectorInput) => {
    const list = out.get(topic) ?? (out.set(topic, []).get(topic) as ProjectorInput[]);
    list.push(make({ topic, partition: 0, offset: list.length, timestamp: options.timestamp ?? 1_750_000_000_000 }));
  };
  for (const o of observations) {
    push(topics.observations, (source) => ({ kind: "observation", source, record: o }));
    const result = decider.step(ctx, states.get(o.correlationId) ?? decider.initialState(), o);
    states.set(o.correlationId, result.state);
    applyCapabilityUpdates(table, result);
    for (const d of result.decisions) {
      push(topics.decisions, (source) => ({ kind: "decision", source, record: d }));
      if (d.type === "RedispatchCommanded" || d.type === "ProbeRequested")
        push(topics.commands, (source) => ({ kind: "command", source, record: d }));
    }
    for (const s of result.capabilityUpdates)
      push(topics.capabilities, (source) => ({ kind: "snapshot", source, record: s }));
  }
  return [...out].map(([topic, inputs]) => ({ topic, partition: 0, inputs }));
}
