"""``parler-desktop send``: post one message exactly once and print its seq.

The message goes through the durable outbox, like the window's: if this command is interrupted or
killed, the next ``send``, ``listen`` or window on the same home sends it (once). ``--client-id``
makes a retried command idempotent: the same id and text are never posted twice. TEXT ``-`` reads
the message from stdin. With ``--timeout SECONDS`` a message the hub has not taken by then (it is
down, say) stays queued and the command exits 3; exit 1 means it was not sent and will not be.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from parler_desktop.client.errors import SessionClosed
from parler_desktop.client.events import ConnectionState, OutboxChanged, OutboxItem, OutboxStatus, SessionEvent, StateChanged
from parler_desktop.client.headless import (
    CA_FILE_HELP, EXIT_FAILED, EXIT_OK, EXIT_USAGE, choose_hub_url, report, run_session, seconds, store_problem,
    trusted_ca,
)
from parler_desktop.client.session import HubSession
from parler_desktop.paths import Home
from parler_desktop.store import StoreError
from parler_desktop.cli.help_text import description

COMMAND = "send"
EXIT_QUEUED = 3  # saved in the outbox, not yet taken by the hub: a later send, listen or window sends it
QUEUED = "queued; it will be sent by the next send, listen or window on this home"
DONE = (OutboxStatus.SENT, OutboxStatus.FAILED, OutboxStatus.DISCARDED)


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("send", help="post a message (exactly once) and print its seq", description=description(__doc__))
    sub.add_argument("--hub", metavar="URL", default=argparse.SUPPRESS, help="the hub (default: $PARLER_HUB or the settings)")
    sub.add_argument("--ca-file", metavar="FILE", help=CA_FILE_HELP)
    sub.add_argument("--room", required=True, metavar="R", help="the room to post in")
    sub.add_argument("--client-id", metavar="ID", help="idempotency key: re-running with the same ID never posts twice")
    sub.add_argument("--mention", action="append", default=[], metavar="NAME", help="mention an agent (repeatable)")
    sub.add_argument(
        "--timeout", type=seconds, metavar="SECONDS",
        help="stop waiting for the hub after SECONDS: the message stays queued and the exit status is 3",
    )
    sub.add_argument("text", metavar="TEXT", help="the message; - reads it from stdin")
    sub.set_defaults(run=run)


async def send(
    session: HubSession, room: str, text: str, client_id: str | None, mentions: list[str], timeout: float | None = None
) -> int:
    """Post, then wait until the hub accepted (print the seq) or refused it for good, or until
    ``timeout`` seconds have passed (it stays queued: ``EXIT_QUEUED``)."""
    finished: asyncio.Future[OutboxItem | None] = asyncio.get_running_loop().create_future()
    wanted: list[str] = []

    def on_event(event: SessionEvent) -> None:
        if finished.done():
            return
        if isinstance(event, OutboxChanged) and event.item.client_id in wanted and event.item.status in DONE:
            finished.set_result(event.item)
        elif isinstance(event, StateChanged) and event.state is ConnectionState.AUTH_FAILED:
            finished.set_result(None)

    session.add_listener(on_event)
    try:
        item = await session.post(room, text, mentions=mentions, client_id=client_id)
    except StoreError as error:
        report(COMMAND, store_problem(error, session.hub_url))
        return EXIT_FAILED
    except (ValueError, SessionClosed) as error:
        report(COMMAND, str(error))
        return EXIT_FAILED
    wanted.append(item.client_id)
    try:
        async with asyncio.timeout(timeout):
            outcome = item if item.status in DONE else await finished
    except TimeoutError:
        report(COMMAND, f"not delivered within {timeout:g} s: {QUEUED}")
        return EXIT_QUEUED
    except asyncio.CancelledError:
        report(COMMAND, "interrupted: the message stays in the outbox and goes out with the next "
               "send, listen or window on this home")
        raise
    if outcome is None:
        return EXIT_FAILED  # the state line on stderr said why
    if outcome.status is OutboxStatus.SENT:
        print(outcome.seq, flush=True)
        return EXIT_OK
    reason = outcome.error or "discarded"
    code = f" ({outcome.error_code})" if outcome.error_code else ""
    report(COMMAND, f"not sent: {reason}{code}")
    return EXIT_FAILED


def run(args: argparse.Namespace) -> int:
    home = Home.resolve(args.home)
    try:
        hub_url = choose_hub_url(getattr(args, "hub", None), home)
        options = trusted_ca(args.ca_file)
    except ValueError as error:
        report(COMMAND, str(error))
        return EXIT_USAGE
    text = sys.stdin.read() if args.text == "-" else args.text

    async def body(session: HubSession) -> int:
        return await send(session, args.room, text, args.client_id, args.mention, args.timeout)

    return asyncio.run(
        run_session(COMMAND, home, hub_url, body, interrupted_status=EXIT_FAILED, sync_messages=False, **options)
    )
