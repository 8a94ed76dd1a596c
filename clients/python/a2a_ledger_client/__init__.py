"""a2a-ledger's client for orchestrators on the Python a2a-sdk: dispatch, follow up and ask for tasks while
recording every observation straight to the ledger's ingest API, ask the ledger's ``route`` which worker to
send a task to, and get a lost non-terminal task back as ``Indeterminate``, never as a failure."""

from .client import AGENT_CARD_PATH, FetchedCard, LedgerA2AClient, TaskMemory, Transport, ledger_headers_of, ledger_metadata_of
from .errors import CLIENT_ERROR_CODES, LedgerClientError
from .metadata import ATTEMPT_KEY, CORRELATION_ID_KEY, SKILL_ID_KEY
from .not_found_verdict import not_found_verdict
from .observations import Recording, summarize_part
from .recorder import ObservationRecorder, RecordingProblem, RecordingStats
from .results import GetTaskOutcome, Indeterminate, MessageAnswer, NotFoundOutcome, Purged, Refused, SendOutcome, TaskAnswer, UnknownTask
from .route import IneligibleWorker, LedgerRoute, RouteAnswer, RoutedWorker, VerifiedCard

__all__ = [
    "AGENT_CARD_PATH",
    "ATTEMPT_KEY",
    "CLIENT_ERROR_CODES",
    "CORRELATION_ID_KEY",
    "SKILL_ID_KEY",
    "FetchedCard",
    "GetTaskOutcome",
    "Indeterminate",
    "IneligibleWorker",
    "LedgerA2AClient",
    "LedgerClientError",
    "LedgerRoute",
    "MessageAnswer",
    "NotFoundOutcome",
    "ObservationRecorder",
    "Purged",
    "Recording",
    "RecordingProblem",
    "RecordingStats",
    "Refused",
    "RouteAnswer",
    "RoutedWorker",
    "SendOutcome",
    "TaskAnswer",
    "TaskMemory",
    "Transport",
    "UnknownTask",
    "VerifiedCard",
    "ledger_headers_of",
    "ledger_metadata_of",
    "not_found_verdict",
    "summarize_part",
]
