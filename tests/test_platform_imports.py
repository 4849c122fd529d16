"""Every module of the package imports where a platform's own libraries are missing (AppKit and
rubicon-objc are macOS's, winreg, winrt and win32ctypes Windows', SecretStorage Linux's,
desktop-notifier is installed only on macOS and Windows), and the seams then fall back: no
NSWorkspace observer, no toasts.
Run in a fresh interpreter with those modules blocked (``sys.modules[name] = None``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from parler_desktop.platform.native_modules import missing_native_modules, native_modules

BLOCKED = (
    "winreg", "winrt", "win32ctypes", "pywintypes", "win32cred", "objc", "AppKit", "Foundation", "rubicon", "rubicon.objc",
    "desktop_notifier", "secretstorage",
)

PROGRAM = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    for name in sys.argv[1:]:
        sys.modules[name] = None  # "import name" now raises ImportError
    import parler_desktop
    names = [m.name for m in pkgutil.walk_packages(parler_desktop.__path__, "parler_desktop.") if m.name != "parler_desktop.__main__"]
    for name in names:
        importlib.import_module(name)
    from parler_desktop.platform.wake.workspace import WorkspaceWake
    from parler_desktop.platform.autostart import login_start
    assert WorkspaceWake(lambda: None).start() is False
    assert all(login_start(p) is not None for p in ("linux", "darwin", "win32"))
    print(len(names), "modules")
    """
)


@pytest.mark.timeout(120)
def test_the_package_imports_without_any_platform_only_module():
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *BLOCKED],
        capture_output=True, text=True, timeout=110, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[0]) > 100


def test_this_os_has_the_modules_its_seams_load_when_used():
    """On each OS's runner: pyproject.toml's environment markers installed what the seams need
    (the bundle's self-test checks the same in the bundle)."""
    assert missing_native_modules() == []


def test_a_missing_native_module_is_named(monkeypatch):
    name = native_modules()[0]
    monkeypatch.setitem(sys.modules, name, None)  # "import name" now raises ImportError
    assert [entry.split(" ")[0] for entry in missing_native_modules()] == [name]
    assert native_modules("sunos5") == () and native_modules("linux2") == native_modules("linux")
