/**
 * The one client configuration of every Kafka and registry client of the project, read the way
 * Kafka's users write it: a client properties file (`KAFKA_CLIENT_CONFIG=client.properties`, the keys
 * of Kafka's tools and Confluent's clients) and environment overrides of single keys
 * (`KAFKA_` + the key upper-cased with `_` for `.`; `SCHEMA_REGISTRY_…` for the registry's keys).
 *
 * Secrets (SASL password, private key and its password, registry password) are held as
 * non-enumerable properties: they reach the clients but never a log line, `JSON.stringify` or
 * `util.inspect`, and no problem message ever quotes a value of a secret key.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve, dirname } from "node:path";
import { parseProperties } from "./properties.ts";

export type SecurityProtocol = "PLAINTEXT" | "SSL" | "SASL_PLAINTEXT" | "SASL_SSL";
export type SaslMechanism = "plain" | "scram-sha-256" | "scram-sha-512";

/** TLS options as node:tls takes them. `key`, `pfx` and `passphrase` are non-enumerable. */
export interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  pfx?: Buffer;
  passphrase?: string;
  rejectUnauthorized: boolean;
  /** Set when `ssl.endpoint.identification.algorithm` is empty or `none`: the host name is not checked. */
  checkServerIdentity?: () => undefined;
}

/** `password` is non-enumerable. */
export interface SaslCredentials {
  mechanism: SaslMechanism;
  username: string;
  password: string;
}

export interface RegistrySecurity {
  /** `basic.auth.user.info`; `password` is non-enumerable. */
  basicAuth?: { username: string; password: string };
  tls?: TlsOptions;
}

export interface ClientConfig {
  /** Where it was read from, for messages: the properties file, or "the environment". */
  source: string;
  protocol: SecurityProtocol;
  ssl?: TlsOptions;
  sasl?: SaslCredentials;
  /** How the broker will know this client, as far as the client can tell: `User:<sasl user>` or the certificate's subject. */
  principal?: string;
  /** `bootstrap.servers` of the file (KAFKA_BROKERS wins). */
  bootstrapServers?: string;
  /** `schema.registry.url` of the file (SCHEMA_REGISTRY_URL wins). */
  registryUrl?: string;
  registry: RegistrySecurity;
  /** Keys of the file this project does not use (other clients' settings such as `acks`), ignored. */
  ignoredKeys: string[];
}

