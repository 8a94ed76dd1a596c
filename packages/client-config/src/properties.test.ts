import { describe, expect, it } from "vitest";
import { parseProperties } from "./properties.ts";

describe("client.properties text", () => {
  it("reads key=value, key: value and key value lines, skipping comments and blank lines", () => {
    const p = parseProperties(
      "# comment\n! also a comment\n\nsecurity.protocol=SASL_SSL\nsasl.mechanism: PLAIN\nbootstrap.servers  pkc-1.example:9092\n",
    );
    expect(Object.fromEntries(p)).toEqual({
      "security.protocol": "SASL_SSL",
      "sasl.mechanism": "PLAIN",
      "bootstrap.servers": "pkc-1.example:9092",
    });
  });

  it("joins continued lines and decodes escapes, as Java does for sasl.jaas.config", () => {
    const p = parseProperties(
      'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n    username="u" \\\n    password="p\\u00e9";\nkey\\=with\\:colon=v\\tx\n',
    );
    expect(p.get("sasl.jaas.config")).toBe(
      'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="pé";',
    );
    expect(p.get("key=with:colon")).toBe("v\tx");
  });

  it("keeps the last of a repeated key, takes CRLF files and a byte order mark", () => {
    const p = parseProperties("\uFEFFa=1\r\na=2\r\nb=\r\n");
    expect(p.get("a")).toBe("2");
    expect(p.get("b")).toBe("");
  });

  it("does not throw on binary or hostile text", () => {
    const noise = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString("latin1");
    expect(() => parseProperties(noise)).not.toThrow();
    expect(() => parseProperties("\\".repeat(10_001))).not.toThrow();
    expect(parseProperties("=\n:\n")).toBeInstanceOf(Map);
  });
});
