"""The missing-library check before Qt loads: a library the loader cannot load is named with the
packages that provide it, on stderr and on the desktop, instead of Qt's abort.

A missing library is simulated for the real dynamic loader: a directory on ``LD_LIBRARY_PATH``
holds a file by that library's name that is not a library, so both our check and Qt's plugin
loader fail to load it, as they would if it were absent.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from parler_desktop.system_libs import EXIT_MISSING_LIBRARIES, GUI_LIBRARIES, PLATFORM_LIBRARIES, check, chosen_platforms

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is for Linux")


def broken_library_dir(tmp_path: Path, soname: str) -> Path:
    folder = tmp_path / "libs"
    folder.mkdir()
    (folder / soname).write_bytes(b"this is not an ELF file\n" * 8)
    return folder


def gui_environment(tmp_path: Path, soname: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PARLER_", "WAYLAND_"))}
    bin_dir = tmp_path / "bin"  # a desktop notifier that records what it was asked to show
    bin_dir.mkdir()
    notifier = bin_dir / "notify-send"
    notifier.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path / "notified"}"\n')
    notifier.chmod(0o755)
    env.update(
        QT_QPA_PLATFORM="xcb", DISPLAY=":97", PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        LD_LIBRARY_PATH=str(broken_library_dir(tmp_path, soname)),
    )
    return env


def test_a_missing_xcb_library_is_named_with_its_packages_instead_of_an_abort(tmp_path: Path):
    env = gui_environment(tmp_path, "libxcb-cursor.so.0")
    done = subprocess.run(
        [sys.executable, "-m", "parler_desktop", "--home", str(tmp_path / "home")],
        env=env, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == EXIT_MISSING_LIBRARIES, done.stderr
    assert "Qt's X11 (xcb) platform needs system libraries" in done.stderr
    assert re.search(r"^  libxcb-cursor\.so\.0: .*invalid ELF header", done.stderr, re.M)
    assert re.search(r"Debian/Ubuntu: sudo apt install .*\blibxcb-cursor0\b", done.stderr)
    assert re.search(r"Fedora: +sudo dnf install .*\bxcb-util-cursor\b", done.stderr)
    shown = (tmp_path / "notified").read_text()  # stderr is a pipe here, as from a launcher
    assert "Parler cannot start" in shown and "libxcb-cursor0" in shown
    home_data = tmp_path / "home" / "data"
    assert not (home_data / "embedded-hub").exists() and not (home_data / "stores").exists()  # stopped before Qt


def test_a_fallback_platform_that_loads_means_no_complaint(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", str(broken_library_dir(tmp_path, "libxcb-cursor.so.0")))
    # ctypes consults LD_LIBRARY_PATH as the loader read it at process start: check in a child
    code = "from parler_desktop.system_libs import check; import sys; sys.exit(0 if check({'QT_QPA_PLATFORM': %r}) is None else 1)"
    run = lambda platforms: subprocess.run([sys.executable, "-c", code % platforms], timeout=30).returncode  # noqa: E731
    assert run("xcb") == 1
    assert run("xcb;offscreen") == 0  # Qt falls back to offscreen, which needs no xcb library
    assert check({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_platform_choice_follows_qt():
    assert chosen_platforms({}) == ["xcb"]
    assert chosen_platforms({"WAYLAND_DISPLAY": "wayland-0"}) == ["wayland", "xcb"]
    assert chosen_platforms({"QT_QPA_PLATFORM": "wayland;xcb", "WAYLAND_DISPLAY": "w"}) == ["wayland", "xcb"]
    assert chosen_platforms({"QT_QPA_PLATFORM": "vnc:size=800x600"}) == ["vnc"]


FAMILIES = re.compile(r"^lib(xcb[-\w]*|X11(-xcb)?|xkbcommon(-x11)?|EGL|GL|GLX|fontconfig|freetype|dbus-1|glib-2\.0|wayland-\w+)\.so\.\d+$")


@pytest.mark.parametrize("plugin", ["xcb", "wayland"])
def test_the_table_covers_every_system_library_the_installed_plugin_links(plugin: str):
    """Kept honest against the PySide6 installed here: what ldd lists for the plugin, outside
    PySide6's own folder, from the families Qt's platforms need, is all in the table."""
    import PySide6

    qt_dir = Path(PySide6.__file__).parent
    listing = subprocess.run(["ldd", str(qt_dir / "Qt" / "plugins" / "platforms" / f"libq{plugin}.so")], capture_output=True, text=True, timeout=30).stdout
    needed = {line.split()[0] for line in listing.splitlines() if "=>" in line and str(qt_dir) not in line}
    known = {library.soname for library in (*GUI_LIBRARIES, *PLATFORM_LIBRARIES[plugin])}
    assert {name for name in needed if FAMILIES.match(name)} <= known
