"""What the headless commands (``listen``, ``send``, ``join``) share: choosing the hub, running a
session until done or signalled, and one-line state reports for stderr."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from parler_desktop.client.address import normalize_hub_url
from parler_desktop.client.events import ConnectionState, Notice, SessionEvent, StateChanged, StoreFailed
from parler_desktop.client.session import HubSession
from parler_desktop.client.tls import check_ca_file
from parler_desktop.disk_errors import os_error_text
from parler_desktop.identity import KeyFileError
from parler_desktop.logs import STDERR_FORMAT, EscapingFormatter
from parler_desktop.paths import Home
from parler_desktop.protocol.readable import escaped
from parler_desktop.settings import load_settings
from parler_desktop.stop_signals import calling_on_signals
from parler_desktop.store import StoreError

HUB_ENV = "PARLER_HUB"
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
CA_FILE_HELP = "for a wss:// hub with a private certificate authority: trust only this CA file (PEM)"


def seconds(text: str) -> float:
    """A ``--timeout`` (an argparse type): a number of seconds more than 0."""
    try:
        if (value := float(text)) > 0:  # (not NaN)
            return value
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds more than 0")


def choose_hub_url(explicit: str | None, home: Home, *, from_link: str | None = None) -> str:
    """``--hub``, else the hub an invite link names, else ``$PARLER_HUB``, else the settings'.

    Raises ValueError when there is none (the embedded hub belongs to the window) or it is empty.
    """
    for candidate in (explicit, from_link, os.environ.get(HUB_ENV), load_settings(home.settings_file).settings.hub_url):
        if candidate:
            return normalize_hub_url(candidate)
    raise ValueError(f"no hub given: pass --hub URL or set {HUB_ENV}")


def trusted_ca(ca_file: str | None) -> dict[str, str]:
    """``--ca-file`` as session options, checked now so that a bad file is a usage error."""
    if ca_file is None:
        return {}
    check_ca_file(ca_file)
    return {"ca_file": ca_file}


def describe_state(event: StateChanged) -> str:
    """One line for a terminal: what the connection is doing and, if waiting, for how long."""
    where = event.hub_url
    state = event.state
    if state is ConnectionState.OFFLINE and event.retry_at is None:
        return f"offline: {event.detail}"
    if state in (ConnectionState.BACKING_OFF, ConnectionState.OFFLINE):
        wait = max(0.0, (event.retry_at or time.time()) - time.time())
        label = "offline: " if state is ConnectionState.OFFLINE else ""
        return f"{label}{event.detail}; retrying in {wait:.1f} s (attempt {event.attempt})"
    if state is ConnectionState.AUTH_FAILED:
        return f"not allowed on {where}: {event.detail}"
    if state is ConnectionState.CONNECTING:
        return f"connecting to {where}"
    return state.value


def report(command: str, text: str) -> None:
    """One line on stderr; what the hub or a peer said in ``text`` is escaped (control bytes
    would drive the terminal)."""
    print(f"parler-desktop {command}: {escaped(text)}", file=sys.stderr, flush=True)


def log_to_stderr() -> None:
    """Warnings to stderr, one escaped line each (``logs.EscapingFormatter``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter(STDERR_FORMAT))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def store_problem(error: StoreError, hub_url: str) -> str:
    """A store error for a terminal, with the command that gets out of a damaged cache."""
    if not error.fresh_cache_fixes:
        return str(error)
    return f"{error} From a terminal: parler-desktop fresh-cache --hub {hub_url} (with the same --home)."


def stderr_reporter(
    command: str, hub_url: str, on_store_failed: Callable[[], None] = lambda: None
) -> Callable[[SessionEvent], None]:
    """A listener printing state changes (not repeats), notices and the first store failure (it
    ends the command; a later one, e.g. the command's own write, would only repeat it) to stderr."""
    last: list[ConnectionState] = []
    reported_failure: list[StoreFailed] = []

    def on_event(event: SessionEvent) -> None:
        if isinstance(event, StoreFailed):
            if reported_failure:
                return
            reported_failure.append(event)
            last[:] = [ConnectionState.OFFLINE]  # its OFFLINE state would only repeat the error
            report(command, store_problem(event.error, hub_url))
            on_store_failed()
        elif isinstance(event, StateChanged) and (not last or event.state is not last[-1] or event.retry_at):
            last[:] = [event.state]
            report(command, describe_state(event))
        elif isinstance(event, Notice):
            report(command, event.text)

    return on_event


Body = Callable[[HubSession], Awaitable[int]]


async def run_session(
    command: str, home: Home, hub_url: str, body: Body, *, interrupted_status: int = EXIT_OK, **session_kwargs: Any
) -> int:
    """Open the home's session on ``hub_url``, start it, and run ``body(session)`` until it
    returns an exit status, or SIGINT/SIGTERM arrives (then ``interrupted_status``); close all."""
    log_to_stderr()
    try:
        session = await HubSession.open(home, hub_url, store_on_loop=True, **session_kwargs)
    except StoreError as error:
        report(command, store_problem(error, hub_url))
        return EXIT_FAILED
    except OSError as error:
        report(command, os_error_text(error))
        return EXIT_FAILED
    except (KeyFileError, ValueError) as error:
        report(command, str(error))
        return EXIT_FAILED
    stop = asyncio.Event()
    store_failed = asyncio.Event()  # a full disk or a damaged cache: retrying would not help
    reporter = stderr_reporter(command, session.hub_url, on_store_failed=store_failed.set)
    session.add_listener(reporter)
    try:
        with calling_on_signals(stop.set):  # SIGINT, SIGTERM: the session closes cleanly
            session.start()
            work = asyncio.ensure_future(body(session))
            stopping = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(store_failed.wait())]
            await asyncio.wait((work, *stopping), return_when=asyncio.FIRST_COMPLETED)
            for waiter in stopping:
                waiter.cancel()
            if work.done():
                return work.result()
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
            return EXIT_FAILED if store_failed.is_set() else interrupted_status
    except StoreError as error:  # the command's own write was refused (listen recording what it fed)
        reporter(StoreFailed(error))
        return EXIT_FAILED
    finally:
        await session.stop()
