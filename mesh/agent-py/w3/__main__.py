"""W3 as its own process:

    mesh/agent-py/.venv/bin/python -m w3 --port 21003 --db /path/w3.sqlite [--host 127.0.0.1] [--card-max-age 3600]
        [--grpc-port 21103]

(run from mesh/agent-py). Logs JSON lines on stdout; the first is {"msg": "listening", "url": ...} (with
"grpc": "host:port" when --grpc-port is given: A2A's gRPC binding on that port, 0 for a free one).
SIGTERM and SIGINT stop it; the SQLite file keeps its tasks for the next start.
"""

import argparse
import asyncio
import json
import socket
import sys
import time

import uvicorn

from .server import create_w3


def log(msg: str, **fields: object) -> None:
    print(json.dumps({"level": 30, "time": int(time.time() * 1000), "name": "W3", "msg": msg, **fields}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="w3")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--db", required=True, help="SQLite file of the task store (created when missing)")
    parser.add_argument("--card-max-age", type=int, default=3600)
    parser.add_argument("--grpc-port", type=int, default=None, help="also serve A2A's gRPC binding on this port (0: a free one)")
    args = parser.parse_args()
    if not 0 <= args.port <= 65535 or args.card_max_age < 0 or (args.grpc_port is not None and not 0 <= args.grpc_port <= 65535):
        parser.error("--port and --grpc-port must be 0-65535 and --card-max-age a whole number of seconds")

    # Bind first, so that port 0 yields a real port the card can name.
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    # Listening from here on: connections made before uvicorn serves wait in the backlog.
    sock.listen(2048)
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{port}"

    if args.grpc_port is None:
        w3 = create_w3(url, args.db, args.card_max_age)
        server = uvicorn.Server(uvicorn.Config(w3.app, log_level="warning", access_log=False, timeout_graceful_shutdown=2))
        log("listening", kind="w3", url=url, db=args.db)
        server.run(sockets=[sock])
        return
    asyncio.run(serve_with_grpc(sock, url, args))


async def serve_with_grpc(sock: socket.socket, url: str, args: argparse.Namespace) -> None:
    from .grpc_server import W3GrpcServer

    grpc_server = W3GrpcServer(args.host, args.grpc_port)
    w3 = create_w3(url, args.db, args.card_max_age, grpc_target=grpc_server.target)
    # The store serves gRPC before the HTTP app's lifespan would initialize it.
    await w3.task_store.initialize()
    await grpc_server.start(w3.handler)
    server = uvicorn.Server(uvicorn.Config(w3.app, log_level="warning", access_log=False, timeout_graceful_shutdown=2))
    log("listening", kind="w3", url=url, grpc=grpc_server.target, db=args.db)
    try:
        await server.serve(sockets=[sock])
    finally:
        await grpc_server.stop()


if __name__ == "__main__":
    sys.exit(main())
