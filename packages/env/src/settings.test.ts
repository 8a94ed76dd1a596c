import { describe, expect, it } from "vitest";
import { envReader } from "./env-reader.ts";
import { defineSettings, formatDuration, settingShapes } from "./settings.ts";
import { settingsBlock, withSettingsBlock } from "./settings-docs.ts";

const settings = defineSettings({
  group: {
    name: "X_GROUP",
    kind: "text",
    default: "g",
    pattern: /^[a-z]+$/,
    shape: "lower-case letters",
    doc: "The group.",
  },
  secret: {
    name: "X_SECRET",
    kind: "text",
    default: "0123456789abcdef",
    pattern: /^.{16,}$/,
    shape: "at least 16 characters",
    secret: true,
    doc: "Signs.",
  },
  host: {
    name: "X_HOST",
    kind: "text",
    pattern: /^[a-z.]+$/,
    shape: "a host name",
    refusal: "is not a host name",
    doc: "Where.",
  },
  level: { name: "X_LEVEL", kind: "choice", values: ["info", "debug"], default: "info", doc: "How much." },
  dir: { name: "X_DIR", kind: "text", doc: "A folder | or none." },
  worker: { name: "X_WORKER", kind: "text", required: true, doc: "Who." },
  batch: { name: "X_BATCH", kind: "int", default: 2_000, min: 1, max: 100_000, doc: "Per batch." },
  port: { name: "X_PORT", kind: "int", min: 1024, max: 65535, doc: "A port." },
  retention: { name: "X_RETENTION", kind: "duration", default: 7 * 86_400_000, min: 1_000, max: 90_000, doc: "Kept." },
  strict: { name: "X_STRICT", kind: "bool", default: false, doc: "Strict." },
  budget: { name: "X_BUDGET", kind: "int", default: 5, min: 1, max: 9, defaultText: "from the heap", doc: "Budget." },
});

describe("declared settings", () => {
  it("read as their defaults when unset, and typed", () => {
    const reader = envReader({});
    const values = settings.read(reader);
    expect(values).toEqual({
      group: "g",
      secret: "0123456789abcdef",
      host: undefined,
      level: "info",
      dir: undefined,
      worker: "",
      batch: 2_000,
      port: undefined,
      retention: 604_800_000,
      strict: false,
      budget: 5,
    });
    expect(reader.problems).toEqual(["X_WORKER is required"]);
  });

  it("read what is set", () => {
    const reader = envReader({
      X_GROUP: "abc",
      X_HOST: "a.b",
      X_LEVEL: "debug",
      X_DIR: " /var/x ",
      X_WORKER: "w1",
      X_BATCH: "7",
      X_PORT: "9000",
      X_RETENTION: "90s",
      X_STRICT: "true",
    });
    const values = settings.read(reader);
    const level: "info" | "debug" = values.level;
    const worker: string = values.worker;
    expect(worker).toBe("w1");
    expect(level).toBe("debug");
    expect(values).toMatchObject({
      group: "abc",
      host: "a.b",
      dir: "/var/x",
      batch: 7,
      port: 9000,
      retention: 90_000,
      strict: true,
    });
    expect(reader.problems).toEqual([]);
  });

  it("list every bad value at once, each naming its variable", () => {
    const reader = envReader({
      X_WORKER: "w1",
      X_GROUP: "A-B",
      X_SECRET: "short",
      X_HOST: "A:B",
      X_LEVEL: "loud",
      X_BATCH: "0",
      X_PORT: "80",
      X_RETENTION: "2m",
      X_STRICT: "yes",
    });
    const values = settings.read(reader);
    expect(values.worker).toBe("w1");
    expect(reader.problems).toEqual([
      'X_GROUP="A-B" must be lower-case letters',
      "X_SECRET must be at least 16 characters (value not shown)",
      'X_HOST="A:B" is not a host name',
      'X_LEVEL="loud" must be one of info, debug',
      'X_BATCH="0" must be an integer from 1 to 100000',
      'X_PORT="80" must be an integer from 1024 to 65535',
      'X_RETENTION="2m" must be a duration from 1000 ms to 90000 ms, like 7d, 12h, 30m, 90s or 500ms',
      'X_STRICT="yes" must be true or false',
    ]);
  });

  it("read a required setting that is refused as an empty string, never undefined", () => {
    const reader = envReader({ X_WORKER: "two words" });
    const required = defineSettings({
      worker: { name: "X_WORKER", kind: "text", required: true, pattern: /^\S+$/, shape: "one word", doc: "Who." },
    });
    expect(required.read(reader).worker).toBe("");
    expect(reader.problems).toEqual(['X_WORKER="two words" must be one word']);
  });

  it("refuse a name declared twice", () => {
    expect(() =>
      defineSettings({
        a: { name: "X_A", kind: "bool", default: false, doc: "a" },
        b: { name: "X_A", kind: "bool", default: true, doc: "b" },
      }),
    ).toThrow("settings declared twice: X_A");
  });

  it("render the README's table, one row each in declaration order", () => {
    expect(settings.markdown().split("\n")).toEqual([
      "| setting | default | accepted | what it sets |",
      "|---|---|---|---|",
      "| `X_GROUP` | `g` | lower-case letters | The group. |",
      "| `X_SECRET` | a built-in value | at least 16 characters | Signs. |",
      "| `X_HOST` | unset | a host name | Where. |",
      "| `X_LEVEL` | `info` | `info`, `debug` | How much. |",
      "| `X_DIR` | unset | text | A folder \\| or none. |",
      "| `X_WORKER` | required | text | Who. |",
      "| `X_BATCH` | `2000` | integer, 1 to 100,000 | Per batch. |",
      "| `X_PORT` | unset | integer, 1,024 to 65,535 | A port. |",
      "| `X_RETENTION` | `7d` | duration, 1s to 90s | Kept. |",
      "| `X_STRICT` | `false` | `true` or `false` | Strict. |",
      "| `X_BUDGET` | from the heap | integer, 1 to 9 | Budget. |",
    ]);
  });

  it("write durations in the largest unit that divides them", () => {
    expect([0, 500, 1_500, 90_000, 1_800_000, 86_400_000, 3_650 * 86_400_000].map(formatDuration)).toEqual([
      "0ms",
      "500ms",
      "1500ms",
      "90s",
      "30m",
      "1d",
      "3650d",
    ]);
  });
});

