"""W3's Agent Card: a second vendor that declares INPUT_REQUIRED, a durable task store (true: its tasks
live in SQLite) and text/plain answers, with the ledger's lifecycle extension."""

from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentProvider,
    AgentSkill,
)

LIFECYCLE_EXTENSION_URI = "urn:a2a-ledger:ext:task-lifecycle:v1"
MESH_SKILL_ID = "answer"
JSONRPC_PATH = "/a2a/jsonrpc"
REST_PATH = "/a2a/rest"

STATES = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_FAILED",
]


def w3_card(base_url: str, grpc_target: str | None = None) -> AgentCard:
    """The card; with `grpc_target` (host:port) it also names the gRPC interface (v1.0 only)."""
    interfaces = []
    for version in ("1.0", "0.3"):
        interfaces.append(AgentInterface(url=f"{base_url}{JSONRPC_PATH}", protocol_binding="JSONRPC", protocol_version=version))
        interfaces.append(AgentInterface(url=f"{base_url}{REST_PATH}", protocol_binding="HTTP+JSON", protocol_version=version))
        if grpc_target is not None and version == "1.0":
            interfaces.append(AgentInterface(url=grpc_target, protocol_binding="GRPC", protocol_version=version))
    return AgentCard(
        name="W3",
        description="Answers questions; asks for missing input when needed and keeps waiting tasks across restarts. Plain-text answers.",
        version="1.0.0",
        supported_interfaces=interfaces,
        provider=AgentProvider(organization="Contoso Python Agents", url="https://contoso.example"),
        capabilities=AgentCapabilities(
            streaming=True,
            push_notifications=False,
            extended_agent_card=False,
            extensions=[
                AgentExtension(
                    uri=LIFECYCLE_EXTENSION_URI,
                    description="Task lifecycle contract: the states this worker emits and how it keeps tasks.",
                    required=False,
                    params={"states": STATES, "taskStore": "durable"},
                )
            ],
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id=MESH_SKILL_ID,
                name="Answer",
                description="Answers a question.",
                tags=["qa"],
                examples=["what is a ledger?", "need-input draft a report"],
                input_modes=["text/plain"],
                output_modes=["text/plain"],
            )
        ],
    )
