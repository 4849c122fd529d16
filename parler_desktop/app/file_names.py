"""Where a Save or Export dialog opens, and the file name it proposes (issue 47, item 6).

A proposed name comes from the wire: a room's name for Export, a peer's file name for Save. A hub
named a room ``../../../../tmp/…/escaped``, the dialog proposed that path, and two Enters wrote
the file outside any folder the human chose. So a proposed name is a bare file name: what
``display_text`` shows of it (no controls, no bidirectional overrides, bounded), with no path
separators or characters Windows refuses, no ``..``, no leading dot (a hidden file), no name
Windows reserves (``CON``, ``NUL``, ``COM1``, …), and short enough for any file system.

The dialog opens in the folder the human chose last in this window, else their Downloads, else
their home: never the working directory, which a relative name would be taken against.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QStandardPaths

from parler_desktop.app.display_text import NAME_CHARS, display_text

FALLBACK_NAME = "download"
MAX_NAME_BYTES = 240  # below every file system's 255, in UTF-8
MAX_SUFFIX_CHARS = 16  # a longer "suffix" is part of the name
_REFUSED = re.compile(r'[\ufffd/\\:*?"<>|]')  # (display_text made every control U+FFFD)
_DOTS = re.compile(r"\.{2,}")
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{port}{n}" for port in ("COM", "LPT") for n in [*"0123456789", "¹", "²", "³"]]
)


def bare_file_name(name: str) -> str:
    """``name`` made a bare, ordinary file name (its suffix kept); ``FALLBACK_NAME`` if nothing is left."""
    stem, _dot, suffix = name.rpartition(".")
    if not stem or len(suffix) > MAX_SUFFIX_CHARS:
        stem, suffix = name, ""
    else:
        suffix = "." + display_text(suffix)
    bare = _bare(display_text(stem, NAME_CHARS - len(suffix)) + suffix)
    while len(bare.encode("utf-8")) > MAX_NAME_BYTES:  # (four-byte characters)
        stem = stem[: len(stem) * 3 // 4]
        bare = _bare(display_text(stem, NAME_CHARS - len(suffix)) + "…" + suffix)
    if bare.split(".", 1)[0].rstrip().upper() in _RESERVED:
        bare = "_" + bare
    return bare or FALLBACK_NAME


def _bare(name: str) -> str:
    """No separators or refused characters, no ``..``, no leading dot or space, no trailing
    dot or space (Windows drops them)."""
    return _DOTS.sub(".", _REFUSED.sub("_", name)).lstrip(". ").rstrip(". ")


def save_folder(last_chosen: Path | None) -> Path:
    """The folder a save dialog opens in: ``last_chosen``, else Downloads, else home (the first that exists)."""
    downloads = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DownloadLocation)
    for folder in (last_chosen, Path(downloads) if downloads else None, Path.home()):
        if folder is not None and folder.is_dir():
            return folder
    return Path.home()
