"""``parler-desktop join``: redeem an invite code or link.

A link such as ``parler://host:port/join/CODE`` (or ``CODE@HOST:PORT``) also names the hub, so
``--hub`` may be left out. A room that needs the owner's approval answers "pending": run the same
command again later to learn the outcome. A hub that cannot be reached is tried again (each try
said on stderr) until it answers, or until ``--timeout SECONDS`` have passed: then the exit
status is 1.
"""

from __future__ import annotations

import argparse
import asyncio

from parler_desktop.client.address import parse_invite
from parler_desktop.client.errors import HubRefused, SessionClosed
from parler_desktop.client.headless import (
    CA_FILE_HELP, EXIT_FAILED, EXIT_OK, EXIT_USAGE, choose_hub_url, report, run_session, seconds, trusted_ca,
)
from parler_desktop.client.session import HubSession
from parler_desktop.paths import Home
from parler_desktop.protocol.frames import Joined
from parler_desktop.protocol.readable import escaped
from parler_desktop.cli.help_text import description

COMMAND = "join"


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("join", help="redeem an invite code or link", description=description(__doc__))
    sub.add_argument("--hub", metavar="URL", default=argparse.SUPPRESS, help="the hub (default: the link's hub, $PARLER_HUB or the settings)")
    sub.add_argument("--ca-file", metavar="FILE", help=CA_FILE_HELP)
    sub.add_argument("--timeout", type=seconds, metavar="SECONDS", help="give up after SECONDS without the hub's answer (exit status 1)")
    sub.add_argument("code", metavar="CODE", help="invite code, CODE@HUB, or invite link")
    sub.set_defaults(run=run)


async def join(session: HubSession, code: str, timeout: float | None = None) -> int:
    try:
        async with asyncio.timeout(timeout):
            reply = await session.redeem(code)
    except TimeoutError:
        # A member who redeems again is answered "joined" (no use of the invite spent).
        report(COMMAND, f"no answer from the hub within {timeout:g} s; not joined "
               "(if the hub took the invite after all, running this again says so)")
        return EXIT_FAILED
    except HubRefused as error:
        report(COMMAND, f"invite problem: {error.message}")
        return EXIT_FAILED
    except SessionClosed as error:
        report(COMMAND, str(error))
        return EXIT_FAILED
    if isinstance(reply, Joined):
        print(escaped(f"joined {reply.room} ({reply.kind})"), flush=True)
    else:
        print(escaped(f"asked to join {reply.room}; waiting for the owner's approval (run this again to check)"), flush=True)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    home = Home.resolve(args.home)
    try:
        invite = parse_invite(args.code)
        hub_url = choose_hub_url(getattr(args, "hub", None), home, from_link=invite.hub_url)
        options = trusted_ca(args.ca_file)
    except ValueError as error:
        report(COMMAND, str(error))
        return EXIT_USAGE

    async def body(session: HubSession) -> int:
        return await join(session, invite.code, args.timeout)

    return asyncio.run(run_session(
        COMMAND, home, hub_url, body, interrupted_status=EXIT_FAILED, sync_messages=False, **options
    ))
