"""Start at login on Linux: an XDG autostart entry that follows the ``start_at_login`` setting.

The entry is the app's own desktop entry with ``Exec`` pointing at the program running now (the
bundle's executable, or this Python with ``-m parler_desktop``), so it keeps working wherever the
app was installed; the window re-writes it on every start. Only an entry this module wrote (it
carries ``X-Parler-Desktop-Autostart=true``) is ever removed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from parler_desktop.assets import APP_ID, desktop_entry
from parler_desktop.atomic_file import write_atomically

MARKER = "X-Parler-Desktop-Autostart=true"


def autostart_file(environ: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    config = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", str(Path.home()))) / ".config")
    return Path(config) / "autostart" / f"{APP_ID}.desktop"


def launch_command() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "parler_desktop"]


def entry_text(command: list[str]) -> str:
    """The desktop entry for a login start: no URL argument, and marked as ours."""
    # Desktop Entry spec: quote each argument, escaping \\ " ` $ inside quotes, and double %.
    def quoted(arg: str) -> str:
        for char in ("\\", '"', "`", "$"):
            arg = arg.replace(char, "\\" + char)
        return '"' + arg.replace("%", "%%") + '"'

    lines = []
    for line in desktop_entry().read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(quoted(arg) for arg in command)
        elif line.startswith("MimeType="):
            continue  # the autostart copy is not a link handler
        lines.append(line)
    lines += ["X-GNOME-Autostart-enabled=true", MARKER]
    return "\n".join(lines) + "\n"


def sync_autostart(enabled: bool, path: Path | None = None, command: list[str] | None = None) -> bool:
    """Make the autostart entry match ``enabled``; True when something changed. Raises OSError."""
    if not sys.platform.startswith("linux"):
        return False
    path = path or autostart_file()
    if enabled:
        text = entry_text(command or launch_command())
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode("utf-8"))
        return True
    if path.is_file() and MARKER in path.read_text(encoding="utf-8").splitlines():
        path.unlink()
        return True
    return False
