import { describe, expect, it } from "vitest";
import { metricSum, metricValue } from "./metrics-text.ts";

const text = [
  "# HELP a2a_proxy_requests_total Requests.",
  "# TYPE a2a_proxy_requests_total counter",
  'a2a_proxy_requests_total{method="SendMessage",status="200"} 3',
  'a2a_proxy_requests_total{method="GetTask",status="200"} 7',
  "a2a_proxy_requests_total_created 1700000000",
  "a2a_proxy_buffered 12",
].join("\n");

describe("metricValue", () => {
  it("reads the sample whose labels include the wanted ones", () => {
    expect(metricValue(text, "a2a_proxy_requests_total", { method: "GetTask" })).toBe(7);
    expect(metricValue(text, "a2a_proxy_requests_total", { method: "SendMessage", status: "200" })).toBe(3);
  });

  it("reads an unlabelled sample, and never a longer metric name that starts with the wanted one", () => {
    expect(metricValue(text, "a2a_proxy_buffered")).toBe(12);
    expect(metricValue(text, "a2a_proxy_requests_total_created")).toBe(1700000000);
    expect(metricValue("a2a_proxy_requests_total_created 5", "a2a_proxy_requests_total")).toBe(0);
  });

  it("is 0 when no sample matches", () => {
    expect(metricValue(text, "a2a_proxy_requests_total", { method: "CancelTask" })).toBe(0);
    expect(metricValue("", "anything")).toBe(0);
  });
});

describe("metricSum", () => {
  it("adds every sample whose labels include the wanted ones, and no longer metric name", () => {
    expect(metricSum(text, "a2a_proxy_requests_total")).toBe(10);
    expect(metricSum(text, "a2a_proxy_requests_total", { status: "200" })).toBe(10);
    expect(metricSum(text, "a2a_proxy_requests_total", { method: "GetTask" })).toBe(7);
    expect(metricSum(text, "a2a_proxy_requests_total", { method: "CancelTask" })).toBe(0);
  });
});
