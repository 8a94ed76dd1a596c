"""W3 as its own process:

    mesh/agent-py/.venv/bin/python -m w3 --port 41003 --db /path/w3.sqlite [--host 127.0.0.1] [--card-max-age 3600]

(run from mesh/agent-py). Logs JSON lines on stdout; the first is {"msg": "listening", "url": ...}.
SIGTERM and SIGINT stop it; the SQLite file keeps its tasks for the next start.
"""

import argparse
import json
import socket
import sys
import time

import uvicorn

from .server import create_app


def log(msg: str, **fields: object) -> None:
    print(json.dumps({"level": 30, "time": int(time.time() * 1000), "name": "W3", "msg": msg, **fields}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="w3")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--db", required=True, help="SQLite file of the task store (created when missing)")
    parser.add_argument("--card-max-age", type=int, default=3600)
    args = parser.parse_args()
    if not 0 <= args.port <= 65535 or args.card_max_age < 0:
        parser.error("--port must be 0-65535 and --card-max-age a whole number of seconds")

    # Bind first, so that port 0 yields a real port the card can name.
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    # Listening from here on: connections made before uvicorn serves wait in the backlog.
    sock.listen(2048)
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{port}"

    app = create_app(url, args.db, args.card_max_age)
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    log("listening", kind="w3", url=url, db=args.db)
    server.run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
