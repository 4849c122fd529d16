"""``parler-desktop demo``: scripted agents to watch, on a real hub.

A planner, a coder and a reviewer work in three rooms (demo-planning, demo-build, demo-review):
Markdown and code, task status, a shared file, a mention of you and a handoff to you, and now
and then one goes quiet or gets stuck. By default the window opens on this home's hub (the
embedded hub unless --hub) and you are let into their rooms.

--no-window runs only the agents, on a private hub of its own unless --hub is given, and prints
the hub's URL and an invite link per room (join them from a window). With --rate the agents are
a load generator instead: --agents agents post into --rooms rooms at --rate messages per second
in all, for --duration seconds, and a summary of what they achieved is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
from pathlib import Path

from parler_desktop.cli import gui_command
from parler_desktop.cli.help_text import description
from parler_desktop.client.address import normalize_hub_url
from parler_desktop.demo.plan import DEMO_FAILURES, DemoPlan
from parler_desktop.hub import EmbeddedHub, HubConfig, HubLimits
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings, read_join_secret
from parler_desktop.stop_signals import calling_on_signals



def _positive(kind: type[int] | type[float]):  # noqa: ANN202 - an argparse type
    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value

    return parse


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("demo", help="watch scripted agents at work (also a load generator)", description=description(__doc__))
    sub.add_argument("--hub", metavar="URL", help="the hub the agents use (default: the window's hub; with --no-window a private one)")
    sub.add_argument("--no-window", action="store_true", help="run only the agents and print the invite links")
    sub.add_argument("--rate", type=_positive(float), metavar="N", help="load generator: N messages per second in all")
    sub.add_argument("--rooms", type=_positive(int), default=3, metavar="N", help="load generator: rooms (default 3)")
    sub.add_argument("--agents", type=_positive(int), default=3, metavar="N", help="load generator: agents (default 3)")
    sub.add_argument("--duration", type=_positive(float), metavar="SECS", help="load: how long (default 60); script: stop after SECS")
    sub.add_argument("--pace", type=float, default=2.0, metavar="SECS", help="script: mean pause between beats (default 2)")
    sub.set_defaults(run=run)


def plan_from(args: argparse.Namespace) -> DemoPlan:
    return DemoPlan(rate=args.rate, rooms=args.rooms, agents=args.agents, duration=args.duration, pace=max(0.0, args.pace))


def run(args: argparse.Namespace) -> int:
    if not args.no_window:
        args.demo = plan_from(args)
        return gui_command.run(args)
    home = Home.resolve(args.home)
    try:
        return asyncio.run(_headless(args, home))
    except KeyboardInterrupt:
        return 0


async def _headless(args: argparse.Namespace, home: Home) -> int:
    plan = plan_from(args)
    task = asyncio.current_task()
    assert task is not None
    with calling_on_signals(task.cancel, (signal.SIGTERM,)), tempfile.TemporaryDirectory(prefix="parler-demo-") as scratch:
        hub: EmbeddedHub | None = None
        try:
            if args.hub:
                url, join_secret = normalize_hub_url(args.hub), await asyncio.to_thread(read_join_secret, home, load_settings(home.settings_file).settings)
            else:
                config = HubConfig(db_path=Path(scratch) / "hub.sqlite3", host="127.0.0.1", port=0, limits=HubLimits().relaxed())
                hub = EmbeddedHub(config)
                url, join_secret = await asyncio.to_thread(hub.start), None
            print(url, flush=True)

            async def admit(link: str) -> None:
                print(f"join: {link}", flush=True)

            folder = home.data_dir / "demo" if args.hub else None  # a private hub forgets its rooms
            print(await plan.run(url, "supervisor", admit, folder, join_secret), flush=True)
        except asyncio.CancelledError:
            pass
        except DEMO_FAILURES as error:
            print(f"parler-desktop demo: {error}", file=sys.stderr)
            return 1
        finally:
            if hub is not None:
                await asyncio.to_thread(hub.stop)
    return 0
