"""``parler-desktop hub``: run a Parler hub in the foreground.

Once it accepts connections it prints exactly one line, its WebSocket URL, to stdout (so scripts
and tests can read it); logs go to stderr. SIGINT/SIGTERM stop it cleanly with exit status 0.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
import asyncio
import errno
import logging
import secrets
import sys
from pathlib import Path

from parler_desktop.atomic_file import write_atomically
from parler_desktop.hub import Hub, HubConfig, HubDatabaseError, HubLimits
from parler_desktop.hub.event_loop import run_hub_loop
from parler_desktop.paths import Home
from parler_desktop.protocol.trim import trim
from parler_desktop.cli.help_text import description
from parler_desktop.stop_signals import calling_on_signals

EXIT_RUNTIME = 1
EXIT_USAGE = 2
SECRET_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789"  # no 0/O, 1/I/l
SECRET_LENGTH = 32


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("hub", help="run a local Parler hub", description=description(__doc__))
    sub.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sub.add_argument("--port", type=int, default=7070, help="port to bind; 0 picks a free port (default 7070)")
    sub.add_argument("--db", type=Path, help="hub database file (default: under the data dir of --home)")
    sub.add_argument("--blob-dir", type=Path, help="where blob bytes are kept (default: beside the database)")
    sub.add_argument(
        "--join-secret-file",
        type=Path,
        help="require agents to present the secret in this file (created with a new secret if missing or empty)",
    )
    sub.add_argument("--public-url", help="base of invite links (default parler://HOST:PORT)")
    sub.add_argument("--name", default=HubConfig.name, help="hub display name")
    sub.add_argument(
        "--relaxed-limits",
        action="store_true",
        help="lift the per-agent/room rate budgets (a single-user local hub); size caps stay",
    )
    sub.add_argument(
        "--max-blob-bytes",
        type=int,
        default=HubLimits.max_blob_bytes,
        help=f"largest file (blob) the hub accepts, in bytes (default {HubLimits.max_blob_bytes // (1 << 20)} MiB, as the reference hub's)",
    )
    sub.add_argument("--verbose", action="store_true", help="log each connection to stderr")
    sub.set_defaults(run=run)


def read_join_secret(path: Path) -> bytes:
    """The hub's join secret from ``path``, as the reference hub resolves its secret file.

    Surrounding whitespace is trimmed; a missing or blank file gets a fresh secret (32 characters
    without look-alikes), written owner-only, so a private hub needs no setup. A file that exists
    but cannot be read is an error (raised as ValueError): it is never overwritten.
    """
    try:
        secret = trim(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        secret = ""
    except OSError as exc:
        raise ValueError(f"cannot read join secret file {path}: {exc.strerror}") from exc
    except UnicodeDecodeError:
        raise ValueError(f"join secret file {path} is not UTF-8 text") from None
    if not secret:
        secret = "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_LENGTH))
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomically(path, f"{secret}\n".encode())
        except OSError as exc:
            raise ValueError(f"cannot write a new join secret to {path}: {exc.strerror}") from exc
        print(f"parler-desktop hub: wrote a new join secret to {path}; agents must present it", file=sys.stderr)
    return secret.encode()


def build_config(args: argparse.Namespace) -> HubConfig:
    db = args.db
    if db is None:
        hub_dir = Home.resolve(args.home).embedded_hub_dir
        hub_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        db = hub_dir / "hub.sqlite3"
    if args.max_blob_bytes < 1:
        raise ValueError(f"--max-blob-bytes must be at least 1, not {args.max_blob_bytes}")
    limits = HubLimits().relaxed() if args.relaxed_limits else HubLimits()
    limits = replace(  # a file as large as the limit must fit in the uploads' reserved bytes
        limits,
        max_blob_bytes=args.max_blob_bytes,
        upload_reservation_pool_bytes=max(limits.upload_reservation_pool_bytes, args.max_blob_bytes),
    )
    secret_file = args.join_secret_file
    return HubConfig(
        db_path=db,
        blob_dir=args.blob_dir,
        host=args.host,
        port=args.port,
        join_secret=read_join_secret(secret_file) if secret_file is not None else None,
        public_url=args.public_url,
        name=args.name,
        limits=limits,
    )


async def serve_until_signalled(config: HubConfig) -> None:
    hub = Hub(config)
    await hub.start()
    stop = asyncio.Event()
    try:
        with calling_on_signals(stop.set):
            print(hub.url, flush=True)  # once a SIGTERM stops it cleanly: whoever read it may send one at once
            await stop.wait()
    finally:
        await hub.stop()


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    if not 0 <= args.port <= 65535:
        print(f"parler-desktop hub: --port must be 0..65535, not {args.port}", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = build_config(args)
    except ValueError as exc:
        print(f"parler-desktop hub: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        run_hub_loop(serve_until_signalled(config))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(f"parler-desktop hub: port {args.port} on {args.host} is already in use", file=sys.stderr)
        else:
            print(f"parler-desktop hub: cannot start: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_RUNTIME
    except HubDatabaseError as exc:
        print(f"parler-desktop hub: {exc}", file=sys.stderr)
        return EXIT_RUNTIME
    except KeyboardInterrupt:
        pass
    return 0
