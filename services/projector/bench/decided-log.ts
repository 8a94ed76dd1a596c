/**
 * The benchmarks' input: the core's generated log (`generateLog`) run through the core's decider, as
 * the records the reconciler would write — each observation, then its decisions, the commands among
 * them and the capability snapshots — encoded with the ledger's Serde, in log order.
 */
import {
  applyCapabilityUpdates,
  CapabilityTable,
  createDecider,
  defaultRuleSet,
  parseObservationJson,
} from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import type { Serde } from "@a2a-ledger/schemas/serde";
import type { TopicRole } from "../src/inputs.ts";

export interface DecidedRecord {
  role: Exclude<TopicRole, "dlq">;
  key: string;
  value: Buffer;
}

export async function* decidedLog(observationCount: number, serde: Serde): AsyncGenerator<DecidedRecord> {
  const lines = generateLog(observationCount);
  const decider = createDecider(defaultRuleSet);
  const table = new CapabilityTable();
  const ctx = { capabilities: table, policy: { trustedVendors: [] } };
  const states = new Map<string, ReturnType<typeof decider.initialState>>();
  for (const [i, line] of lines.entries()) {
    const parsed = parseObservationJson(line);
    if (!parsed.ok) throw new Error(`line ${i + 1}: ${JSON.stringify(parsed.issues)}`);
    const o = parsed.observation;
    yield { role: "observations", key: o.correlationId, value: await serde.encodeValidated(o) };
    const result = decider.step(ctx, states.get(o.correlationId) ?? decider.initialState(), o);
    states.set(o.correlationId, result.state);
    applyCapabilityUpdates(table, result);
    for (const d of result.decisions) {
      const value = await serde.encodeValidated(d);
      yield { role: "decisions", key: d.correlationId, value };
      if (d.type === "RedispatchCommanded" || d.type === "ProbeRequested")
        yield { role: "commands", key: d.correlationId, value };
    }
    for (const s of result.capabilityUpdates)
      yield {
        role: "capabilities",
        key: s.workerId,
        value: await serde.encodeValidated({ type: "CapabilitySnapshot", ...s }),
      };
  }
}