describe("the shapes several services share", () => {
  const shared = defineSettings({
    host: { name: "X_HOST", ...settingShapes.host, default: "127.0.0.1", doc: "Where." },
    group: { name: "X_GROUP", ...settingShapes.name, doc: "The group." },
    token: { name: "X_TOKEN", ...settingShapes.token, doc: "A token." },
  });

  it("accept what they name and refuse the rest, a token without showing it", () => {
    const good = envReader({ X_HOST: "::1", X_GROUP: "a2a-ledger.e2e_1", X_TOKEN: "s3cret-token" });
    expect(shared.read(good)).toEqual({ host: "::1", group: "a2a-ledger.e2e_1", token: "s3cret-token" });
    expect(good.problems).toEqual([]);
    const bad = envReader({ X_HOST: "a b", X_GROUP: "g/1", X_TOKEN: "two words" });
    shared.read(bad);
    expect(bad.problems).toEqual([
      'X_HOST="a b" is not a host name or IP address',
      "X_GROUP=\"g/1\" must be letters, digits, '.', '_' and '-' only",
      "X_TOKEN must not contain whitespace (value not shown)",
    ]);
  });
});

describe("a README's settings block", () => {
  const readme = "# S\n\ntext\n\n<!-- settings -->\n| old |\n<!-- /settings -->\n\nafter\n";

  it("is read between its markers", () => {
    expect(settingsBlock(readme)).toBe("| old |");
    expect(settingsBlock("# none")).toBeUndefined();
  });

  it("is replaced whole, the rest kept", () => {
    const next = withSettingsBlock(readme, "| a |\n| b |");
    expect(next).toBe("# S\n\ntext\n\n<!-- settings -->\n| a |\n| b |\n<!-- /settings -->\n\nafter\n");
    expect(settingsBlock(next)).toBe("| a |\n| b |");
    expect(() => withSettingsBlock("# none", "| a |")).toThrow("no <!-- settings -->");
  });
});
