"""Start at login on Linux: an XDG autostart entry that follows the ``start_at_login`` setting.

The entry is the app's own desktop entry with ``Exec`` the program running now
(``command.launch_command``), so it keeps working wherever the app was installed; the window
re-writes it on every start. Only an entry this module wrote (it carries
``X-Parler-Desktop-Autostart=true``) is ever removed.
"""

from __future__ import annotations

import os
from pathlib import Path

from parler_desktop.assets import APP_ID, desktop_entry
from parler_desktop.atomic_file import write_atomically
from parler_desktop.paths import Home
from parler_desktop.platform.autostart.command import home_suffix, launch_command

MARKER = "X-Parler-Desktop-Autostart=true"


def autostart_file(home: Home, environ: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    config = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", str(Path.home()))) / ".config")
    return Path(config) / "autostart" / f"{APP_ID}{home_suffix(home)}.desktop"


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


def sync_autostart(enabled: bool, home: Home, path: Path | None = None) -> bool:
    """Make ``home``'s autostart entry match ``enabled``; True when something changed. Raises OSError."""
    path = path or autostart_file(home)
    existing = path.read_text(encoding="utf-8") if path.is_file() else None
    if existing is not None and MARKER not in existing.splitlines():
        return False  # someone else's entry: theirs to keep or remove
    if not enabled:
        if existing is not None:
            path.unlink()
        return existing is not None
    text = entry_text(launch_command(home))
    if existing == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, text.encode("utf-8"))
    return True


class XdgAutostart:
    """The Linux ``LoginStart``."""

    def location(self, home: Home) -> str:
        return str(autostart_file(home))

    def sync(self, enabled: bool, home: Home) -> bool:
        return sync_autostart(enabled, home)
