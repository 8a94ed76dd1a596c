"""a2a-ledger's worker guard for the Python a2a-sdk: a worker enforces its card at emission, and the ledger
hears of every refusal."""

from .check import Emission, PartSummary, Refusal, check_emission
from .guard import GUARD_CARD_UNAVAILABLE, GUARD_OUTPUT_MODE_NOT_ADVERTISED, GUARD_STATE_NOT_ADVERTISED, EmissionRefusedError, WorkerGuard, scope_of
from .ingest import IngestClient, IngestRejectedError, IngestUnavailableError

__all__ = [
    "GUARD_CARD_UNAVAILABLE",
    "GUARD_OUTPUT_MODE_NOT_ADVERTISED",
    "GUARD_STATE_NOT_ADVERTISED",
    "Emission",
    "EmissionRefusedError",
    "IngestClient",
    "IngestRejectedError",
    "IngestUnavailableError",
    "PartSummary",
    "Refusal",
    "WorkerGuard",
    "check_emission",
    "scope_of",
]
