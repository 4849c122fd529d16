"""``parler-desktop autostart [on|off]``: start the window at login (an XDG autostart entry on
Linux, a LaunchAgent on macOS, the per-user Run key on Windows: ``platform/autostart``).

Sets the ``start_at_login`` setting and writes or removes the autostart entry at once; the window
keeps the entry in step with the setting every time it starts (so it follows the app if it moves).
Without an argument it says what is set.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from parler_desktop.platform.autostart import login_start, sync_autostart
from parler_desktop.cli.help_text import description
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings, save_settings


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("autostart", help="start the window at login", description=description(__doc__))
    sub.add_argument("state", nargs="?", choices=("on", "off"), help="on or off (default: show the setting)")
    sub.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    home = Home.resolve(args.home)
    loaded = load_settings(home.settings_file)
    if loaded.problem:
        print(f"parler-desktop autostart: {loaded.problem}", file=sys.stderr)
    settings = loaded.settings
    if args.state is not None:
        settings = dataclasses.replace(settings, start_at_login=args.state == "on")
        try:
            home.ensure()
            save_settings(home.settings_file, settings)
            sync_autostart(settings.start_at_login, home)
        except OSError as error:
            print(f"parler-desktop autostart: {error}", file=sys.stderr)
            return 1
    implementation = login_start()
    if implementation is None:
        print("start at login: not on this system (use the system's login items)")
    else:
        print(f"start at login: {'on' if settings.start_at_login else 'off'} ({implementation.location(home)})")
    return 0
