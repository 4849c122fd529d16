"""The assets a desktop reads: the desktop entry and AppStream metainfo pass their validators,
the entry handles parler:// links, and the rendered icons have the sizes their names promise.

The validators are the distributions' own tools (Debian packages ``desktop-file-utils`` and
``appstream``; ``.ci/run`` installs them).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from parler_desktop.assets import APP_ID, ICON_SIZES, desktop_entry, icon_png, metainfo, resources_dir


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (.ci/run installs it)")
    return path


def test_desktop_entry_validates_and_opens_parler_links():
    done = subprocess.run([tool("desktop-file-validate"), str(desktop_entry())], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    lines = desktop_entry().read_text().splitlines()
    assert "MimeType=x-scheme-handler/parler;" in lines
    assert f"Exec={APP_ID} %u" in lines and f"Icon={APP_ID}" in lines


def test_metainfo_validates():
    done = subprocess.run([tool("appstreamcli"), "validate", "--no-net", str(metainfo())], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"<launchable type=\"desktop-id\">{APP_ID}.desktop</launchable>" in metainfo().read_text()


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR"
    return struct.unpack(">II", header[16:24])


def test_every_theme_size_is_rendered_48_included():
    assert 48 in ICON_SIZES
    for size in ICON_SIZES:
        assert png_size(icon_png(size)) == (size, size)


def test_ico_and_icns_hold_png_entries_of_the_sizes_they_declare():
    ico = (resources_dir() / "icons" / f"{APP_ID}.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 5
    sizes = set()
    for index in range(count):
        width, _height, _c, _r, _p, _b, length, offset = struct.unpack("<BBBBHHII", ico[6 + 16 * index: 22 + 16 * index])
        assert ico[offset: offset + 8] == b"\x89PNG\r\n\x1a\n" and offset + length <= len(ico)
        sizes.add(width or 256)
    assert {16, 32, 48, 256} <= sizes

    icns = (resources_dir() / "icons" / f"{APP_ID}.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    kinds, at = set(), 8
    while at < len(icns):
        kind, length = icns[at: at + 4], struct.unpack(">I", icns[at + 4: at + 8])[0]
        assert icns[at + 8: at + 16] == b"\x89PNG\r\n\x1a\n"
        kinds.add(kind)
        at += length
    assert at == len(icns) and {b"ic07", b"ic08", b"ic09", b"ic10"} <= kinds
