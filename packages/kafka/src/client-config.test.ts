import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { connectionSecurity } from "./client.ts";
import { clientConfigProblems, endpointProblems, endpointsFromEnv, loadClientConfig } from "@a2a-ledger/client-config";

const dir = mkdtempSync(join(tmpdir(), "client-config-"));
const secret = "s3cr3t-Pa55word-never-shown";

function file(name: string, text: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const problemsOf = (env: NodeJS.ProcessEnv): string[] => clientConfigProblems(env);

beforeAll(() => {
  // A CA and a client certificate signed by it, as an operator would have them.
  const run = (...args: string[]) => {
    const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
  };
  run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=test-ca",
  );
  run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=ingest");
  run(
    "x509",
    "-req",
    "-in",
    "client.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "client.pem",
    "-days",
    "2",
  );
});

describe("the client configuration", () => {
  it("is PLAINTEXT without a file or overrides", () => {
    const config = loadClientConfig({});
    expect(config.protocol).toBe("PLAINTEXT");
    expect(config.sasl).toBeUndefined();
    expect(connectionSecurity(config)).toEqual({});
  });

  it("reads SASL_SSL with SCRAM from a Confluent-style client.properties, CA paths relative to the file", () => {
    const path = file(
      "scram.properties",
      `bootstrap.servers=127.0.0.1:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=ingest\nsasl.password=${secret}\nssl.ca.location=ca.pem\nacks=all\nclient.dns.lookup=use_all_dns_ips\n`,
    );
    const config = loadClientConfig({ KAFKA_CLIENT_CONFIG: path });
    expect(config.protocol).toBe("SASL_SSL");
    expect(config.sasl).toMatchObject({ mechanism: "scram-sha-512", username: "ingest" });
    expect(config.sasl?.password).toBe(secret);
    expect(config.ssl?.ca).toContain("BEGIN CERTIFICATE");
    expect(config.principal).toBe("User:ingest");
    expect(config.bootstrapServers).toBe("127.0.0.1:9093");
    expect(config.ignoredKeys).toEqual(["acks", "client.dns.lookup"]);
    expect(endpointsFromEnv({ KAFKA_CLIENT_CONFIG: path }).brokers).toBe("127.0.0.1:9093");
    const security = connectionSecurity(config);
    expect(security.ssl).toBe(true);
    expect(security.sasl).toBe(config.sasl);
  });

  it("takes the credentials from sasl.jaas.config as Kafka's own tools write it", () => {
    const path = file(
      "jaas.properties",
      `security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="KEY123" password="${secret}";\nssl.ca.location=${join(dir, "ca.pem")}\n`,
    );
    const config = loadClientConfig({ KAFKA_CLIENT_CONFIG: path });
    expect(config.sasl).toMatchObject({ mechanism: "plain", username: "KEY123" });
    expect(config.sasl?.password).toBe(secret);
  });

  it("lets environment variables override single keys of the file", () => {
    const path = file(
      "override.properties",
      "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.username=from-file\nsasl.password=from-file-password\n",
    );
    const config = loadClientConfig({
      KAFKA_CLIENT_CONFIG: path,
      KAFKA_SASL_USERNAME: "reconciler",
      KAFKA_SASL_PASSWORD: secret,
      KAFKA_SASL_MECHANISM: "SCRAM-SHA-256",
    });
    expect(config.sasl).toMatchObject({ mechanism: "scram-sha-256", username: "reconciler" });
    expect(config.sasl?.password).toBe(secret);
    expect(
      loadClientConfig({
        KAFKA_SECURITY_PROTOCOL: "sasl_ssl",
        KAFKA_SASL_MECHANISM: "PLAIN",
        KAFKA_SASL_USERNAME: "u",
        KAFKA_SASL_PASSWORD: secret,
      }).protocol,
    ).toBe("SASL_SSL");
  });

  it("reads SSL with a client certificate (mTLS) and names the certificate's subject", () => {
    const path = file(
      "mtls.properties",
      "security.protocol=SSL\nssl.ca.location=ca.pem\nssl.certificate.location=client.pem\nssl.key.location=client.key\n",
    );
    const config = loadClientConfig({ KAFKA_CLIENT_CONFIG: path });
    expect(config.protocol).toBe("SSL");
    expect(config.ssl?.cert).toContain("BEGIN CERTIFICATE");
    expect(config.ssl?.key).toContain("PRIVATE KEY");
    expect(config.principal).toBe("the certificate CN=ingest");
    expect(connectionSecurity(config).socketFactory).toBeTypeOf("function");
  });

  it("reads the registry's basic auth and CA from the same file", () => {
    const path = file(
      "registry.properties",
      `schema.registry.url=https://127.0.0.1:8081/apis/ccompat/v7\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=registry-user:${secret}\nschema.registry.ssl.ca.location=ca.pem\n`,
    );
    const config = loadClientConfig({ KAFKA_CLIENT_CONFIG: path });
    expect(config.registry.basicAuth).toMatchObject({ username: "registry-user" });
    expect(config.registry.basicAuth?.password).toBe(secret);
    expect(config.registry.tls?.ca).toContain("BEGIN CERTIFICATE");
    expect(endpointsFromEnv({ KAFKA_CLIENT_CONFIG: path }).registryUrl).toBe("https://127.0.0.1:8081/apis/ccompat/v7");
    const inherited = loadClientConfig({
      KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
      KAFKA_SASL_MECHANISM: "PLAIN",
      KAFKA_SASL_USERNAME: "u",
      KAFKA_SASL_PASSWORD: secret,
      SCHEMA_REGISTRY_BASIC_AUTH_CREDENTIALS_SOURCE: "SASL_INHERIT",
    });
    expect(inherited.registry.basicAuth?.username).toBe("u");
  });

  it("never shows a secret when serialised, inspected or reported", () => {
    const path = file(
      "secret.properties",
      `security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.username=u\nsasl.password=${secret}\nbasic.auth.user.info=r:${secret}\nssl.certificate.location=client.pem\nssl.key.location=client.key\nssl.key.password=${secret}\n`,
    );
    const config = loadClientConfig({ KAFKA_CLIENT_CONFIG: path });
    for (const text of [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      JSON.stringify(connectionSecurity(config)),
      inspect(connectionSecurity(config), { depth: 10 }),
    ]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain("PRIVATE KEY");
    }
    const bad = problemsOf({
      KAFKA_CLIENT_CONFIG: path,
      KAFKA_SASL_MECHANISM: "GSSAPI",
      SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO: secret,
      KAFKA_SASL_JAAS_CONFIG: `broken ${secret}`,
    });
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.join("\n")).not.toContain(secret);
  });

  it("reports every problem at once, naming the key and where it came from", () => {
    const path = file(
      "bad.properties",
      "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\nssl.truststore.location=trust.jks\nssl.truststore.type=JKS\nssl.certificate.location=missing.pem\n",
    );
    const problems = problemsOf({ KAFKA_CLIENT_CONFIG: path });
    expect(problems.join("\n")).toMatch(/sasl\.mechanism \(.*bad\.properties\)="GSSAPI" is not supported/);
    expect(problems.join("\n")).toMatch(/needs sasl\.username and sasl\.password/);
    expect(problems.join("\n")).toMatch(/a JKS truststore cannot be read.*ssl\.ca\.location/);
    expect(problems.join("\n")).toMatch(/missing\.pem cannot be read \(ENOENT\)/);
    expect(problems.join("\n")).toMatch(/without ssl\.key\.location/);
    expect(problemsOf({ KAFKA_CLIENT_CONFIG: join(dir, "nope.properties") })).toEqual([
      expect.stringMatching(/cannot be read \(ENOENT\)/),
    ]);
    expect(problemsOf({ KAFKA_SECURITY_PROTOCOL: "TLS" })).toEqual([
      expect.stringMatching(/KAFKA_SECURITY_PROTOCOL="TLS" must be one of/),
    ]);
    expect(problemsOf({ KAFKA_SASL_MECHANISM: "PLAIN" })).toEqual([
      expect.stringMatching(/security\.protocol is PLAINTEXT/),
    ]);
    expect(problemsOf({ KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_SSL_CA_LOCATION: path })).toEqual([
      expect.stringMatching(/holds no PEM certificate/),
    ]);
    expect(problemsOf({ SCHEMA_REGISTRY_BASIC_AUTH_CREDENTIALS_SOURCE: "URL" })).toEqual([
      expect.stringMatching(/USER_INFO or SASL_INHERIT/),
    ]);
  });

  it("refuses binary, huge or hostile files with a problem, not a crash", () => {
    const noise = file(
      "noise.properties",
      Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 2654435761) % 256)),
    );
    expect(() => problemsOf({ KAFKA_CLIENT_CONFIG: noise })).not.toThrow();
    const hostile = file(
      "hostile.properties",
      `security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=${"x".repeat(200_000)}\n`,
    );
    expect(problemsOf({ KAFKA_CLIENT_CONFIG: hostile }).join("\n")).toMatch(/no username=/);
  });

  it("makes endpointProblems report the client configuration's problems and credentials in the registry URL", () => {
    expect(endpointProblems(endpointsFromEnv({ KAFKA_SECURITY_PROTOCOL: "SASL_SSL" }))).toContainEqual(
      expect.stringMatching(/needs sasl\.mechanism/),
    );
    const problems = endpointProblems(
      endpointsFromEnv({ SCHEMA_REGISTRY_URL: `https://u:${secret}@registry.example/apis/ccompat/v7` }),
    );
    expect(problems).toEqual([
      "SCHEMA_REGISTRY_URL must not carry credentials (value not shown): give them as basic.auth.user.info",
    ]);
  });
});
