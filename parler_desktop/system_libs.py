"""Before Qt loads its platform plugin on Linux: are the system libraries it needs there?

Without them Qt aborts the process (exit 134) with a message that names only the first library
it missed (and for some, a library of the same family that is not the one missing), and a user
who started the app from a menu sees nothing at all. This asks the dynamic loader for each
library the chosen platform plugin links against, exactly as Qt will, and turns what is missing
into the package names to install. It imports nothing from Qt.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SystemLibrary:
    soname: str
    debian: str  # Debian and Ubuntu package
    fedora: str


def _libs(*rows: tuple[str, str, str]) -> tuple[SystemLibrary, ...]:
    return tuple(SystemLibrary(*row) for row in rows)


# What QtGui itself links against (every platform, offscreen included).
GUI_LIBRARIES = _libs(
    ("libEGL.so.1", "libegl1", "libglvnd-egl"),
    ("libGL.so.1", "libgl1", "libglvnd-glx"),
    ("libGLX.so.0", "libglx0", "libglvnd-glx"),
    ("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    ("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    ("libfreetype.so.6", "libfreetype6", "freetype"),
    ("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    ("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
    ("libX11.so.6", "libx11-6", "libX11"),
    ("libxcb.so.1", "libxcb1", "libxcb"),
)
# What the platform plugins add (libqxcb.so with libQt6XcbQpa, libqwayland.so with libQt6WaylandClient).
PLATFORM_LIBRARIES: dict[str, tuple[SystemLibrary, ...]] = {
    "xcb": _libs(
        ("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
        ("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
        ("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
        ("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
        ("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
        ("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
        ("libxcb-render.so.0", "libxcb-render0", "libxcb"),
        ("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
        ("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
        ("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
        ("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
        ("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
        ("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    ),
    "wayland": _libs(
        ("libwayland-client.so.0", "libwayland-client0", "libwayland-client"),
        ("libwayland-cursor.so.0", "libwayland-cursor0", "libwayland-cursor"),
    ),
}
PLATFORM_NAMES = {"xcb": "X11 (xcb)", "wayland": "Wayland"}
EXIT_MISSING_LIBRARIES = 4


@dataclass(frozen=True)
class Missing:
    library: SystemLibrary
    reason: str  # the loader's own words


def chosen_platforms(environ: os._Environ[str] | dict[str, str], platform: str | None = None) -> list[str]:
    """The platform plugins Qt will try, in order: ``platform`` (Qt's ``-platform`` option, which
    wins), else ``QT_QPA_PLATFORM`` (it may list fallbacks)."""
    configured = (platform or environ.get("QT_QPA_PLATFORM", "")).strip()
    if configured:
        return [name.split(":", 1)[0].strip() for name in configured.split(";") if name.strip()]
    if environ.get("WAYLAND_DISPLAY"):
        return ["wayland", "xcb"]
    return ["xcb"]


def missing_for(platform: str) -> list[Missing]:
    bundled = Path(getattr(sys, "_MEIPASS", "")) if getattr(sys, "frozen", False) else None
    missing = []
    for library in (*GUI_LIBRARIES, *PLATFORM_LIBRARIES.get(platform, ())):
        if bundled is not None and (bundled / library.soname).exists():
            continue  # a PyInstaller bundle carries its own copy
        try:
            ctypes.CDLL(library.soname)
        except OSError as error:
            missing.append(Missing(library, str(error)))
    return missing


def check(environ: os._Environ[str] | dict[str, str] = os.environ, platform: str | None = None) -> str | None:
    """None when Qt can load a platform here (``platform``: as ``-platform`` chose it); else what
    to install, as a message for a person."""
    if not sys.platform.startswith("linux"):
        return None
    platforms = chosen_platforms(environ, platform)
    found = [missing_for(platform) for platform in platforms]
    if not platforms or any(not missing for missing in found):
        return None
    platform, missing = platforms[0], found[0]
    lines = [
        f"parler-desktop cannot open its window: Qt's {PLATFORM_NAMES.get(platform, platform)} platform "
        "needs system libraries that are missing or cannot be loaded:",
        *(f"  {item.library.soname}: {item.reason}" for item in missing),
        "Install them with:",
        f"  Debian/Ubuntu: sudo apt install {' '.join(dict.fromkeys(m.library.debian for m in missing))}",
        f"  Fedora:        sudo dnf install {' '.join(dict.fromkeys(m.library.fedora for m in missing))}",
        "The command-line tools (hub, listen, send, join) work without them.",
    ]
    return "\n".join(lines)


# Desktop programs that can show a sentence without Qt; the first one found is used.
NOTIFIERS = (
    ("notify-send", ["--app-name=Parler", "--urgency=critical", "Parler cannot start"]),
    ("zenity", ["--error", "--title=Parler cannot start", "--text"]),
    ("kdialog", ["--title", "Parler cannot start", "--error"]),
    ("xmessage", ["-center"]),
)


def tell_desktop(message: str) -> bool:
    """Show ``message`` with the first notifier found (never through a shell); False if none."""
    for program, arguments in NOTIFIERS:
        path = shutil.which(program)
        if path is None:
            continue
        try:
            subprocess.Popen([path, *arguments, message], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError:
            continue
        return True
    return False
