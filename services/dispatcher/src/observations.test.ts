import { describe, expect, it } from "vitest";
import { canaryMessageId, derivedId, probeCorrelationOf, redispatchMessageId } from "./observations.ts";

describe("ids derived from decisions", () => {
  it("are UUID-shaped and the same for the same decision, different for another", () => {
    expect(derivedId("a")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(redispatchMessageId("d-1")).toBe(redispatchMessageId("d-1"));
    expect(redispatchMessageId("d-1")).not.toBe(redispatchMessageId("d-2"));
    expect(canaryMessageId("d-1", "answer", 0)).not.toBe(canaryMessageId("d-1", "answer", 1));
    expect(probeCorrelationOf("W1")).toBe("probe-W1");
  });
});
