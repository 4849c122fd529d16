"""Start at login on Windows: a value under the per-user Run key.

Windows runs each value of ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run`` at login as a
command line. Ours is named ``Parler`` (with a digest per home other than the default one) and
holds the program running now (``command.launch_command``), quoted as CommandLineToArgvW and
the C runtime read it (``subprocess.list2cmdline``); it is rewritten on every start. A value of
that name is replaced or removed only when it reads back as a command of this program (its first
argument is the bundle's ``parler-desktop.exe``, or a Python running ``-m parler_desktop``).

The registry is reached through ``RunKey`` (``winreg`` in ``WindowsRunKey``), so the rest is
plain text and tested on any OS.
"""

from __future__ import annotations

import ntpath
import subprocess
from typing import Protocol

from parler_desktop.paths import Home
from parler_desktop.platform.autostart.command import home_suffix, launch_command

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
VALUE_NAME = "Parler"


class RunKey(Protocol):
    def get(self, name: str) -> str | None: ...
    def set(self, name: str, value: str) -> None: ...
    def delete(self, name: str) -> None: ...


class WindowsRunKey:
    """HKCU's Run key through winreg (Windows only: imported when used)."""

    def get(self, name: str) -> str | None:
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                value, kind = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return value if kind in (winreg.REG_SZ, winreg.REG_EXPAND_SZ) and isinstance(value, str) else ""

    def set(self, name: str, value: str) -> None:
        import winreg

        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> None:
        import winreg

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            winreg.DeleteValue(key, name)


def value_name(home: Home) -> str:
    return VALUE_NAME + home_suffix(home)


def run_value(command: list[str]) -> str:
    """The command line Windows runs at login."""
    return subprocess.list2cmdline(command)


def parse_run_value(text: str) -> list[str]:
    """A command line split as CommandLineToArgvW does (2N backslashes before a quote are N and
    the quote toggles; 2N+1 are N and a literal quote; other backslashes are themselves)."""
    arguments: list[str] = []
    current: list[str] = []
    quoted = started = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            run = len(text[index:]) - len(text[index:].lstrip("\\"))
            index += run
            if index < len(text) and text[index] == '"':
                current.append("\\" * (run // 2))
                if run % 2:
                    current.append('"')
                    index += 1
            else:
                current.append("\\" * run)
            started = True
            continue
        if char == '"':
            quoted, started = not quoted, True
        elif char in " \t" and not quoted:
            if started:
                arguments.append("".join(current))
                current, started = [], False
        else:
            current.append(char)
            started = True
        index += 1
    if started:
        arguments.append("".join(current))
    return arguments


def is_ours(text: str) -> bool:
    """Whether a Run value of our name is a command of this program (see the module docstring)."""
    command = parse_run_value(text)
    if not command:
        return False
    program = ntpath.basename(command[0]).lower()
    bundle = program == "parler-desktop.exe"
    python = program.startswith("python") and command[1:3] == ["-m", "parler_desktop"]
    return bundle or python


def sync_run_value(enabled: bool, home: Home, key: RunKey) -> bool:
    """Make ``home``'s Run value match ``enabled``; True when something changed. Raises OSError."""
    name = value_name(home)
    existing = key.get(name)
    if existing is not None and not is_ours(existing):
        return False  # someone else's value: theirs to keep or remove
    if not enabled:
        if existing is not None:
            key.delete(name)
        return existing is not None
    value = run_value(launch_command(home))
    if existing == value:
        return False
    key.set(name, value)
    return True


class RunKeyAutostart:
    """The Windows ``LoginStart``."""

    def location(self, home: Home) -> str:
        return f"HKEY_CURRENT_USER\\{RUN_KEY}\\{value_name(home)}"

    def sync(self, enabled: bool, home: Home) -> bool:
        return sync_run_value(enabled, home, WindowsRunKey())
