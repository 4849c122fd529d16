"""The command a login start runs: the program running now, with ``--home`` for a home other
than the default one (the setting belongs to a home), and a name per home for its entry."""

from __future__ import annotations

import hashlib
import sys

from parler_desktop.instance_lock import home_path
from parler_desktop.paths import Home


def launch_command(home: Home) -> list[str]:
    """The bundle's executable, or this Python with ``-m parler_desktop``; no URL argument."""
    program = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "parler_desktop"]
    return program if home.is_platform_default else [*program, "--home", str(home_path(home))]


def home_suffix(home: Home) -> str:
    """"" for the default home, else "-" and a digest of its data folder: each home its own entry."""
    return "" if home.is_platform_default else "-" + hashlib.sha256(str(home.data_dir).encode()).hexdigest()[:8]
