"""Release hygiene: one version, a reproducible wheel that carries the assets, an sdist that tests.

The wheel and sdist are built by the real build backend (setuptools, a test dependency) in
subprocesses, from an unpacked sdist, as a packager would.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import parler_desktop
from parler_desktop.assets import ICON_SIZES, METAINFO_ID

ROOT = Path(__file__).resolve().parent.parent
EPOCH = "1700000000"


def build(kind: str, source: Path, out: Path, **env: str) -> Path:
    """``kind`` is "sdist" or "wheel"; runs setuptools' PEP 517 hook in ``source``."""
    out.mkdir(parents=True, exist_ok=True)
    code = f"from setuptools import build_meta; print(build_meta.build_{kind}({str(out)!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=source, capture_output=True, text=True, timeout=60,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a clean copy: an old egg-info's SOURCES.txt would otherwise add its files."""
    work = tmp_path_factory.mktemp("sdist")
    clean = ("*.egg-info", ".venv", ".git", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis")
    shutil.copytree(ROOT, work / "checkout", ignore=shutil.ignore_patterns(*clean))
    return build("sdist", work / "checkout", work / "out", SOURCE_DATE_EPOCH=EPOCH)


def unpack(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    return into / sdist.name.removesuffix(".tar.gz")


def test_version_flag_prints_the_one_version():
    done = subprocess.run(
        [sys.executable, "-m", "parler_desktop", "--version"], capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stdout) == (0, f"parler-desktop {parler_desktop.__version__}\n")


def test_wheel_is_reproducible_and_carries_license_assets_and_every_module(sdist: Path, tmp_path: Path):
    first = unpack(sdist, tmp_path / "a")
    second = unpack(sdist, tmp_path / "b")
    for path in second.rglob("*"):  # a later checkout: every file has another time stamp
        os.utime(path, (1_800_000_000, 1_800_000_000))
    wheels = [build("wheel", source, tmp_path / f"out-{source.parent.name}", SOURCE_DATE_EPOCH=EPOCH) for source in (first, second)]
    digests = {hashlib.sha256(wheel.read_bytes()).hexdigest() for wheel in wheels}
    assert len(digests) == 1, "two builds of one source with one SOURCE_DATE_EPOCH differ"

    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
        info = f"parler_desktop-{parler_desktop.__version__}.dist-info"
        metadata = wheel.read(f"{info}/METADATA").decode()
    assert f"Version: {parler_desktop.__version__}\n" in metadata
    assert f"{info}/licenses/LICENSE" in names
    modules = {str(path.relative_to(ROOT)) for path in (ROOT / "parler_desktop").rglob("*.py")}
    assert modules <= names, f"missing from the wheel: {sorted(modules - names)}"
    assets = {
        "parler_desktop/resources/parler-desktop.desktop",
        f"parler_desktop/resources/{METAINFO_ID}.metainfo.xml",
        "parler_desktop/resources/icons/parler-desktop.svg",
        "parler_desktop/resources/icons/parler-desktop.ico",
        "parler_desktop/resources/icons/parler-desktop.icns",
        *(f"parler_desktop/resources/icons/hicolor/{n}x{n}/apps/parler-desktop.png" for n in ICON_SIZES),
    }
    assert assets <= names, f"missing from the wheel: {sorted(assets - names)}"

    # installed from the wheel (not this checkout), the app finds them at run time
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target), str(wheels[0])], check=True, timeout=120)
    probe = (
        "import parler_desktop.assets as a, sys; "
        "paths = [a.icon_png(n) for n in a.ICON_SIZES] + [a.desktop_entry(), a.metainfo()]; "
        "print(a.resources_dir()); sys.exit(0 if all(p.is_file() for p in paths) else 1)"
    )
    found = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {probe}"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert found.returncode == 0 and found.stdout.strip() == str(target / "parler_desktop" / "resources"), found.stderr


def test_sdist_runs_its_own_tests(sdist: Path, tmp_path: Path):
    source = unpack(sdist, tmp_path)
    for needed in ("tests/conftest.py", "tests/support/hub_fixtures.py", "tests/data/protocol_examples.jsonl", "LICENSE"):
        assert (source / needed).is_file(), f"the sdist lacks {needed}"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_layering.py", "tests/test_protocol_examples.py"],
        cwd=source, capture_output=True, text=True, timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
