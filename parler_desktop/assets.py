"""Where the app's assets are at run time.

They live in the project's top-level ``resources/`` and ship as the package
``parler_desktop.resources`` (setup.py maps it), so one lookup finds them in a source checkout
(editable install), an installed wheel and a PyInstaller bundle (the spec collects the package's
files) alike.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

APP_ID = "parler-desktop"  # icon name, desktop entry and Qt's desktopFileName
METAINFO_ID = "io.github.tamdogood.ParlerDesktop"  # AppStream wants a reverse-DNS component id
# The freedesktop icon theme's usual fixed sizes (hicolor); 48 px is the one every theme needs.
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def resources_dir() -> Path:
    """The assets folder (a real directory in every supported layout; never a zip)."""
    return Path(str(resources.files("parler_desktop.resources")))


def icon_png(size: int) -> Path:
    return resources_dir() / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def desktop_entry() -> Path:
    return resources_dir() / f"{APP_ID}.desktop"


def metainfo() -> Path:
    return resources_dir() / f"{METAINFO_ID}.metainfo.xml"
