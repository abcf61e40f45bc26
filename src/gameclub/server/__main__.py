"""``python -m gameclub.server``: run the club (``--host``, ``--port``, ``--database``,
``--redis-url``)."""

from __future__ import annotations

import argparse

from gameclub.server.app import serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gameclub.server", description=__doc__)
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 8000)")
    parser.add_argument(
        "--database",
        help="database URL (default: env GAMECLUB_DATABASE_URL, else sqlite:///var/gameclub.db)",
    )
    parser.add_argument(
        "--redis-url",
        help="Redis URL (default: env GAMECLUB_REDIS_URL): one node of a club of several",
    )
    args = parser.parse_args(argv)
    serve(args.host, args.port, args.database, args.redis_url)


if __name__ == "__main__":
    main()
