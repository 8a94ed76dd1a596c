"""Asking the ledger before dispatching, run by test/route.test.ts against the real pipeline (ingest, the
reconciler and the projector on a private topic set). The client connects to W1 and W3 (recording their
cards), prints ``{"await": "probes"}`` and waits for ``probed`` on stdin while the test records a probe of
each; then it asks ``route`` for a task waiting for input, reads the chosen worker's verified card,
dispatches to it, and prints one JSON line per case.

Environment: INGEST_URL, PROJECTOR_URL, W1_URL, W3_URL.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from a2a_ledger_client import LedgerA2AClient, LedgerClientError, LedgerRoute, ObservationRecorder, TaskAnswer

OBSERVER = "orchestrator:py-route"


def emit(case: str, **fields: Any) -> None:
    print(json.dumps({"case": case, **fields}), flush=True)


async def refused(call) -> dict[str, Any]:
    try:
        await call
    except LedgerClientError as e:
        return {"error": e.code, "detail": json.loads(json.dumps(e.detail, default=vars)) if isinstance(e.detail, dict) else None}
    return {"error": None}


async def main() -> None:
    recorder = ObservationRecorder.to_ingest(os.environ["INGEST_URL"])
    urls = {"W1": os.environ["W1_URL"], "W3": os.environ["W3_URL"]}
    clients = {w: await LedgerA2AClient.connect(w, url, OBSERVER, recorder) for w, url in urls.items()}
    await recorder.flush(30)
    print(json.dumps({"await": "probes"}), flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if line.strip() != "probed":
        raise SystemExit(f"expected 'probed', got {line!r}")

    route = LedgerRoute(os.environ["PROJECTOR_URL"])
    answer = await route.route(skill_id="answer", state="input-required", accept=["text/plain"])
    emit("route", resume=answer.resume, workers=[[w.worker_id, w.rank, w.verified_states, w.output_modes] for w in answer.workers], ineligible=[[w.worker_id, w.reason] for w in answer.ineligible])
    chosen, _ = await route.pick(skill_id="answer", accept=["text/plain"])
    card = await route.verified_card(chosen.worker_id)
    emit("verified-card", workerId=card.worker_id, cardHash=card.card_hash, clientCardHash=clients[chosen.worker_id].card.hash, outputModes=[s.get("outputModes") for s in card.card.get("skills", [])], etag=card.etag, cacheControl=card.cache_control)
    sent = await clients[chosen.worker_id].dispatch("py-routed", "what is a ledger?", chosen.output_modes, skill_id="answer")
    assert isinstance(sent, TaskAnswer)
    emit("dispatched", workerId=sent.worker_id, state=sent.state)
    emit("none-eligible", **(await refused(route.pick(skill_id="translate"))))
    emit("bad-filter", **(await refused(route.route(skill_id="answer", state="failed"))))
    emit("unknown-worker", **(await refused(route.verified_card("nobody"))))
    emit("projector-down", **(await refused(LedgerRoute("http://127.0.0.1:9").route(skill_id="answer"))))
    stats = await recorder.close(30)
    emit("summary", recorded=stats.recorded, pending=stats.pending)
    for c in clients.values():
        await c.close()


if __name__ == "__main__":
    asyncio.run(main())