export class ClientConfigError extends Error {
  override name = "ClientConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid Kafka client configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Keys read, each with its environment override. Values of `secret` keys are never shown. */
export const clientConfigKeys = {
  "security.protocol": { env: "KAFKA_SECURITY_PROTOCOL" },
  "sasl.mechanism": { env: "KAFKA_SASL_MECHANISM" },
  "sasl.username": { env: "KAFKA_SASL_USERNAME" },
  "sasl.password": { env: "KAFKA_SASL_PASSWORD", secret: true },
  "sasl.jaas.config": { env: "KAFKA_SASL_JAAS_CONFIG", secret: true },
  "ssl.ca.location": { env: "KAFKA_SSL_CA_LOCATION" },
  "ssl.ca.pem": { env: "KAFKA_SSL_CA_PEM" },
  "ssl.truststore.location": { env: "KAFKA_SSL_TRUSTSTORE_LOCATION" },
  "ssl.truststore.type": { env: "KAFKA_SSL_TRUSTSTORE_TYPE" },
  "ssl.truststore.password": { env: "KAFKA_SSL_TRUSTSTORE_PASSWORD", secret: true },
  "ssl.certificate.location": { env: "KAFKA_SSL_CERTIFICATE_LOCATION" },
  "ssl.certificate.pem": { env: "KAFKA_SSL_CERTIFICATE_PEM" },
  "ssl.key.location": { env: "KAFKA_SSL_KEY_LOCATION" },
  "ssl.key.pem": { env: "KAFKA_SSL_KEY_PEM", secret: true },
  "ssl.key.password": { env: "KAFKA_SSL_KEY_PASSWORD", secret: true },
  "ssl.keystore.location": { env: "KAFKA_SSL_KEYSTORE_LOCATION" },
  "ssl.keystore.type": { env: "KAFKA_SSL_KEYSTORE_TYPE" },
  "ssl.keystore.password": { env: "KAFKA_SSL_KEYSTORE_PASSWORD", secret: true },
  "ssl.endpoint.identification.algorithm": { env: "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM" },
  "enable.ssl.certificate.verification": { env: "KAFKA_ENABLE_SSL_CERTIFICATE_VERIFICATION" },
  "bootstrap.servers": { env: "KAFKA_BROKERS" },
  "schema.registry.url": { env: "SCHEMA_REGISTRY_URL" },
  "basic.auth.credentials.source": { env: "SCHEMA_REGISTRY_BASIC_AUTH_CREDENTIALS_SOURCE" },
  "basic.auth.user.info": { env: "SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO", secret: true },
  "schema.registry.basic.auth.user.info": { env: "SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO", secret: true },
  "schema.registry.ssl.ca.location": { env: "SCHEMA_REGISTRY_SSL_CA_LOCATION" },
  "schema.registry.ssl.truststore.location": { env: "SCHEMA_REGISTRY_SSL_TRUSTSTORE_LOCATION" },
  "schema.registry.ssl.certificate.location": { env: "SCHEMA_REGISTRY_SSL_CERTIFICATE_LOCATION" },
  "schema.registry.ssl.key.location": { env: "SCHEMA_REGISTRY_SSL_KEY_LOCATION" },
  "schema.registry.ssl.key.password": { env: "SCHEMA_REGISTRY_SSL_KEY_PASSWORD", secret: true },
} as const satisfies Record<string, { env: string; secret?: boolean }>;

export type ClientConfigKey = keyof typeof clientConfigKeys;

const protocols: readonly SecurityProtocol[] = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"];
const mechanisms: Record<string, SaslMechanism> = {
  PLAIN: "plain",
  "SCRAM-SHA-256": "scram-sha-256",
  "SCRAM-SHA-512": "scram-sha-512",
};

/** Sets `value` on `target` as a non-enumerable property: usable, never serialised or printed. */
function hide<T extends object>(target: T, key: string, value: unknown): T {
  Object.defineProperty(target, key, { value, enumerable: false, writable: false, configurable: false });
  return target;
}

interface Source {
  get(key: ClientConfigKey): string | undefined;
  /** Where a key's value came from, for messages. */
  origin(key: ClientConfigKey): string;
  /** Resolves a file named by a key: relative to the properties file, as the user wrote it. */
  path(key: ClientConfigKey): string | undefined;
}

function sourceOf(env: NodeJS.ProcessEnv, problems: string[]): { source: Source; name: string; ignored: string[] } {
  const file = env.KAFKA_CLIENT_CONFIG?.trim();
  let properties = new Map<string, string>();
  let base = process.cwd();
  if (file !== undefined && file !== "") {
    const path = resolve(file);
    base = dirname(path);
    try {
      properties = parseProperties(readFileSync(path, "utf8"));
    } catch (e) {
      problems.push(
        `KAFKA_CLIENT_CONFIG=${JSON.stringify(file)} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }
  const known = new Set<string>(Object.keys(clientConfigKeys));
  const ignored = [...properties.keys()].filter((k) => !known.has(k)).sort();
  const fromEnv = (key: ClientConfigKey): string | undefined => {
    const raw = env[clientConfigKeys[key].env]?.trim();
    return raw === undefined || raw === "" ? undefined : raw;
  };
  const source: Source = {
    get: (key) => fromEnv(key) ?? (properties.get(key)?.trim() || undefined),
    origin: (key) => (fromEnv(key) !== undefined ? clientConfigKeys[key].env : `${key} (${file})`),
    path: (key) => {
      const value = source.get(key);
      if (value === undefined) return undefined;
      return fromEnv(key) !== undefined ? resolve(value) : resolve(base, value);
    },
  };
  return { source, name: file !== undefined && file !== "" ? file : "the environment", ignored };
}

function readText(source: Source, key: ClientConfigKey, problems: string[]): string | undefined {
  const path = source.path(key);
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    problems.push(
      `${source.origin(key)}: ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
    return undefined;
  }
}

function pem(
  text: string | undefined,
  kind: "CERTIFICATE" | "PRIVATE KEY",
  origin: string,
  problems: string[],
): string | undefined {
  if (text === undefined) return undefined;
  const normalised = text.replace(/\\n/g, "\n");
  const ok =
    kind === "CERTIFICATE"
      ? /-----BEGIN CERTIFICATE-----/.test(normalised)
      : /-----BEGIN (ENCRYPTED |RSA |EC )?PRIVATE KEY-----/.test(normalised);
  if (!ok) {
    problems.push(`${origin} holds no PEM ${kind.toLowerCase()} (-----BEGIN ${kind}-----)`);
    return undefined;
  }
  return normalised;
}

/** username and password of a `sasl.jaas.config` login module line. */
function jaasCredentials(jaas: string): { username?: string; password?: string } {
  const option = (name: string) =>
    new RegExp(`\\b${name}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(jaas)?.[1]?.replace(/\\(.)/g, "$1");
  return { username: option("username"), password: option("password") };
}

function tlsOptions(
  source: Source,
  problems: string[],
  keys: { ca: ClientConfigKey[]; cert: ClientConfigKey; key: ClientConfigKey; keyPassword: ClientConfigKey },
  java: boolean,
): TlsOptions {
  const tls: TlsOptions = { rejectUnauthorized: true };
  // The CA: librdkafka's ssl.ca.location / ssl.ca.pem, or the Java client's PEM truststore.
  for (const key of keys.ca) {
    if (source.get(key) === undefined) continue;
    if (key === "ssl.truststore.location") {
      const type = (source.get("ssl.truststore.type") ?? "JKS").toUpperCase();
      if (type !== "PEM") {
        problems.push(
          `${source.origin("ssl.truststore.type")}: a ${type} truststore cannot be read by this client; export its CA as PEM (keytool -exportcert -rfc -alias <ca> -keystore <truststore> -file ca.pem) and set ssl.ca.location (or ssl.truststore.type=PEM)`,
        );
        break;
      }
    }
    const ca = key.endsWith(".pem") ? source.get(key) : readText(source, key, problems);
    tls.ca = pem(ca, "CERTIFICATE", source.origin(key), problems);
    break;
  }
  const cert =
    keys.cert === "ssl.certificate.location"
      ? (source.get("ssl.certificate.pem") ?? readText(source, keys.cert, problems))
      : readText(source, keys.cert, problems);
  const key =
    keys.key === "ssl.key.location"
      ? (source.get("ssl.key.pem") ?? readText(source, keys.key, problems))
      : readText(source, keys.key, problems);
  if (cert !== undefined) tls.cert = pem(cert, "CERTIFICATE", source.origin(keys.cert), problems);
  if (key !== undefined) hide(tls, "key", pem(key, "PRIVATE KEY", source.origin(keys.key), problems));
  const certGiven =
    source.get(keys.cert) !== undefined ||
    (keys.cert === "ssl.certificate.location" && source.get("ssl.certificate.pem") !== undefined);
  const keyGiven =
    source.get(keys.key) !== undefined || (keys.key === "ssl.key.location" && source.get("ssl.key.pem") !== undefined);
  if (certGiven !== keyGiven)
    problems.push(
      `${source.origin(certGiven ? keys.cert : keys.key)} is set without ${certGiven ? keys.key : keys.cert}: a client certificate needs both`,
    );
  const passphrase = source.get(keys.keyPassword);
  if (passphrase !== undefined) hide(tls, "passphrase", passphrase);
  if (java) {
    const keystore = source.path("ssl.keystore.location");
    if (keystore !== undefined) {
      const type = (source.get("ssl.keystore.type") ?? "JKS").toUpperCase();
      if (type === "PKCS12") {
        try {
          hide(tls, "pfx", readFileSync(keystore));
          const password = source.get("ssl.keystore.password");
          if (password !== undefined && passphrase === undefined) hide(tls, "passphrase", password);
        } catch (e) {
          problems.push(
            `${source.origin("ssl.keystore.location")}: ${keystore} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          );
        }
      } else if (type === "PEM") {
        const text = readText(source, "ssl.keystore.location", problems);
        if (text !== undefined) {
          tls.cert = pem(text, "CERTIFICATE", source.origin("ssl.keystore.location"), problems);
          hide(tls, "key", pem(text, "PRIVATE KEY", source.origin("ssl.keystore.location"), problems));
        }
      } else {
        problems.push(
          `${source.origin("ssl.keystore.type")}: a ${type} keystore cannot be read by this client; convert it (keytool -importkeystore -deststoretype PKCS12) or give ssl.certificate.location and ssl.key.location as PEM`,
        );
      }
    }
  }
  const identification = java ? source.get("ssl.endpoint.identification.algorithm") : undefined;
  if (identification !== undefined && (identification === "" || identification.toLowerCase() === "none"))
    tls.checkServerIdentity = () => undefined;
  const verification = java ? source.get("enable.ssl.certificate.verification") : undefined;
  if (verification !== undefined) {
    if (verification !== "true" && verification !== "false")
      problems.push(`${source.origin("enable.ssl.certificate.verification")} must be true or false`);
    else tls.rejectUnauthorized = verification === "true";
  }
  return tls;
}

