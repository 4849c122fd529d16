"""``parler-desktop listen``: follow rooms from a terminal or a script; never moves your cursor.

It prints every message once per home: what an earlier ``listen`` on the same home printed is not
printed again, so a script that restarts resumes where it stopped; messages the window stored
are printed all the same. (A line printed live is recorded a moment later, by the next drain:
a ``listen`` killed, or stopped by a signal, within that moment prints it again next time.)

On a terminal each message is one readable line (control characters stripped, so hostile text
cannot drive the terminal); otherwise, or with ``--json``, one JSON object per line (NDJSON, pure
ASCII). Connection state goes to stderr. ``--once`` exits after catching up and after the hub
has taken (or refused) every message waiting in this home's outbox; SIGINT/SIGTERM exit 0; an
identity or join secret the hub rejects, ``--max-retries`` failed reconnects, a full disk or a
damaged cache exit 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from parler_desktop.client.clock import SystemClock, wait_or_timeout
from parler_desktop.client.events import (
    ConnectionState,
    MessagesArrived,
    MessagesStored,
    OutboxChanged,
    OutboxStatus,
    SessionEvent,
    StateChanged,
)
from parler_desktop.client.feed import StoreFeed
from parler_desktop.client.headless import (
    CA_FILE_HELP, EXIT_FAILED, EXIT_OK, EXIT_USAGE, choose_hub_url, report, run_session, trusted_ca,
)
from parler_desktop.client.session import HubSession
from parler_desktop.identity import verify_signature
from parler_desktop.paths import Home
from parler_desktop.protocol.canonical import verify_message
from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.protocol.readable import readable
from parler_desktop.protocol.values import SignatureState, StoredMessage
from parler_desktop.store import LocalStore
from parler_desktop.cli.help_text import description

COMMAND = "listen"
STORE_POLL_SECS = 1.0  # how soon messages stored by another process on the home are printed

_BADGES = {SignatureState.VALID: "", SignatureState.UNSIGNED: "⚠ ", SignatureState.INVALID: "✗ UNVERIFIED "}


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("listen", help="print messages as they arrive", description=description(__doc__))
    sub.add_argument("--hub", metavar="URL", default=argparse.SUPPRESS, help="the hub (default: $PARLER_HUB or the settings)")
    sub.add_argument("--ca-file", metavar="FILE", help=CA_FILE_HELP)
    sub.add_argument("--room", action="append", default=[], metavar="R", help="only this room (repeatable)")
    sub.add_argument("--json", action="store_true", help="NDJSON output even on a terminal")
    sub.add_argument("--once", action="store_true", help="exit after catching up and sending what the outbox holds")
    sub.add_argument("--max-retries", type=int, metavar="N", help="exit 1 after N failed reconnects in a row")
    sub.set_defaults(run=run)


def terminal_safe(text: str) -> str:
    return readable(text.replace("\r\n", "\n"))


def message_text(message: StoredMessage) -> str:
    """The text parts joined; a message without text shows its part kinds."""
    if message.text:
        return message.text
    kinds = [part.get("kind", "?") for part in message.parts if part.get("kind") != SIG_KIND]
    return " ".join(f"[{kind}]" for kind in kinds)


def readable_line(message: StoredMessage, signature: SignatureState) -> str:
    clock = time.strftime("%H:%M:%S", time.localtime(message.ts / 1000))
    head = f"[{message.room}] #{message.seq} {clock} {_BADGES[signature]}{message.sender.name}: "
    body = message_text(message).replace("\n", "\n" + " " * 4)
    return terminal_safe(head + body)


def message_object(message: StoredMessage, signature: SignatureState) -> dict[str, Any]:
    sender: dict[str, Any] = {"id": message.sender.id, "name": message.sender.name}
    if message.sender.role is not None:
        sender["role"] = message.sender.role
    obj: dict[str, Any] = {
        "seq": message.seq,
        "room": message.room,
        "id": message.id,
        "from": sender,
        "ts": message.ts,
        "text": message.text,
        "signature": signature.value,
        "parts": [part for part in message.parts if part.get("kind") != SIG_KIND],
    }
    if message.mentions:
        obj["mentions"] = list(message.mentions)
    if message.reply_to is not None:
        obj["replyTo"] = message.reply_to
    return obj


class MessagePrinter:
    """Writes messages in the chosen format; False once the reader is gone."""

    def __init__(self, out: TextIO, *, as_json: bool, my_id: str) -> None:
        self._out = out
        self._as_json = as_json
        self._my_id = my_id

    def write(self, message: StoredMessage) -> bool:
        signature = message.signature or verify_message(message, verify_signature, self._my_id)  # the store checked it
        if self._as_json:
            line = json.dumps(message_object(message, signature), ensure_ascii=True, separators=(",", ":"))
        else:
            line = readable_line(message, signature)
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except BrokenPipeError:
            return False
        return True


async def listen(
    session: HubSession, printer: MessagePrinter, *, rooms: Sequence[str], once: bool, max_retries: int | None
) -> int:
    """Print what the store gains (from this session or any other process on the home)."""
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    wake = asyncio.Event()
    caught_up = False
    live = False  # the session is live: until then (catching up) lines above a sync mark wait

    def finish(status: int) -> None:
        if not finished.done():
            finished.set_result(status)
        wake.set()

    def on_event(event: SessionEvent) -> None:
        nonlocal caught_up, live
        if isinstance(event, MessagesArrived):
            # A push is printed as it is read, before it is stored (client/feed.py says why that
            # keeps each message printed once, in order); the drain its write wakes records it.
            if live and not feed.feed_live(event.messages, rooms):
                finish(EXIT_OK)  # the reader went away
        elif isinstance(event, MessagesStored):
            # Live, what this process stored is printed at once (unless it was printed as it
            # arrived); the drain that follows (it skips those) prints the rest in order and
            # remembers how far the home has been fed.
            if not event.live:
                feed.stored_behind(event.room)  # a catch-up: the drain prints it, in order
            elif live and not feed.feed_live(event.messages, rooms):
                finish(EXIT_OK)  # the reader went away
            wake.set()
        elif isinstance(event, OutboxChanged):
            wake.set()
        elif isinstance(event, StateChanged):
            live = event.state is ConnectionState.LIVE
            if event.state is ConnectionState.AUTH_FAILED:
                finish(EXIT_FAILED)
            elif event.state in (ConnectionState.BACKING_OFF, ConnectionState.OFFLINE):
                if max_retries is not None and event.attempt > max_retries:
                    report(COMMAND, f"giving up after {max_retries} retries")
                    finish(EXIT_FAILED)
            elif event.state is ConnectionState.LIVE:
                caught_up = True
                wake.set()

    def skipped(room: str) -> None:
        report(COMMAND, f"the hub skipped seqs in {room} and never sent them; a message filling one later is not printed")

    feed = StoreFeed(session.store, printer.write, skipped)
    session.add_listener(on_event)
    clock = SystemClock()
    while not finished.done():
        await wait_or_timeout(wake, clock, STORE_POLL_SECS)  # also notices other processes' writes
        wake.clear()
        was_caught_up = caught_up
        if not await feed.drain(rooms or None, ahead=live):
            finish(EXIT_OK)  # the reader went away (e.g. `| head`)
        elif once and was_caught_up and feed.all_recorded():
            if not await session.store.call(LocalStore.outbox_items, [OutboxStatus.PENDING]):
                finish(EXIT_OK)  # caught up, every line printed recorded, and the outbox drained
    return finished.result()


def run(args: argparse.Namespace) -> int:
    home = Home.resolve(args.home)
    if args.max_retries is not None and args.max_retries < 0:
        report(COMMAND, "--max-retries must be 0 or more")
        return EXIT_USAGE
    try:
        hub_url = choose_hub_url(getattr(args, "hub", None), home)
        options = trusted_ca(args.ca_file)
    except ValueError as error:
        report(COMMAND, str(error))
        return EXIT_USAGE
    as_json = args.json or not sys.stdout.isatty()

    async def body(session: HubSession) -> int:
        printer = MessagePrinter(sys.stdout, as_json=as_json, my_id=session.agent_id)
        return await listen(session, printer, rooms=args.room, once=args.once, max_retries=args.max_retries)

    return asyncio.run(run_session(COMMAND, home, hub_url, body, **options))
