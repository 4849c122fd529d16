"""Start at login (XDG autostart) from the ``start_at_login`` setting: written, valid, removed,
and never removing an entry that is not ours."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from support.cli_runner import run_cli

from parler_desktop.platform.autostart.xdg import MARKER, entry_text, sync_autostart
from parler_desktop.paths import Home

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG autostart is Linux's")


@pytest.mark.timeout(60)
async def test_autostart_on_writes_a_valid_entry_for_this_program_and_off_removes_it(tmp_path):
    config = tmp_path / "xdg-config"
    on = await run_cli(tmp_path / "home", "autostart", "on", XDG_CONFIG_HOME=str(config))
    assert on.status == 0, on.stderr
    (entry,) = (config / "autostart").iterdir()  # this home's own entry (not the default home's)
    assert entry.name.startswith("parler-desktop-") and on.stdout == f"start at login: on ({entry})\n"
    lines = entry.read_text().splitlines()
    assert f'Exec="{sys.executable}" "-m" "parler_desktop" "--home" "{tmp_path / "home"}"' in lines and MARKER in lines
    assert not any(line.startswith("MimeType=") for line in lines)
    assert json.loads((tmp_path / "home" / "config" / "settings.json").read_text())["start_at_login"] is True
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout

    off = await run_cli(tmp_path / "home", "autostart", "off", XDG_CONFIG_HOME=str(config))
    assert off.status == 0 and off.stdout.startswith("start at login: off") and not entry.exists()


def test_an_entry_someone_else_wrote_is_left_alone(tmp_path):
    home = Home.resolve(tmp_path / "home")
    path = tmp_path / "autostart" / "parler-desktop.desktop"
    path.parent.mkdir()
    path.write_text("[Desktop Entry]\nType=Application\nName=mine\nExec=my-own-wrapper\n")
    assert sync_autostart(False, home, path) is False and path.exists()
    assert sync_autostart(True, home, path) is False and "my-own-wrapper" in path.read_text()
    path.unlink()
    assert sync_autostart(True, home, path) is True and MARKER in path.read_text()
    assert sync_autostart(True, home, path) is False  # already so
    assert sync_autostart(False, home, path) is True and not path.exists()


def test_exec_quoting_follows_the_desktop_entry_spec():
    text = entry_text(["/home/a$b/x%y", 'say "hi"'])
    assert 'Exec="/home/a\\$b/x%%y" "say \\"hi\\""' in text.splitlines()
