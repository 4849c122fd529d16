"""Start at login on macOS and Windows, their pure parts checked on any OS: the LaunchAgent
plist and the Run-key value are generated, read back, kept in step and never taken from
someone else."""

from __future__ import annotations

import plistlib
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parler_desktop.paths import Home
from parler_desktop.platform.autostart import login_start
from parler_desktop.platform.autostart.command import launch_command, windowless_python
from parler_desktop.platform.autostart.launch_agent import MARKER_KEY, agent_file, agent_plist, sync_agent
from parler_desktop.platform.autostart.run_key import (
    RunKeyAutostart,
    is_ours,
    parse_run_value,
    run_value,
    sync_run_value,
    value_name,
)


class DictRunKey:
    """The Run key as a dict (what winreg holds under HKCU\\...\\Run)."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        del self.values[name]


def test_each_os_has_its_login_start():
    assert type(login_start("linux")).__name__ == "XdgAutostart"
    assert type(login_start("darwin")).__name__ == "LaunchAgent"
    assert type(login_start("win32")).__name__ == "RunKeyAutostart"
    assert login_start("sunos5") is None


def test_the_launch_agent_runs_this_program_for_this_home_at_login(tmp_path):
    home = Home.resolve(tmp_path / "home")
    path = agent_file(home, user_home=tmp_path)
    assert path.parent == tmp_path / "Library" / "LaunchAgents" and path.name.startswith("com.parler.desktop-")
    assert sync_agent(True, home, path) is True
    agent = plistlib.loads(path.read_bytes())
    assert agent == {
        "Label": path.stem,
        "ProgramArguments": [sys.executable, "-m", "parler_desktop", "--home", str(tmp_path / "home")],
        "RunAtLoad": True,
        "LimitLoadToSessionType": "Aqua",
        "ProcessType": "Interactive",
        MARKER_KEY: True,
    }
    assert path.read_bytes().startswith(b"<?xml") and sync_agent(True, home, path) is False  # already so
    assert sync_agent(False, home, path) is True and not path.exists()
    assert sync_agent(False, home, path) is False


def test_a_launch_agent_someone_else_wrote_is_left_alone(tmp_path):
    home = Home.resolve(tmp_path / "home")
    path = agent_file(home, user_home=tmp_path)
    path.parent.mkdir(parents=True)
    theirs = agent_plist(path.stem, ["/usr/local/bin/my-wrapper"]).replace(f"<key>{MARKER_KEY}</key>\n\t<true/>\n".encode(), b"")
    assert MARKER_KEY.encode() not in theirs
    truncated = agent_plist(path.stem, ["/usr/local/bin/my-wrapper"])[:-30]  # cut off mid-write: malformed XML
    for content in (theirs, b"not a plist", truncated, b"bplist00" + bytes(40)):
        path.write_bytes(content)
        assert sync_agent(True, home, path) is False and sync_agent(False, home, path) is False
        assert path.read_bytes() == content


def test_an_app_macos_runs_from_a_translocated_copy_writes_no_agent_and_says_to_move_it(tmp_path, monkeypatch):
    """Gatekeeper runs a downloaded, unmoved app from a randomised read-only copy under
    .../AppTranslocation/<uuid>/ that is gone after a restart (Apple's 'App Translocation Notes'):
    an agent naming it would start nothing at the next login."""
    from parler_desktop.platform.autostart import launch_agent

    translocated = "/private/var/folders/zy/x/T/AppTranslocation/613DF902-6BE1-4C37/d/Parler.app/Contents/MacOS/parler-desktop"
    monkeypatch.setattr(launch_agent, "launch_command", lambda _home: [translocated])
    home = Home.resolve(tmp_path / "home")
    path = agent_file(home, user_home=tmp_path)
    with pytest.raises(OSError, match="Applications"):
        sync_agent(True, home, path)
    assert not path.exists() and sync_agent(False, home, path) is False


@pytest.mark.skipif(sys.platform != "darwin", reason="plutil is macOS's")
def test_plutil_accepts_the_launch_agent(tmp_path):
    path = tmp_path / "agent.plist"
    path.write_bytes(agent_plist("com.parler.desktop", launch_command(Home.resolve(tmp_path / "home"))))
    done = subprocess.run(["plutil", "-lint", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), min_size=1), min_size=1, max_size=5))
def test_a_run_value_reads_back_as_its_command(command):
    assert parse_run_value(run_value(command)) == command


def test_a_run_value_quotes_paths_with_spaces_and_quotes():
    command = [r"C:\Program Files\Parler\parler-desktop.exe", "--home", 'C:\\Users\\a "b"\\home\\']
    value = run_value(command)
    assert value == r'"C:\Program Files\Parler\parler-desktop.exe" --home "C:\Users\a \"b\"\home\\"'
    assert parse_run_value(value) == command and is_ours(value)


def test_a_run_value_of_a_pip_install_starts_pythonw_so_no_console_window_opens(tmp_path):
    """Windows gives python.exe (a console program) a console window for as long as it runs, and
    closing it ends the app; pythonw.exe, beside it in every install and venv, has none."""
    (tmp_path / "python.exe").write_bytes(b"")
    assert windowless_python(str(tmp_path / "python.exe"), "win32") == str(tmp_path / "python.exe")  # no pythonw: as is
    (tmp_path / "pythonw.exe").write_bytes(b"")
    assert windowless_python(str(tmp_path / "python.exe"), "win32") == str(tmp_path / "pythonw.exe")
    assert windowless_python(str(tmp_path / "python.exe"), "darwin") == str(tmp_path / "python.exe")
    assert is_ours(run_value([str(tmp_path / "pythonw.exe"), "-m", "parler_desktop"]))


def test_the_run_value_follows_the_setting_and_another_programs_value_is_left_alone(tmp_path):
    home = Home.resolve(tmp_path / "home")
    key = DictRunKey()
    name = value_name(home)
    assert name.startswith("Parler-") and sync_run_value(True, home, key) is True
    assert parse_run_value(key.values[name]) == launch_command(home) and sync_run_value(True, home, key) is False
    assert sync_run_value(False, home, key) is True and key.values == {}
    key.values[name] = r'"C:\Tools\other.exe" --tray'
    assert sync_run_value(True, home, key) is False and sync_run_value(False, home, key) is False
    assert key.values[name] == r'"C:\Tools\other.exe" --tray'
    assert RunKeyAutostart().location(home) == rf"HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run\{name}"


@pytest.mark.skipif(sys.platform != "win32", reason="the registry is Windows'")
def test_the_run_key_round_trips_through_the_registry(tmp_path):
    from parler_desktop.platform.autostart.run_key import WindowsRunKey

    home = Home.resolve(tmp_path / "home")
    key = WindowsRunKey()
    try:
        assert sync_run_value(True, home, key) is True
        assert parse_run_value(key.get(value_name(home)) or "") == launch_command(home)
    finally:
        sync_run_value(False, home, key)
    assert key.get(value_name(home)) is None
