"""The command a login start runs: the program running now, with ``--home`` for a home other
than the default one (the setting belongs to a home), and a name per home for its entry.

On Windows a pip install starts ``pythonw.exe`` rather than ``python.exe``: Windows gives a console
program a console window for as long as it runs (closing it ends the app), and pythonw.exe, which
every Windows Python and venv has beside python.exe, is the same interpreter without one
(Python's "Using Python on Windows"). The bundle's executable is windowed already."""

from __future__ import annotations

import hashlib
import os
import sys

from parler_desktop.instance_lock import home_path
from parler_desktop.paths import Home


def launch_command(home: Home) -> list[str]:
    """The bundle's executable, or this Python with ``-m parler_desktop``; no URL argument."""
    program = [sys.executable] if getattr(sys, "frozen", False) else [windowless_python(sys.executable), "-m", "parler_desktop"]
    return program if home.is_platform_default else [*program, "--home", str(home_path(home))]


def windowless_python(executable: str, platform: str = sys.platform) -> str:
    """On Windows, the pythonw.exe beside ``executable`` when there is one; else ``executable``."""
    if platform != "win32":
        return executable
    windowless = os.path.join(os.path.dirname(executable), "pythonw.exe")
    return windowless if os.path.isfile(windowless) else executable


def home_suffix(home: Home) -> str:
    """"" for the default home, else "-" and a digest of its data folder: each home its own entry."""
    return "" if home.is_platform_default else "-" + hashlib.sha256(str(home.data_dir).encode()).hexdigest()[:8]
