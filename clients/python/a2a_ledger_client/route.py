"""Asking the ledger before dispatching: the projector's ``GET /v1/route?skill=&state=&accept=`` (the workers
that could take a task, ranked the way R6 ranks, each with its reasons) and
``GET /v1/workers/:id/verified-card`` (the card in force with what the ledger verified in place of what it
advertises). Answers are checked for the documented shape (services/projector/README.md); anything else
is A2A_CLIENT_ROUTE_UNAVAILABLE, a 4xx with the projector's stable code is A2A_CLIENT_ROUTE_REFUSED."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from .errors import LedgerClientError


@dataclass(frozen=True)
class RoutedWorker:
    worker_id: str
    #: 1 for the worker R6 would command.
    rank: int
    reason: str
    verified_states: list[str]
    #: The verified output modes the orchestrator accepts.
    output_modes: list[str]
    policy: Any
    card_hash: str
    valid_from: str


@dataclass(frozen=True)
class IneligibleWorker:
    worker_id: str
    reason: str


@dataclass(frozen=True)
class RouteAnswer:
    skill_id: str | None
    state: str | None
    resume: bool
    needs: list[str]
    accept: list[str]
    at: str
    eligible_count: int
    ineligible_count: int
    workers: list[RoutedWorker]
    ineligible: list[IneligibleWorker]


@dataclass(frozen=True)
class VerifiedCard:
    worker_id: str
    card_hash: str
    valid_from: str
    #: The card to negotiate against: never a state or output mode the ledger did not verify.
    card: dict[str, Any]
    diff: list[dict[str, Any]]
    etag: str | None
    cache_control: str | None


def _strings(value: Any) -> list[str] | None:
    return value if isinstance(value, list) and all(isinstance(s, str) for s in value) else None


def _routed(v: Any) -> RoutedWorker | None:
    if not isinstance(v, dict):
        return None
    states, modes = _strings(v.get("verifiedStates")), _strings(v.get("outputModes"))
    if not (isinstance(v.get("workerId"), str) and isinstance(v.get("rank"), int) and not isinstance(v.get("rank"), bool) and isinstance(v.get("reason"), str) and states is not None and modes is not None and isinstance(v.get("cardHash"), str)):
        return None
    return RoutedWorker(v["workerId"], v["rank"], v["reason"], states, modes, v.get("policy"), v["cardHash"], str(v.get("validFrom", "")))


def parse_route_answer(body: Any) -> RouteAnswer:
    """The route answer, or A2A_CLIENT_ROUTE_UNAVAILABLE when it is not the documented shape."""
    bad = LedgerClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", "the route answer is not the documented shape", {"body": body})
    if not isinstance(body, dict) or not isinstance(body.get("workers"), list) or not isinstance(body.get("ineligible"), list):
        raise bad
    workers = [_routed(w) for w in body["workers"]]
    if any(w is None for w in workers):
        raise bad
    ineligible = []
    for w in body["ineligible"]:
        if not isinstance(w, dict) or not isinstance(w.get("workerId"), str):
            raise bad
        ineligible.append(IneligibleWorker(w["workerId"], str(w.get("reason", ""))))
    count = lambda key, default: body[key] if isinstance(body.get(key), int) else default  # noqa: E731
    return RouteAnswer(
        skill_id=body.get("skillId") if isinstance(body.get("skillId"), str) else None,
        state=body.get("state") if isinstance(body.get("state"), str) else None,
        resume=body.get("resume") is True,
        needs=_strings(body.get("needs")) or [],
        accept=_strings(body.get("accept")) or [],
        at=str(body.get("at", "")),
        eligible_count=count("eligibleCount", len(workers)),
        ineligible_count=count("ineligibleCount", len(ineligible)),
        workers=[w for w in workers if w is not None],
        ineligible=ineligible,
    )


class LedgerRoute:
    def __init__(self, projector_url: str, token: str | None = None, timeout: float = 10.0) -> None:
        self._base = projector_url.rstrip("/")
        self._token = token
        self._timeout = timeout

    async def route(self, skill_id: str | None = None, state: str | None = None, accept: list[str] | tuple[str, ...] = (), limit: int | None = None) -> RouteAnswer:
        """The eligible workers, best first (an empty list is an answer, with every worker's reason).
        ``state``: the task's last state (an interrupted state to resume); None for a new task."""
        query: dict[str, str] = {}
        if skill_id is not None:
            query["skill"] = skill_id
        if state is not None:
            query["state"] = state
        if accept:
            query["accept"] = ",".join(accept)
        if limit is not None:
            query["limit"] = str(limit)
        body, _ = await self._get("/v1/route" + (f"?{urlencode(query)}" if query else ""))
        return parse_route_answer(body)

    async def pick(self, skill_id: str | None = None, state: str | None = None, accept: list[str] | tuple[str, ...] = ()) -> tuple[RoutedWorker, RouteAnswer]:
        """The worker rank 1 names; A2A_CLIENT_NO_ELIGIBLE_WORKER (with the reasons) when none is eligible."""
        answer = await self.route(skill_id, state, accept)
        if not answer.workers:
            raise LedgerClientError("A2A_CLIENT_NO_ELIGIBLE_WORKER", f"no worker is eligible for skill {skill_id or '(none)'} in state {state or '(new task)'}", {"ineligible": answer.ineligible})
        return answer.workers[0], answer

    async def verified_card(self, worker_id: str) -> VerifiedCard:
        """The worker's verified card: what to negotiate against."""
        body, headers = await self._get(f"/v1/workers/{quote(worker_id, safe='')}/verified-card")
        if not isinstance(body, dict) or not isinstance(body.get("card"), dict) or not isinstance(body.get("cardHash"), str) or not isinstance(body.get("diff"), list):
            raise LedgerClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", "the verified card answer is not the documented shape", {"body": body})
        return VerifiedCard(
            worker_id=body["workerId"] if isinstance(body.get("workerId"), str) else worker_id,
            card_hash=body["cardHash"],
            valid_from=str(body.get("validFrom", "")),
            card=body["card"],
            diff=[d for d in body["diff"] if isinstance(d, dict)],
            etag=headers.get("etag"),
            cache_control=headers.get("cache-control"),
        )

    async def _get(self, path: str) -> tuple[Any, httpx.Headers]:
        headers = {"accept": "application/json"} | ({"authorization": f"Bearer {self._token}"} if self._token else {})
        try:
            async with httpx.AsyncClient(timeout=self._timeout) as http:
                response = await http.get(f"{self._base}{path}", headers=headers)
        except httpx.HTTPError as e:
            raise LedgerClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", f"the projector could not be reached: {type(e).__name__}: {e}") from e
        try:
            body = response.json()
        except ValueError:
            body = None
        if 400 <= response.status_code < 500 and isinstance(body, dict) and isinstance(body.get("code"), str):
            raise LedgerClientError("A2A_CLIENT_ROUTE_REFUSED", f"{response.status_code} {body['code']}: {body.get('message', body.get('error', ''))}", body)
        if response.status_code != 200:
            raise LedgerClientError("A2A_CLIENT_ROUTE_UNAVAILABLE", f"the projector answered HTTP {response.status_code}", {"status": response.status_code, "body": body})
        return body, response.headers
