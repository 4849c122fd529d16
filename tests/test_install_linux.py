"""``packaging/install-linux.sh`` from a checkout, for a throw-away user: a private venv with the
app built from this checkout, the command, a valid menu entry that handles parler:// links, the
icons at every size and the metainfo; ``--uninstall`` takes them away and keeps the identity.
(The bundle install is checked by ``packaging/build.py`` on every bundle.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parler_desktop.assets import ICON_SIZES

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "packaging" / "install-linux.sh"

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux desktop install"), pytest.mark.timeout(180)]


def script(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["bash", str(SCRIPT), *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=170)


def test_install_from_the_checkout_then_uninstall(tmp_path: Path):
    home = tmp_path / "user"
    done = script(home, "--python", sys.base_prefix + "/bin/python3")  # a plain Python, as a user has
    assert done.returncode == 0, done.stderr[-3000:]
    share = home / ".local" / "share"
    entry = share / "applications" / "parler-desktop.desktop"
    launcher = home / ".local" / "bin" / "parler-desktop"
    assert f'Exec="{launcher}" %u' in entry.read_text().splitlines()
    assert "MimeType=x-scheme-handler/parler;" in entry.read_text().splitlines()
    if shutil.which("desktop-file-validate"):
        assert subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True).stdout == ""
    for size in ICON_SIZES:
        assert (share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "parler-desktop.png").is_file()
    assert (share / "metainfo" / "io.github.tamdogood.ParlerDesktop.metainfo.xml").is_file()
    version = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("parler-desktop ")
    (home / ".config" / "parler-desktop").mkdir(parents=True)
    (home / ".config" / "parler-desktop" / "identity.json").write_text("{}")

    gone = script(home, "--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert not entry.exists() and not launcher.exists() and not (share / "parler-desktop" / "venv").exists()
    assert not (share / "icons" / "hicolor" / "48x48" / "apps" / "parler-desktop.png").exists()
    assert (home / ".config" / "parler-desktop" / "identity.json").exists()
