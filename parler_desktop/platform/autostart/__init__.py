"""Start at login: the ``start_at_login`` setting kept true by the OS's own mechanism.

``LoginStart`` is the seam: an XDG autostart entry on Linux (``xdg.py``), a LaunchAgent on macOS
(``launch_agent.py``), a value of the per-user Run key on Windows (``run_key.py``). Each writes
the command of the program running now, is re-synced on every start of the window, and never
touches an entry it did not write.
"""

from __future__ import annotations

import sys
from typing import Protocol

from parler_desktop.paths import Home


class LoginStart(Protocol):
    def location(self, home: Home) -> str:
        """Where ``home``'s entry lives, as the human would look for it."""
        ...

    def sync(self, enabled: bool, home: Home) -> bool:
        """Make ``home``'s entry match ``enabled``; True when something changed. Raises OSError."""
        ...


def login_start(platform: str = sys.platform) -> LoginStart | None:
    """This OS's implementation (None where there is none)."""
    if platform.startswith("linux"):
        from parler_desktop.platform.autostart.xdg import XdgAutostart

        return XdgAutostart()
    if platform == "darwin":
        from parler_desktop.platform.autostart.launch_agent import LaunchAgent

        return LaunchAgent()
    if platform == "win32":
        from parler_desktop.platform.autostart.run_key import RunKeyAutostart

        return RunKeyAutostart()
    return None


def sync_autostart(enabled: bool, home: Home) -> bool:
    """This OS's entry for ``home`` made to match ``enabled``; True when something changed."""
    implementation = login_start()
    return False if implementation is None else implementation.sync(enabled, home)