function subjectOf(cert: string | undefined): string | undefined {
  if (cert === undefined) return undefined;
  try {
    return new X509Certificate(cert).subject.split("\n").join(",");
  } catch {
    return undefined;
  }
}

function registrySecurity(source: Source, problems: string[], sasl: SaslCredentials | undefined): RegistrySecurity {
  const security: RegistrySecurity = {};
  const credentialsSource = (source.get("basic.auth.credentials.source") ?? "USER_INFO").toUpperCase();
  const userInfoKey: ClientConfigKey =
    source.get("basic.auth.user.info") !== undefined ? "basic.auth.user.info" : "schema.registry.basic.auth.user.info";
  const userInfo = source.get(userInfoKey);
  let credentials: string | undefined;
  if (credentialsSource === "USER_INFO") credentials = userInfo;
  else if (credentialsSource === "SASL_INHERIT")
    credentials = sasl === undefined ? undefined : `${sasl.username}:${sasl.password}`;
  // URL (credentials inside schema.registry.url) is refused: URLs end up in logs.
  else
    problems.push(
      `${source.origin("basic.auth.credentials.source")} must be USER_INFO or SASL_INHERIT (credentials in the URL are not taken: URLs get logged)`,
    );
  if (credentialsSource === "SASL_INHERIT" && sasl === undefined)
    problems.push(
      `${source.origin("basic.auth.credentials.source")} is SASL_INHERIT but no SASL credentials are configured`,
    );
  if (credentials !== undefined) {
    const at = credentials.indexOf(":");
    if (at <= 0) problems.push(`${source.origin(userInfoKey)} must be <user>:<password> (value not shown)`);
    else
      security.basicAuth = hide(
        { username: credentials.slice(0, at) } as { username: string; password: string },
        "password",
        credentials.slice(at + 1),
      );
  }
  const tls = tlsOptions(
    source,
    problems,
    {
      ca: ["schema.registry.ssl.ca.location", "schema.registry.ssl.truststore.location"],
      cert: "schema.registry.ssl.certificate.location",
      key: "schema.registry.ssl.key.location",
      keyPassword: "schema.registry.ssl.key.password",
    },
    false,
  );
  if (tls.ca !== undefined || tls.cert !== undefined) security.tls = tls;
  return security;
}

