"""A small client of the ledger's ingest API (``POST /v1/observations``): sends observations in the ingest
JSON shape, retries the same body (so the same eventIds) after a network failure, a 429 or a 5xx with a
doubling backoff that honours ``Retry-After``, and raises on any other 4xx with the server's code."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


class IngestRejectedError(Exception):
    def __init__(self, status: int, code: str, message: str, details: list[Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.details = details


class IngestUnavailableError(Exception):
    pass


class IngestClient:
    def __init__(self, base_url: str, token: str | None = None, max_retries: int = 8, initial_backoff: float = 0.2, max_backoff: float = 5.0, timeout: float = 30.0) -> None:
        self._url = base_url.rstrip("/") + "/v1/observations"
        self._headers = {"content-type": "application/json"} | ({"authorization": f"Bearer {token}"} if token else {})
        self._max_retries = max_retries
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._timeout = timeout

    async def send(self, observations: list[dict[str, Any]]) -> int:
        """Sends the observations as one batch; resolves with how many the ledger accepted."""
        backoff = self._initial_backoff
        last: str = "no attempt"
        async with httpx.AsyncClient(timeout=self._timeout) as client:
            for attempt in range(self._max_retries + 1):
                try:
                    response = await client.post(self._url, json=observations, headers=self._headers)
                except httpx.HTTPError as e:
                    last = f"{type(e).__name__}: {e}"
                else:
                    if response.status_code == 202:
                        return int(response.json().get("accepted", len(observations)))
                    if response.status_code != 429 and response.status_code < 500:
                        body = _json(response)
                        raise IngestRejectedError(response.status_code, str(body.get("code", body.get("error", ""))), str(body.get("message", body.get("error", ""))), list(body.get("details", [])))
                    last = f"HTTP {response.status_code}"
                    retry_after = response.headers.get("retry-after", "")
                    if retry_after.isdigit():
                        backoff = max(backoff, min(float(retry_after), 60.0))
                if attempt < self._max_retries:
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, self._max_backoff)
        raise IngestUnavailableError(f"the ledger did not acknowledge {len(observations)} observation(s) after {self._max_retries + 1} attempts: {last}")


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
