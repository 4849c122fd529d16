"""``parler-desktop fresh-cache``: set a damaged local cache aside and start an empty one.

The hub keeps every message, so the next listen, send or window refills the cache from it. The
damaged file is kept beside the new one (its name is printed). The messages waiting to be sent
are in a file of their own, which this never touches (a damaged one is recovered as the store
opens), so they are carried over: the next send, listen or window on this home sends them, once.
"""

from __future__ import annotations

import argparse

from parler_desktop.client.address import normalize_hub_url
from parler_desktop.client.headless import EXIT_FAILED, EXIT_OK, EXIT_USAGE, choose_hub_url, report
from parler_desktop.client.hub_identity import hub_key_file
from parler_desktop.identity import KeyFileError, load_identity
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.cli.help_text import description

COMMAND = "fresh-cache"


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser(COMMAND, help="set a damaged local cache aside and start afresh", description=description(__doc__))
    sub.add_argument("--hub", metavar="URL", default=argparse.SUPPRESS, help="the hub whose cache it is (default: $PARLER_HUB or the settings)")
    sub.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    home = Home.resolve(args.home)
    try:
        hub_url = normalize_hub_url(choose_hub_url(getattr(args, "hub", None), home))
    except ValueError as error:
        report(COMMAND, str(error))
        return EXIT_USAGE
    try:
        key_file = hub_key_file(home, load_settings(home.settings_file).settings, hub_url)
        if not key_file.exists():
            report(COMMAND, f"no identity in this home for {hub_url} ({key_file}), so no cache to set aside")
            return EXIT_FAILED
        path = home.store_path(hub_url, load_identity(key_file).agent_id)
        if not path.exists():
            report(COMMAND, f"no cache for {hub_url} in this home ({path})")
            return EXIT_FAILED
        fresh = LocalStore.start_fresh(path)
    except (KeyFileError, StoreError, ValueError) as error:
        report(COMMAND, str(error))
        return EXIT_FAILED
    if fresh.outbox_recovery is not None:
        report(COMMAND, fresh.outbox_recovery.text)
    print(
        f"the old cache is kept as {fresh.moved_to}; {fresh.kept_unsent} unsent message(s) carried over "
        "(the next send, listen or window on this home sends them)",
        flush=True,
    )
    return EXIT_OK
