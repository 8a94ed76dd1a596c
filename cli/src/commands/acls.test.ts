import { describe, expect, it } from "vitest";
import { run } from "../../test/run.ts";

describe("a2a-ledger acls", () => {
  it("prints every service's kafka-acls commands, and one service's under another principal", async () => {
    const all = await run([
      "acls",
      "--bootstrap-server",
      "kafka-1.example.com:9094",
      "--command-config",
      "admin.properties",
    ]);
    expect(all.code).toBe(0);
    for (const service of ["ingest", "reconciler", "projector", "dispatcher", "cli"])
      expect(all.stdout).toContain(`# --- ${service} (User:${service}) ---`);
    const commands = all.stdout.split("\n").filter((l) => l.startsWith("kafka-acls.sh"));
    expect(commands.length).toBeGreaterThan(10);
    for (const line of commands)
      expect(line).toMatch(
        /^kafka-acls\.sh --bootstrap-server kafka-1\.example\.com:9094 --command-config admin\.properties --add --allow-principal User:\S+ (--operation \S+ )+(--topic|--group|--transactional-id) \S+( --resource-pattern-type prefixed)?$/,
      );
    const one = await run(["acls", "--service", "ingest", "--principal", "User:svc-ingest"]);
    expect(one.stdout.split("\n").filter((l) => l.startsWith("kafka-acls.sh"))).toEqual([
      expect.stringContaining(
        "--allow-principal User:svc-ingest --operation Write --operation Describe --topic a2a.observations.v1",
      ),
    ]);
  });

  it("refuses an unknown service, a malformed principal, or a principal without a service, as usage errors", async () => {
    for (const args of [
      ["--service", "nope"],
      ["--service", "ingest", "--principal", "ingest"],
      ["--principal", "User:x"],
      ["--frobnicate"],
    ]) {
      const result = await run(["acls", ...args]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
    }
  });
});
