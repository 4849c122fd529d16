"""What ``parler-desktop demo`` was asked for (the script, or load with a rate), and running it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.client.errors import BadReply, ConnectionLost, HandshakeRefused, HubRefused, HubUnreachable, SessionClosed
from parler_desktop.demo.director import Admit, run_script
from parler_desktop.demo.load import run_load
from parler_desktop.demo.script import CAST
from parler_desktop.identity import Identity, KeyFileError, load_or_create_identity

DEFAULT_LOAD_SECS = 60.0
# What a demo run may raise: the hub refusing or vanishing, a cast key file, bad parameters.
DEMO_FAILURES = (HubUnreachable, HandshakeRefused, ConnectionLost, HubRefused, BadReply, SessionClosed, KeyFileError, OSError, ValueError)


@dataclass(frozen=True)
class DemoPlan:
    rate: float | None = None  # messages per second: the load generator instead of the script
    rooms: int = 3
    agents: int = 3
    duration: float | None = None  # load: seconds (default 60); script: None plays until stopped
    pace: float = 2.0  # script: mean seconds between beats
    rounds: int | None = None  # script: how many times to play it (None: until stopped)

    async def run(self, url: str, human: str, admit: Admit, cast_folder: Path | None, join_secret: str | None) -> str:
        """Run to the end (or until cancelled); a one-line summary. Raises the client's errors."""
        if self.rate is not None:
            report = await run_load(
                url, admit, rooms=self.rooms, agents=self.agents, rate=self.rate,
                duration=self.duration or DEFAULT_LOAD_SECS, join_secret=join_secret,
            )
            return report.summary()
        identities = await asyncio.to_thread(cast_identities, cast_folder)
        script = run_script(url, human, admit, identities.__getitem__, pace=self.pace, rounds=self.rounds, join_secret=join_secret)
        try:
            played = await asyncio.wait_for(script, self.duration)
        except TimeoutError:
            return "demo over"
        return f"played {played} beats"


def cast_identities(folder: Path | None) -> dict[str, Identity]:
    """The scripted cast's identities: kept in ``folder`` (so a later demo finds its rooms
    again), or fresh ones when there is no folder. Blocking file I/O: call it off the UI thread."""
    if folder is None:
        return {name: Identity.generate() for name, _ in CAST}
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return {name: load_or_create_identity(folder / f"{name}.json") for name, _ in CAST}
