"""Build the downloadable app for the OS this runs on, test it, and pack it.

    python -m venv build-venv && build-venv/bin/pip install pyinstaller
    build-venv/bin/python packaging/build.py

1. builds the app's wheel (reproducibly, ``SOURCE_DATE_EPOCH`` from the last commit or now) and
   installs it into this venv, so the bundle holds exactly what users of the wheel get;
2. runs PyInstaller with ``packaging/parler-desktop.spec`` (one-folder bundle; ``Parler.app`` on
   macOS);
3. runs the frozen app's ``self-test`` (embedded hub, window offscreen, an agent and the window
   exchange a message; it must exit 0) and ``--version``, and prints the bundle's size and start
   times;
4. packs it: Linux a tarball with ``install-linux.sh`` and the glibc floor it needs (read from the
   bundle's own binaries), then installs it for a throw-away user, runs it and uninstalls; Windows the Inno Setup installer when ``iscc`` is on PATH; macOS a zip
   of the app (sign and notarise it as packaging/README.md says).

Everything lands in ``dist/``; ``build/`` holds PyInstaller's work files.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
SPEC = ROOT / "packaging" / "parler-desktop.spec"
APP = "parler-desktop"


def run(*command: str | Path, **kwargs) -> subprocess.CompletedProcess:  # noqa: ANN003
    print("+", " ".join(str(part) for part in command), flush=True)
    return subprocess.run([str(part) for part in command], check=True, **kwargs)


def source_date_epoch() -> str:
    if "SOURCE_DATE_EPOCH" in os.environ:
        return os.environ["SOURCE_DATE_EPOCH"]
    try:
        return subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return str(int(time.time()))


def check_environment() -> None:
    if sys.prefix == sys.base_prefix:
        raise SystemExit("build.py: run it from a venv (it installs the app's wheel there); see its docstring")
    try:
        metadata.version("pyinstaller")
    except metadata.PackageNotFoundError:
        raise SystemExit("build.py: PyInstaller is not installed here: pip install pyinstaller") from None
    try:
        direct = json.loads(metadata.distribution(APP).read_text("direct_url.json") or "{}")
    except metadata.PackageNotFoundError:
        return
    if direct.get("dir_info", {}).get("editable"):
        raise SystemExit("build.py: this venv has an editable install of the app; use a separate build venv")


def install_wheel(epoch: str) -> Path:
    wheels = ROOT / "build" / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", wheels, ROOT, env={**os.environ, "SOURCE_DATE_EPOCH": epoch})
    wheel = next(wheels.glob("parler_desktop-*.whl"))
    run(sys.executable, "-m", "pip", "install", "--quiet", wheel)
    run(sys.executable, "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", wheel)
    return wheel


def build_bundle() -> Path:
    """Run from outside the checkout: its parler_desktop must not shadow the installed wheel's."""
    WORK.mkdir(parents=True, exist_ok=True)
    run(sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
        "--distpath", DIST, "--workpath", WORK, SPEC, cwd=WORK)
    return DIST / APP


def executable(bundle: Path) -> Path:
    if sys.platform == "darwin":
        return DIST / "Parler.app" / "Contents" / "MacOS" / APP
    return bundle / (f"{APP}.exe" if sys.platform == "win32" else APP)


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def timed(*command: str | Path) -> tuple[float, str]:
    """Wall-clock seconds and stdout of a command that must succeed."""
    started = time.perf_counter()
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"build.py: {' '.join(map(str, command))} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return elapsed, done.stdout.strip()


def smoke(program: Path) -> dict[str, str]:
    cold, version = timed(program, "--version")
    warm, _ = timed(program, "--version")
    total, report = timed(program, "self-test")
    return {
        "version": version,
        "start (--version), first run": f"{cold:.2f} s",
        "start (--version), again": f"{warm:.2f} s",
        "self-test, whole process": f"{total:.2f} s",
        "self-test says": report,
    }


GLIBC_SYMBOL = re.compile(rb"GLIBC_(\d+)\.(\d+)")


def glibc_floor(bundle: Path) -> str:
    """The newest glibc symbol version any binary in the bundle asks for: the oldest glibc it runs on."""
    newest = (2, 0)
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink() and (path.suffix == ".so" or ".so." in path.name or path.name == APP):
            with path.open("rb") as binary:
                if binary.read(4) != b"\x7fELF":
                    continue
                for major, minor in GLIBC_SYMBOL.findall(binary.read()):
                    newest = max(newest, (int(major), int(minor)))
    return f"{newest[0]}.{newest[1]}"


