"""A2A's gRPC binding for W3 (`lf.a2a.v1.A2AService`), on a2a-sdk's GrpcHandler and grpcio's asyncio
server, cleartext, sharing W3's request handler (and so its task store) with the HTTP bindings. The port
is bound before the card is built, because the card names it."""

import grpc
from a2a.server.request_handlers import GrpcHandler, RequestHandler
from a2a.types import a2a_pb2_grpc


class W3GrpcServer:
    def __init__(self, host: str, port: int) -> None:
        self._server = grpc.aio.server()
        bind_host = f"[{host}]" if ":" in host else host
        self.port = self._server.add_insecure_port(f"{bind_host}:{port}")
        if self.port == 0:
            raise OSError(f"W3 could not listen for gRPC on {bind_host}:{port}")
        self.target = f"{bind_host}:{self.port}"

    async def start(self, handler: RequestHandler) -> None:
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), self._server)
        await self._server.start()

    async def stop(self) -> None:
        await self._server.stop(grace=1)
