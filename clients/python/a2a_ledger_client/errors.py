"""The client's own errors, each with a stable code (the same codes as the TypeScript client's). An A2A
answer, even an error, is never one of them: see results.py."""

from __future__ import annotations

from typing import Any, Literal

CLIENT_ERROR_CODES: dict[str, str] = {
    "A2A_CLIENT_CARD_UNAVAILABLE": "The worker's card could not be fetched or is not a JSON object.",
    "A2A_CLIENT_WORKER_UNREACHABLE": "The worker gave no answer (connection refused or reset, timeout): whether it took the message is unknown.",
    "A2A_CLIENT_MALFORMED_ANSWER": "The worker answered something that is not an A2A answer; the dispatch is recorded, the answer is in `__cause__`.",
    "A2A_CLIENT_BAD_REQUEST": "The call itself is invalid (an empty correlation id, say); nothing was sent.",
    "A2A_CLIENT_ROUTE_UNAVAILABLE": "The ledger's route or verified card could not be read (projector down, or an answer that is not the documented shape).",
    "A2A_CLIENT_ROUTE_REFUSED": "The projector refused the query with a stable code of its own (e.g. PROJECTOR_BAD_FILTER); `detail` holds it.",
    "A2A_CLIENT_NO_ELIGIBLE_WORKER": "route answered no eligible worker; `detail` holds each worker's reason.",
    "A2A_CLIENT_WORKER_NOT_KNOWN": "route chose a worker the caller gave no URL for.",
}

ClientErrorCode = Literal[
    "A2A_CLIENT_CARD_UNAVAILABLE",
    "A2A_CLIENT_WORKER_UNREACHABLE",
    "A2A_CLIENT_MALFORMED_ANSWER",
    "A2A_CLIENT_BAD_REQUEST",
    "A2A_CLIENT_ROUTE_UNAVAILABLE",
    "A2A_CLIENT_ROUTE_REFUSED",
    "A2A_CLIENT_NO_ELIGIBLE_WORKER",
    "A2A_CLIENT_WORKER_NOT_KNOWN",
]


class LedgerClientError(Exception):
    def __init__(self, code: ClientErrorCode, message: str, detail: Any = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.detail = detail