def pack_linux(bundle: Path, version: str) -> Path:
    floor = glibc_floor(bundle)
    build_glibc = os.confstr("CS_GNU_LIBC_VERSION") or "unknown"
    machine = os.uname().machine
    name = f"{APP}-{version}-linux-{machine}"
    notes = (
        f"Parler Desktop {version} for Linux {machine}\n\n"
        f"Needs glibc {floor} or newer (built on {build_glibc}) and the X11/Wayland libraries listed in\n"
        "README.md \"Requirements\" (the app names any that are missing when it starts).\n\n"
        "Install for the current user (menu entry, icons, parler:// links):\n"
        f"    ./install-linux.sh --bundle {APP}\n"
        f"or run it in place: ./{APP}/{APP}\n"
        "Remove it again: ./install-linux.sh --uninstall (your identity and data are kept)\n"
    )
    target = DIST / f"{name}.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        def add(path: Path, arcname: str) -> None:
            archive.add(path, arcname=f"{name}/{arcname}")

        add(bundle, APP)
        add(ROOT / "packaging" / "install-linux.sh", "install-linux.sh")
        add(ROOT / "LICENSE", "LICENSE")
        add(ROOT / "packaging" / "THIRD-PARTY.md", "THIRD-PARTY.md")
        readme = WORK / "INSTALL.txt"
        readme.write_text(notes)
        add(readme, "INSTALL.txt")
    print(notes)
    return target


def check_linux_install(tarball: Path) -> str:
    """Unpack the tarball, install it for a throw-away user, run the installed command, check the
    menu entry (with desktop-file-validate where installed) and uninstall again."""
    with tempfile.TemporaryDirectory(prefix="parler-install-") as scratch:
        home = Path(scratch) / "home"
        with tarfile.open(tarball) as archive:
            archive.extractall(scratch, filter="tar")
        unpacked = Path(scratch) / tarball.name.removesuffix(".tar.gz")
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        run("bash", unpacked / "install-linux.sh", "--bundle", unpacked / APP, env=env, stdout=subprocess.DEVNULL)
        entry = home / ".local" / "share" / "applications" / f"{APP}.desktop"
        if shutil.which("desktop-file-validate"):
            run("desktop-file-validate", entry)
        _, version = timed(home / ".local" / "bin" / APP, "--version")
        run("bash", unpacked / "install-linux.sh", "--uninstall", env=env, stdout=subprocess.DEVNULL)
        if entry.exists() or (home / ".local" / "bin" / APP).exists():
            raise SystemExit("build.py: install-linux.sh --uninstall left the app behind")
    return f"installed, ran ({version}) and uninstalled"


def pack_windows(version: str) -> Path | None:
    iscc = shutil.which("iscc") or shutil.which("ISCC")
    if iscc is None:
        print("iscc (Inno Setup) is not on PATH: no installer made; the bundle is in dist/parler-desktop")
        return None
    run(iscc, f"/DAppVersion={version}", f"/DSourceDir={DIST / APP}", f"/O{DIST}", ROOT / "packaging" / "windows" / "parler-desktop.iss")
    return DIST / f"{APP}-{version}-setup.exe"


def pack_macos(version: str) -> Path:
    target = DIST / f"Parler-{version}-macos.zip"
    run("ditto", "-c", "-k", "--keepParent", DIST / "Parler.app", target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description="Build, test and pack the app for this OS.")
    parser.add_argument("--skip-build", action="store_true", help="test and pack the bundle already in dist/")
    args = parser.parse_args()
    check_environment()
    epoch = source_date_epoch()
    started = time.perf_counter()
    if not args.skip_build:
        install_wheel(epoch)
        build_bundle()
    bundle = DIST / APP
    version = metadata.version(APP)
    facts = smoke(executable(bundle))
    facts["bundle size"] = f"{folder_size(bundle) / 1e6:.1f} MB in {sum(1 for _ in bundle.rglob('*'))} files"
    if sys.platform.startswith("linux"):
        package = pack_linux(bundle, version)
        facts["tarball install"] = check_linux_install(package)
    elif sys.platform == "win32":
        package = pack_windows(version)
    else:
        package = pack_macos(version)
    if package is not None:
        facts["package"] = f"{package.relative_to(ROOT)} ({package.stat().st_size / 1e6:.1f} MB)"
    facts["build time"] = f"{time.perf_counter() - started:.0f} s"
    width = max(map(len, facts))
    for name, value in facts.items():
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
