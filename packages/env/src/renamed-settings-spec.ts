/**
 * The behaviour every service's configuration promises for its settings' old names (`<SERVICE>_*`
 * before `A2A_LEDGER_<SERVICE>_*`), as one spec each service's config test runs against its own
 * loader: the old name is still read with one deprecation warning naming old and new, the new name
 * is read without one and wins when both are set, and every problem is listed at once, also of
 * values given under old names. The port is the setting tried, as every HTTP service has one.
 */
import { describe, expect, it, vi } from "vitest";

export interface RenamedSettingsSubject {
  /** `INGEST`, `PROJECTOR`, `DISPATCHER`, `PROXY`: the old prefix is `<service>_`. */
  service: string;
  /** The service's configuration loader; throws an error with `problems` on bad settings. */
  load: (env: NodeJS.ProcessEnv) => { port: number };
  /** Settings the service requires besides the ones tried. */
  required?: NodeJS.ProcessEnv;
  /** One more bad setting (its value, and the name the problem must mention); default: a broker list without a port. */
  alsoBad?: { env: NodeJS.ProcessEnv; mentions: string };
}

function warnings(run: () => void): string[] {
  const emit = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
  try {
    run();
    return emit.mock.calls.map((c) => String(c[0]));
  } finally {
    emit.mockRestore();
  }
}

export function describeRenamedSettings({
  service,
  load,
  required = {},
  alsoBad = { env: { KAFKA_BROKERS: "nohost" }, mentions: "KAFKA_BROKERS" },
}: RenamedSettingsSubject): void {
  const oldPort = `${service}_PORT`;
  const newPort = `A2A_LEDGER_${service}_PORT`;
  describe(`${service.toLowerCase()} settings under their deprecated names (${service}_*)`, () => {
    it("reads the old name, with one deprecation warning naming old and new", () => {
      let port = 0;
      const seen = warnings(() => {
        port = load({ ...required, [oldPort]: "9001" }).port;
        load({ ...required, [oldPort]: "9001" });
      });
      expect(port).toBe(9001);
      expect(seen).toEqual([`${oldPort} is deprecated: set ${newPort} instead (${newPort} wins when both are set)`]);
    });

    it("reads the new name without a warning, and takes it when both are set", () => {
      expect(warnings(() => expect(load({ ...required, [newPort]: "9002" }).port).toBe(9002))).toEqual([]);
      expect(load({ ...required, [oldPort]: "9001", [newPort]: "9002" }).port).toBe(9002);
    });

    it("lists every problem at once, also of values given under old names", () => {
      let problems: string[] = [];
      try {
        load({ ...required, [oldPort]: "none", [`A2A_LEDGER_${service}_LOG_LEVEL`]: "loud", ...alsoBad.env });
      } catch (e) {
        problems = (e as { problems: string[] }).problems;
      }
      expect(problems.some((p) => p.startsWith(`${newPort}="none"`))).toBe(true);
      expect(problems.some((p) => p.includes(`A2A_LEDGER_${service}_LOG_LEVEL`))).toBe(true);
      expect(problems.some((p) => p.includes(alsoBad.mentions))).toBe(true);
    });
  });
}
