"""W3 as a Starlette app: the card (Cache-Control max-age and ETag), JSON-RPC and HTTP+JSON, both protocol
versions, on a DatabaseTaskStore in a SQLite file, so tasks waiting for input survive a restart. With a gRPC
target, the card also names A2A's gRPC binding, which `grpc_server` serves on the same request handler."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import DatabaseTaskStore
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from starlette.applications import Starlette

from .card import JSONRPC_PATH, REST_PATH, w3_card
from .executor import ScriptedExecutor
from .follow_up_context import TaskContextRequestContextBuilder


@dataclass
class W3:
    app: Starlette
    handler: DefaultRequestHandler
    task_store: DatabaseTaskStore
    engine: AsyncEngine


def create_w3(base_url: str, db_path: str, card_max_age: int = 3600, grpc_target: str | None = None) -> W3:
    engine = create_async_engine(f"sqlite+aiosqlite:///{db_path}")
    task_store = DatabaseTaskStore(engine)
    card = w3_card(base_url, grpc_target)
    handler = DefaultRequestHandler(
        agent_executor=ScriptedExecutor(),
        task_store=task_store,
        agent_card=card,
        request_context_builder=TaskContextRequestContextBuilder(task_store),
    )
    routes = [
        *create_agent_card_routes(card, cache_control=f"public, max-age={card_max_age}"),
        *create_jsonrpc_routes(handler, JSONRPC_PATH, enable_v0_3_compat=True),
        *create_rest_routes(handler, enable_v0_3_compat=True, path_prefix=REST_PATH),
    ]

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await task_store.initialize()
        yield
        await engine.dispose()

    return W3(app=Starlette(routes=routes, lifespan=lifespan), handler=handler, task_store=task_store, engine=engine)