/** Reads the client configuration of `env`; every problem at once, as a ClientConfigError. */
export function loadClientConfig(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const problems: string[] = [];
  const { source, name, ignored } = sourceOf(env, problems);
  const protocolText = (source.get("security.protocol") ?? "PLAINTEXT").toUpperCase();
  const protocol = protocols.find((p) => p === protocolText);
  if (protocol === undefined)
    problems.push(
      `${source.origin("security.protocol")}=${JSON.stringify(protocolText)} must be one of ${protocols.join(", ")}`,
    );
  const usesSasl = protocol === "SASL_SSL" || protocol === "SASL_PLAINTEXT";
  const usesTls = protocol === "SSL" || protocol === "SASL_SSL";

  let sasl: SaslCredentials | undefined;
  const mechanismText = source.get("sasl.mechanism")?.toUpperCase();
  if (usesSasl) {
    const mechanism = mechanismText === undefined ? undefined : mechanisms[mechanismText];
    if (mechanismText === undefined)
      problems.push(`security.protocol ${protocol} needs sasl.mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)`);
    else if (mechanism === undefined)
      problems.push(
        `${source.origin("sasl.mechanism")}=${JSON.stringify(mechanismText)} is not supported: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512`,
      );
    const jaas = source.get("sasl.jaas.config");
    const fromJaas = jaas === undefined ? {} : jaasCredentials(jaas);
    if (jaas !== undefined && (fromJaas.username === undefined || fromJaas.password === undefined))
      problems.push(
        `${source.origin("sasl.jaas.config")} has no username="…" and password="…" options (value not shown)`,
      );
    const username = source.get("sasl.username") ?? fromJaas.username;
    const password = source.get("sasl.password") ?? fromJaas.password;
    if (username === undefined || password === undefined)
      problems.push(`security.protocol ${protocol} needs sasl.username and sasl.password (or sasl.jaas.config)`);
    if (mechanism !== undefined && username !== undefined && password !== undefined)
      sasl = hide({ mechanism, username } as SaslCredentials, "password", password);
  } else if (
    protocol !== undefined &&
    (mechanismText !== undefined ||
      source.get("sasl.username") !== undefined ||
      source.get("sasl.jaas.config") !== undefined)
  ) {
    problems.push(
      `SASL settings are given but security.protocol is ${protocol}: set security.protocol=SASL_SSL (or remove them)`,
    );
  }

  const ssl = usesTls
    ? tlsOptions(
        source,
        problems,
        {
          ca: ["ssl.ca.location", "ssl.ca.pem", "ssl.truststore.location"],
          cert: "ssl.certificate.location",
          key: "ssl.key.location",
          keyPassword: "ssl.key.password",
        },
        true,
      )
    : undefined;
  if (
    !usesTls &&
    protocol !== undefined &&
    (source.get("ssl.certificate.location") !== undefined || source.get("ssl.key.location") !== undefined)
  ) {
    problems.push(
      `a client certificate is given but security.protocol is ${protocol}: set security.protocol=SSL (or SASL_SSL)`,
    );
  }

  const registryUrl = source.get("schema.registry.url");
  const registry = registrySecurity(source, problems, sasl);
  if (problems.length > 0) throw new ClientConfigError(problems);
  const subject = subjectOf(ssl?.cert);
  const config: ClientConfig = {
    source: name,
    protocol: protocol as SecurityProtocol,
    registry,
    ignoredKeys: ignored,
    ...(ssl === undefined ? {} : { ssl }),
    ...(sasl === undefined ? {} : { sasl }),
    ...(sasl !== undefined
      ? { principal: `User:${sasl.username}` }
      : subject !== undefined
        ? { principal: `the certificate ${subject}` }
        : {}),
    ...(source.get("bootstrap.servers") === undefined ? {} : { bootstrapServers: source.get("bootstrap.servers") }),
    ...(registryUrl === undefined ? {} : { registryUrl }),
  };
  return config;
}

let processConfig: ClientConfig | undefined;

/**
 * This process's client configuration (read from process.env once). Clients built without an explicit
 * configuration use it, so one KAFKA_CLIENT_CONFIG governs every client of a process.
 */
export function processClientConfig(): ClientConfig {
  processConfig ??= loadClientConfig(process.env);
  return processConfig;
}

/** The problems of this environment's client configuration, one line each (empty when it is usable). */
export function clientConfigProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    loadClientConfig(env);
    return [];
  } catch (e) {
    if (e instanceof ClientConfigError) return e.problems;
    throw e;
  }
}
