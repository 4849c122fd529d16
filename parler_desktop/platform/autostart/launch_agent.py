"""Start at login on macOS: a LaunchAgent in ``~/Library/LaunchAgents`` (launchd.plist(5)).

launchd reads the folder at login and runs ``ProgramArguments`` once (``RunAtLoad``) in the
graphical session (``LimitLoadToSessionType`` Aqua); nothing is loaded now, as the setting is
about the next login. ``ProgramArguments`` is the program running now (``command.launch_command``:
inside ``Parler.app`` the bundle's executable), rewritten on every start like the Linux entry.
Only a plist this module wrote (it carries ``ParlerDesktopAutostart``, a key launchd ignores) is
ever replaced or removed. An app Gatekeeper runs from a translocated copy (downloaded, unzipped and
opened in place: a randomised read-only path under ``AppTranslocation/``, gone after a restart;
Apple's "App Translocation Notes") gets no agent: the human is asked to move it to Applications.
"""

from __future__ import annotations

import plistlib
from pathlib import Path

from parler_desktop.atomic_file import write_atomically
from parler_desktop.paths import Home
from parler_desktop.platform.autostart.command import home_suffix, launch_command

LABEL = "com.parler.desktop"
MARKER_KEY = "ParlerDesktopAutostart"
TRANSLOCATED = "/AppTranslocation/"


def agent_file(home: Home, user_home: Path | None = None) -> Path:
    return (user_home or Path.home()) / "Library" / "LaunchAgents" / f"{LABEL}{home_suffix(home)}.plist"


def agent_plist(label: str, command: list[str]) -> bytes:
    """The LaunchAgent's XML plist: run ``command`` once at login, in the user's GUI session."""
    agent = {
        "Label": label,
        "ProgramArguments": command,
        "RunAtLoad": True,
        "LimitLoadToSessionType": "Aqua",
        "ProcessType": "Interactive",
        MARKER_KEY: True,
    }
    return plistlib.dumps(agent, fmt=plistlib.FMT_XML, sort_keys=True)


def is_ours(content: bytes) -> bool:
    """Whether a plist is one this module wrote (an unreadable one is someone else's)."""
    try:
        agent = plistlib.loads(content)
    except Exception:  # noqa: BLE001 - plistlib raises ExpatError (not a ValueError) on broken XML, others on binary
        return False
    return isinstance(agent, dict) and agent.get(MARKER_KEY) is True


def sync_agent(enabled: bool, home: Home, path: Path | None = None) -> bool:
    """Make ``home``'s LaunchAgent match ``enabled``; True when something changed. Raises OSError."""
    path = path or agent_file(home)
    existing = path.read_bytes() if path.is_file() else None
    if existing is not None and not is_ours(existing):
        return False  # someone else's agent: theirs to keep or remove
    if not enabled:
        if existing is not None:
            path.unlink()
        return existing is not None
    command = launch_command(home)
    if TRANSLOCATED in command[0]:
        raise OSError("Parler runs from a temporary copy macOS made of it; move Parler.app to Applications and start it from there")
    content = agent_plist(path.stem, command)
    if existing == content:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, content)
    return True


class LaunchAgent:
    """The macOS ``LoginStart``."""

    def location(self, home: Home) -> str:
        return str(agent_file(home))

    def sync(self, enabled: bool, home: Home) -> bool:
        return sync_agent(enabled, home)
