/**
 * Asking the ledger before dispatching: the projector's `GET /v1/route?skill=&state=&accept=` (the
 * workers that could take a task, ranked the way R6 ranks, each with its reasons) and
 * `GET /v1/workers/:id/verified-card` (the card in force with what the ledger verified in place of what
 * it advertises). Answers are checked for the documented shape; anything else is
 * A2A_CLIENT_ROUTE_UNAVAILABLE, a 4xx with the projector's stable code is A2A_CLIENT_ROUTE_REFUSED.
 */
import type { TaskState } from "@a2a-ledger/schemas";
import { A2AClientError } from "./errors.ts";

export interface RouteRequest {
  /** Null or absent: a dispatch without a skill. */
  skillId?: string | null;
  /** The task's last state (an interrupted state to resume); absent for a new task. */
  state?: TaskState | null;
  /** The media ranges the orchestrator accepts; empty or absent: any. */
  accept?: readonly string[];
  limit?: number;
}

export interface RoutedWorker {
  workerId: string;
  /** 1 for the worker R6 would command. */
  rank: number;
  reason: string;
  verifiedStates: string[];
  outputModes: string[];
  policy: unknown;
  cardHash: string;
  validFrom: string;
}

export interface IneligibleWorker {
  workerId: string;
  reason: string;
}

export interface RouteAnswer {
  skillId: string | null;
  state: string | null;
  resume: boolean;
  needs: string[];
  accept: string[];
  at: string;
  eligibleCount: number;
  ineligibleCount: number;
  workers: RoutedWorker[];
  ineligible: IneligibleWorker[];
}

export interface VerifiedCard {
  workerId: string;
  cardHash: string;
  validFrom: string;
  /** The card to negotiate against: never a state or output mode the ledger did not verify. */
  card: Record<string, unknown>;
  diff: { path: string; before?: unknown; after?: unknown; evidence?: unknown }[];
  etag: string | null;
  cacheControl: string | null;
}

export interface LedgerRouteOptions {
  /** The projector, e.g. http://127.0.0.1:18095 */
  projectorUrl: string;
  /** A read token of A2A_LEDGER_PROJECTOR_TOKENS, when the projector wants one. */
  token?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

function isRoutedWorker(v: unknown): v is RoutedWorker {
  return (
    isRecord(v) &&
    typeof v["workerId"] === "string" &&
    typeof v["rank"] === "number" &&
    typeof v["reason"] === "string" &&
    isStringArray(v["verifiedStates"]) &&
    isStringArray(v["outputModes"]) &&
    typeof v["cardHash"] === "string"
  );
}

function isRouteAnswer(v: unknown): v is RouteAnswer {
  return (
    isRecord(v) &&
    Array.isArray(v["workers"]) &&
    v["workers"].every(isRoutedWorker) &&
    Array.isArray(v["ineligible"]) &&
    v["ineligible"].every((w) => isRecord(w) && typeof w["workerId"] === "string")
  );
}

export class LedgerRoute {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: LedgerRouteOptions) {
    this.base = options.projectorUrl.replace(/\/+$/, "");
    this.doFetch = options.fetch ?? globalThis.fetch;
  }

  /** The eligible workers, best first (an empty list is an answer, with every worker's reason). */
  async route(request: RouteRequest): Promise<RouteAnswer> {
    const query = new URLSearchParams();
    if (request.skillId != null) query.set("skill", request.skillId);
    if (request.state != null) query.set("state", request.state);
    if (request.accept !== undefined && request.accept.length > 0) query.set("accept", request.accept.join(","));
    if (request.limit !== undefined) query.set("limit", String(request.limit));
    const { body } = await this.get(`/v1/route${query.size > 0 ? `?${query}` : ""}`);
    if (!isRouteAnswer(body))
      throw new A2AClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", "the route answer is not the documented shape", {
        body,
      });
    return body;
  }

  /** The worker rank 1 names; A2A_CLIENT_NO_ELIGIBLE_WORKER (with the reasons) when none is eligible. */
  async pick(request: RouteRequest): Promise<{ chosen: RoutedWorker; answer: RouteAnswer }> {
    const answer = await this.route(request);
    const chosen = answer.workers[0];
    if (chosen === undefined)
      throw new A2AClientError(
        "A2A_CLIENT_NO_ELIGIBLE_WORKER",
        `no worker is eligible for skill ${request.skillId ?? "(none)"} in state ${request.state ?? "(new task)"}`,
        { ineligible: answer.ineligible },
      );
    return { chosen, answer };
  }

  /** The worker's verified card: what to negotiate against. */
  async verifiedCard(workerId: string): Promise<VerifiedCard> {
    const { body, headers } = await this.get(`/v1/workers/${encodeURIComponent(workerId)}/verified-card`);
    if (
      !isRecord(body) ||
      !isRecord(body["card"]) ||
      typeof body["cardHash"] !== "string" ||
      !Array.isArray(body["diff"])
    ) {
      throw new A2AClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", "the verified card answer is not the documented shape", {
        body,
      });
    }
    return {
      workerId: typeof body["workerId"] === "string" ? body["workerId"] : workerId,
      cardHash: body["cardHash"],
      validFrom: typeof body["validFrom"] === "string" ? body["validFrom"] : String(body["validFrom"]),
      card: body["card"],
      diff: body["diff"] as VerifiedCard["diff"],
      etag: headers.get("etag"),
      cacheControl: headers.get("cache-control"),
    };
  }

  private async get(path: string): Promise<{ body: unknown; headers: Headers }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.options.token !== undefined) headers["authorization"] = `Bearer ${this.options.token}`;
    let response: Response;
    try {
      response = await this.doFetch(`${this.base}${path}`, {
        headers,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (e) {
      throw new A2AClientError(
        "A2A_CLIENT_ROUTE_UNAVAILABLE",
        `${this.base}${path}: ${e instanceof Error ? e.message : String(e)}`,
        undefined,
        { cause: e },
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new A2AClientError(
        "A2A_CLIENT_ROUTE_UNAVAILABLE",
        `${path} answered ${response.status} with a body that is not JSON`,
        { status: response.status, body: text.slice(0, 300) },
      );
    }
    if (response.status >= 400 && response.status < 500 && isRecord(body) && typeof body["code"] === "string") {
      throw new A2AClientError("A2A_CLIENT_ROUTE_REFUSED", `${path} answered ${response.status} ${body["code"]}`, {
        status: response.status,
        code: body["code"],
        body,
      });
    }
    if (response.status !== 200)
      throw new A2AClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", `${path} answered ${response.status}`, {
        status: response.status,
        body,
      });
    return { body, headers: response.headers };
  }
}
