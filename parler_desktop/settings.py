"""User settings shared by the window and the command line: one small JSON file per home.

Holds who the human appears as (display name, role), which hub to use (``""`` = the embedded
hub), where the join secret lives and which CA file to trust for a ``wss://`` hub. A corrupt or
unreadable file never stops the app: loading reports the problem as a message and falls back to
defaults, and the file is left untouched so nothing the user wrote is lost; saving over it moves it
aside first.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.atomic_file import write_atomically
from parler_desktop.paths import Home
from parler_desktop.protocol.trim import trim

JOIN_SECRET_ENV = "PARLER_JOIN_SECRET"
DEFAULT_ROLE = "supervisor"


def default_display_name() -> str:
    """The OS user's full name ("Dana Smith"), else the login name, else "supervisor"."""
    try:
        login = getpass.getuser().strip()
    except (OSError, KeyError):  # no login name (containers, odd environments)
        login = ""
    try:
        import pwd  # POSIX only

        full = pwd.getpwuid(os.getuid()).pw_gecos.split(",")[0].strip()
    except (ImportError, KeyError, OSError):
        full = ""
    return full or login or "supervisor"


@dataclass(frozen=True)
class Settings:
    display_name: str = dataclasses.field(default_factory=default_display_name)
    role: str | None = DEFAULT_ROLE  # None: send no role in hello
    hub_url: str = ""  # "" = run and use the embedded hub
    join_secret_file: str = ""  # "" = the home's default join-secret file
    hub_ca_files: dict[str, str] = dataclasses.field(default_factory=dict)  # wss:// hub URL -> its CA file
    start_at_login: bool = False  # XDG autostart entry (Linux), kept in step by autostart.py


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    problem: str | None = None  # a sentence for the user when the file could not be used as is


_FIELD_TYPES = {
    "display_name": (str,),
    "role": (str, type(None)),
    "hub_url": (str,),
    "join_secret_file": (str,),
    "hub_ca_files": (dict,),
    "start_at_login": (bool,),
}


def _strings_only(value: object) -> bool:
    """A mapping (the CA files) must map strings to strings; other values pass."""
    return not isinstance(value, dict) or all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def load_settings(path: Path) -> LoadedSettings:
    """Read settings; a missing file gives defaults, a bad one defaults plus a problem message."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return LoadedSettings(Settings())
    except (OSError, UnicodeDecodeError) as error:
        return LoadedSettings(Settings(), f"Could not read settings file {path} ({error}); using defaults.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return LoadedSettings(
            Settings(), f"Settings file {path} is not valid JSON ({error}); using defaults. Fix or delete it."
        )
    if not isinstance(data, dict):
        return LoadedSettings(Settings(), f"Settings file {path} does not hold a JSON object; using defaults.")
    values: dict[str, object] = {}
    bad: list[str] = []
    for name, types in _FIELD_TYPES.items():
        if name not in data:
            continue
        if isinstance(data[name], types) and _strings_only(data[name]):
            values[name] = data[name]
        else:
            bad.append(name)
    settings = Settings(**values)  # type: ignore[arg-type]
    if not settings.display_name.strip():
        settings = dataclasses.replace(settings, display_name=default_display_name())
    if bad:
        return LoadedSettings(
            settings, f"Settings file {path}: ignored invalid value(s) for {', '.join(bad)}; using defaults for them."
        )
    return LoadedSettings(settings)


def save_settings(path: Path, settings: Settings) -> None:
    """Write atomically (temp file + rename); an unreadable old file is kept as ``*.corrupt-<time>``."""
    if path.exists() and load_settings(path).problem is not None:
        path.replace(path.with_name(f"{path.name}.corrupt-{int(time.time())}"))
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    payload = json.dumps(dataclasses.asdict(settings), indent=2, ensure_ascii=False) + "\n"
    write_atomically(path, payload.encode("utf-8"))


def read_join_secret(home: Home, settings: Settings) -> str | None:
    """The join secret to present: ``$PARLER_JOIN_SECRET``, else the secret file; None if neither.

    The file's surrounding whitespace is trimmed, as the hub trims the secret file it reads (the
    hub then compares bytes): one file can serve both, whatever line ending an editor added.
    Raises ``OSError`` when a configured secret file cannot be read.
    """
    from_env = os.environ.get(JOIN_SECRET_ENV)
    if from_env:
        return from_env
    configured = settings.join_secret_file.strip()
    path = Path(configured).expanduser() if configured else home.join_secret_file
    try:
        secret = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if configured:
            raise
        return None
    return trim(secret) or None
