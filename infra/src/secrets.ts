/**
 * What the launcher's secured mode hands out, generated at first start into `<data dir>/secrets`
 * (mode 700) with openssl: a CA, one server certificate for 127.0.0.1/localhost (the brokers and the
 * registry's TLS front), a client certificate and a SCRAM/PLAIN password per principal, and for each
 * principal two client properties files in the keys of Kafka's tools and Confluent's clients — one
 * SASL_SSL (SCRAM-SHA-512), one SSL (mTLS) — both with the registry's URL, basic auth and CA.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerServices } from "@a2a-ledger/kafka";
import type { StackConfig } from "./config.ts";

/** The launcher's own principals: `broker` (inter-broker and controller listeners) and `admin` are super users; `registry` is the registry's kafkasql storage. */
export const infraPrincipals = ["admin", "broker", "registry"] as const;
export const principals = [...infraPrincipals, ...ledgerServices] as const;
export type Principal = (typeof principals)[number];

export interface Secrets {
  dir: string;
  caPem: string;
  /** Key and certificate of the brokers and the registry front, PEM (a Kafka PEM keystore). */
  serverKeystore: string;
  serverCert: string;
  serverKey: string;
  passwords: Record<Principal, string>;
  /** A principal's PEM keystore (key + certificate) and its parts. */
  keystore(principal: Principal): string;
  cert(principal: Principal): string;
  key(principal: Principal): string;
}

function openssl(dir: string, ...args: string[]): void {
  const result = spawnSync("openssl", args, { cwd: dir, encoding: "utf8", timeout: 60_000 });
  if (result.error !== undefined || result.status !== 0)
    throw new Error(`openssl ${args.slice(0, 2).join(" ")} failed: ${result.stderr || String(result.error)}`);
}

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function issue(dir: string, name: string, subject: string, extensions: string): void {
  if (existsSync(join(dir, `${name}.pem`))) return;
  openssl(dir, "req", ...ecKey, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(
    dir,
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    `${name}.pem`,
    "-days",
    "825",
    "-sha256",
    "-extfile",
    `${name}.ext`,
  );
  writeFileSync(
    join(dir, `${name}-keystore.pem`),
    `${readFileSync(join(dir, `${name}.key`), "utf8")}${readFileSync(join(dir, `${name}.pem`), "utf8")}`,
    { mode: 0o600 },
  );
  chmodSync(join(dir, `${name}.key`), 0o600);
}

/** Creates what is missing (idempotent) and returns the paths and passwords. */
export function ensureSecrets(config: StackConfig): Secrets {
  const dir = join(config.dataDir, "secrets");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (!existsSync(join(dir, "ca.pem"))) {
    openssl(
      dir,
      "req",
      "-x509",
      ...ecKey,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "3650",
      "-sha256",
      "-subj",
      "/CN=a2a-ledger local CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
    chmodSync(join(dir, "ca.key"), 0o600);
  }
  issue(
    dir,
    "server",
    "/CN=broker",
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
  );
  for (const principal of principals) {
    if (principal === "broker") continue;
    issue(
      dir,
      principal,
      `/CN=${principal}`,
      "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
    );
  }
  const passwordFile = join(dir, "passwords.json");
  const known = existsSync(passwordFile)
    ? (JSON.parse(readFileSync(passwordFile, "utf8")) as Partial<Record<Principal, string>>)
    : {};
  const passwords = Object.fromEntries(
    principals.map((p) => [p, known[p] ?? randomBytes(18).toString("base64url")]),
  ) as Record<Principal, string>;
  writeFileSync(passwordFile, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
  const file = (name: string) => join(dir, name);
  return {
    dir,
    caPem: file("ca.pem"),
    serverKeystore: file("server-keystore.pem"),
    serverCert: file("server.pem"),
    serverKey: file("server.key"),
    passwords,
    keystore: (p) => file(p === "broker" ? "server-keystore.pem" : `${p}-keystore.pem`),
    cert: (p) => file(p === "broker" ? "server.pem" : `${p}.pem`),
    key: (p) => file(p === "broker" ? "server.key" : `${p}.key`),
  };
}

export interface ClientFiles {
  /** SASL_SSL with SCRAM-SHA-512. */
  sasl: string;
  /** SSL with the principal's client certificate. */
  mtls: string;
}

/** Writes a principal's two client properties files (mode 600); returns their paths. */
export function writeClientProperties(
  secrets: Secrets,
  principal: Principal,
  endpoints: { saslBrokers: string; sslBrokers: string; registryUrl: string },
): ClientFiles {
  const registry = [
    `schema.registry.url=${endpoints.registryUrl}`,
    "basic.auth.credentials.source=USER_INFO",
    `basic.auth.user.info=${principal}:${secrets.passwords[principal]}`,
    `schema.registry.ssl.ca.location=${secrets.caPem}`,
  ];
  const sasl = [
    `# ${principal} over SASL_SSL (SCRAM-SHA-512), written by the a2a-ledger launcher`,
    `bootstrap.servers=${endpoints.saslBrokers}`,
    "security.protocol=SASL_SSL",
    "sasl.mechanism=SCRAM-SHA-512",
    `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${principal}" password="${secrets.passwords[principal]}";`,
    `sasl.username=${principal}`,
    `sasl.password=${secrets.passwords[principal]}`,
    "ssl.truststore.type=PEM",
    `ssl.truststore.location=${secrets.caPem}`,
    `ssl.ca.location=${secrets.caPem}`,
    ...registry,
  ];
  const mtls = [
    `# ${principal} over SSL with its client certificate (CN=${principal}), written by the a2a-ledger launcher`,
    `bootstrap.servers=${endpoints.sslBrokers}`,
    "security.protocol=SSL",
    `ssl.ca.location=${secrets.caPem}`,
    `ssl.certificate.location=${secrets.cert(principal)}`,
    `ssl.key.location=${secrets.key(principal)}`,
    ...registry,
  ];
  const files = {
    sasl: join(secrets.dir, `${principal}.sasl.properties`),
    mtls: join(secrets.dir, `${principal}.mtls.properties`),
  };
  writeFileSync(files.sasl, `${sasl.join("\n")}\n`, { mode: 0o600 });
  writeFileSync(files.mtls, `${mtls.join("\n")}\n`, { mode: 0o600 });
  return files;
}
