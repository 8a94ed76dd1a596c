/**
 * The registry calls that @kafkajs/confluent-schema-registry does not make: per-subject
 * compatibility and compatibility checks, on the Confluent-compatible API.
 */
import { registryRequest, type RegistrySecurity } from "./registry-http.ts";

export type Compatibility = "BACKWARD" | "BACKWARD_TRANSITIVE" | "FORWARD" | "FULL" | "NONE";

const json = "application/vnd.schemaregistry.v1+json";

async function call(
  url: string,
  init: { method: string; body?: string },
  security: RegistrySecurity,
): Promise<{ status: number; body: unknown }> {
  const { status, text } = await registryRequest(
    url,
    { ...init, headers: { "content-type": json, accept: json }, timeoutMs: 15_000 },
    security,
  );
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status, body };
}

export async function setSubjectCompatibility(
  registryUrl: string,
  subject: string,
  compatibility: Compatibility,
  security: RegistrySecurity = {},
): Promise<void> {
  const { status, body } = await call(
    `${registryUrl}/config/${encodeURIComponent(subject)}`,
    { method: "PUT", body: JSON.stringify({ compatibility }) },
    security,
  );
  if (status !== 200)
    throw new Error(`setting ${compatibility} on ${subject} failed: HTTP ${status} ${JSON.stringify(body)}`);
}

export async function getSubjectCompatibility(
  registryUrl: string,
  subject: string,
  security: RegistrySecurity = {},
): Promise<string | undefined> {
  const { status, body } = await call(
    `${registryUrl}/config/${encodeURIComponent(subject)}`,
    { method: "GET" },
    security,
  );
  if (status === 404) return undefined;
  const level = (body as { compatibilityLevel?: string; compatibility?: string } | null) ?? {};
  return level.compatibilityLevel ?? level.compatibility;
}

export type CompatibilityVerdict =
  | { subject: string; verdict: "compatible" | "new" }
  | { subject: string; verdict: "incompatible"; messages: string[] };

/** Whether `schema` may become the next version of `subject` under the subject's rule. */
export async function checkCompatibility(
  registryUrl: string,
  subject: string,
  schema: string,
  security: RegistrySecurity = {},
): Promise<CompatibilityVerdict> {
  const { status, body } = await call(
    `${registryUrl}/compatibility/subjects/${encodeURIComponent(subject)}/versions/latest?verbose=true`,
    {
      method: "POST",
      body: JSON.stringify({ schemaType: "AVRO", schema }),
    },
    security,
  );
  if (status === 404) return { subject, verdict: "new" };
  if (status === 409 || status === 422) return { subject, verdict: "incompatible", messages: [JSON.stringify(body)] };
  if (status !== 200)
    throw new Error(`compatibility check of ${subject} failed: HTTP ${status} ${JSON.stringify(body)}`);
  const result = body as { is_compatible?: boolean; messages?: string[] };
  return result.is_compatible
    ? { subject, verdict: "compatible" }
    : { subject, verdict: "incompatible", messages: result.messages ?? [] };
}
