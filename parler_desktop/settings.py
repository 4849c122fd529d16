"""User settings shared by the window and the command line: one small JSON file per home.

Holds who the human appears as (display name, role), which hubs the window holds (``""`` = the
embedded hub; the first is the one commands use by default), where each hub's join secret lives,
which CA file to trust for a ``wss://`` hub, how each hub's rooms are sorted, which key file is
the human's identity on a hub that does not use the home's, and the window's colour scheme. A file
from before the list (one ``hub_url``)
reads as a list of that one hub; saving writes ``hub_url`` too, so an older version still finds
its hub. A corrupt or
unreadable file never stops the app: loading reports the problem as a message and falls back to
defaults, and the file is left untouched so nothing the user wrote is lost; saving over it moves it
aside first.
"""

from __future__ import annotations

import dataclasses
import getpass
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.atomic_file import write_atomically
from parler_desktop.paths import Home
from parler_desktop.platform.secrets.file_secrets import read_moving_to_store, store_for
from parler_desktop.protocol.trim import trim

JOIN_SECRET_ENV = "PARLER_JOIN_SECRET"
DEFAULT_ROLE = "supervisor"
ROOMS_BY_NAME = "name"  # a hub's ``room_order``: its rooms A–Z


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
    hubs: tuple[str, ...] = ("",)  # the window's hubs in the sidebar's order; "" = run and use the embedded hub
    join_secret_file: str = ""  # the first hub's join-secret file; "" = the home's default one
    hub_ca_files: dict[str, str] = dataclasses.field(default_factory=dict)  # wss:// hub URL -> its CA file
    # hub URL -> the key file of the identity used there (absent: the home's; NO_KEY_FILE: none usable)
    hub_key_files: dict[str, str] = dataclasses.field(default_factory=dict)
    hub_names: dict[str, str] = dataclasses.field(default_factory=dict)  # hub URL -> the name the human gave it
    room_order: dict[str, str] = dataclasses.field(default_factory=dict)  # hub URL -> ROOMS_BY_NAME (absent: by activity)
    # hub URL -> how much of its history the cache keeps (store/retention.py's text; absent: the default)
    hub_retention: dict[str, str] = dataclasses.field(default_factory=dict)
    start_at_login: bool = False  # the OS's login start (platform/autostart), kept in step by the window
    appearance: str = "system"  # View → Appearance: "system" (follow the desktop), "light" or "dark"

    @property
    def hub_url(self) -> str:
        """The first hub: the one commands use without ``--hub``, and the window shows first."""
        return self.hubs[0] if self.hubs else ""

    def with_hub(self, url: str, *, first: bool = False) -> Settings:
        """These settings holding ``url`` too (at the end, or moved to the front)."""
        if first:
            return dataclasses.replace(self, hubs=(url, *(hub for hub in self.hubs if hub != url)))
        return self if url in self.hubs else dataclasses.replace(self, hubs=(*self.hubs, url))

    def with_key_file(self, url: str, path: str | None) -> Settings:
        """These settings using the key file ``path`` on ``url`` (None: the home's identity)."""
        files = {hub: chosen for hub, chosen in self.hub_key_files.items() if hub != url}
        return dataclasses.replace(self, hub_key_files=files if path is None else {**files, url: path})

    def with_hub_name(self, url: str, name: str) -> Settings:
        """These settings calling ``url`` ``name`` in the window ("" or only spaces: its address)."""
        names = {hub: given for hub, given in self.hub_names.items() if hub != url}
        return dataclasses.replace(self, hub_names={**names, url: name.strip()} if name.strip() else names)

    def with_room_order(self, url: str, by_name: bool) -> Settings:
        """These settings listing ``url``'s rooms A–Z (``by_name``) or newest activity first."""
        orders = {hub: order for hub, order in self.room_order.items() if hub != url}
        return dataclasses.replace(self, room_order={**orders, url: ROOMS_BY_NAME} if by_name else orders)

    def with_retention(self, url: str, policy_text: str) -> Settings:
        """These settings keeping ``policy_text`` of ``url``'s history in its cache."""
        return dataclasses.replace(self, hub_retention={**self.hub_retention, url: policy_text})

    def without_hub(self, url: str) -> Settings:
        """These settings without ``url`` (its CA file, name and room order); the last hub is never removed. Its
        key file stays chosen: adding it again, or a command given its address, uses it."""
        rest = tuple(hub for hub in self.hubs if hub != url)
        if not rest:
            return self
        ca_files = {hub: path for hub, path in self.hub_ca_files.items() if hub != url}
        return dataclasses.replace(self, hubs=rest, hub_ca_files=ca_files).with_hub_name(url, "").with_room_order(url, False)


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    problem: str | None = None  # a sentence for the user when the file could not be used as is


NO_KEY_FILE = ""  # a hub's key file entry that names no file: the hub waits for the human's choice


def _read_key_files(value: object, hubs: tuple[str, ...]) -> tuple[dict[str, str], bool]:
    """The hub -> key file map, and whether some of it was no file name. Such an entry becomes
    ``NO_KEY_FILE`` (a map that is no map, one for every hub with an address): that hub is not
    connected until the human chooses its identity again, never as the home's identity instead."""
    if isinstance(value, dict):
        return {hub: path if isinstance(path, str) else NO_KEY_FILE for hub, path in value.items()}, not _strings_only(value)
    return {hub: NO_KEY_FILE for hub in hubs if hub}, True


_FIELD_TYPES = {
    "display_name": (str,),
    "role": (str, type(None)),
    "hubs": (list,),
    "hub_url": (str,),  # before ``hubs``: the one hub
    "join_secret_file": (str,),
    "hub_ca_files": (dict,),
    "hub_names": (dict,),
    "room_order": (dict,),
    "hub_retention": (dict,),
    "start_at_login": (bool,),
    "appearance": (str,),
}


def _strings_only(value: object) -> bool:
    """A mapping (the CA files) must map strings to strings, a list hold strings; other values pass."""
    if isinstance(value, list):
        return all(isinstance(item, str) for item in value)
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
    legacy_hub = values.pop("hub_url", "")
    listed = values.pop("hubs", None)
    hubs = tuple(dict.fromkeys(listed)) if listed else (legacy_hub,)  # order kept, each once
    key_files, bad_key_files = _read_key_files(data.get("hub_key_files", {}), hubs)
    settings = Settings(hubs=hubs, hub_key_files=key_files, **values)  # type: ignore[arg-type]
    if not settings.display_name.strip():
        settings = dataclasses.replace(settings, display_name=default_display_name())
    problems = [f"ignored invalid value(s) for {', '.join(bad)}; using defaults for them."] if bad else []
    if bad_key_files:
        problems.append("hub_key_files names no usable key file for some hubs; they wait until you choose their identity again (Hub → Connect…).")
    if problems:
        return LoadedSettings(settings, f"Settings file {path}: {' '.join(problems)}")
    return LoadedSettings(settings)


def save_settings(path: Path, settings: Settings) -> None:
    """Write atomically (temp file + rename); an unreadable old file is kept as ``*.corrupt-<time>``."""
    if path.exists() and load_settings(path).problem is not None:
        path.replace(path.with_name(f"{path.name}.corrupt-{int(time.time())}"))
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    payload = json.dumps({**dataclasses.asdict(settings), "hub_url": settings.hub_url}, indent=2, ensure_ascii=False) + "\n"
    write_atomically(path, payload.encode("utf-8"))


def _first_hubs_file(home: Home, settings: Settings) -> Path:
    configured = settings.join_secret_file.strip()
    return Path(configured).expanduser() if configured else home.join_secret_file


def join_secret_path(home: Home, settings: Settings, hub_url: str | None = None) -> Path:
    """Where ``hub_url``'s join secret is saved (default: the first hub's): the first hub keeps
    the file a home had before it held several hubs (or the one ``join_secret_file`` names);
    every other hub has a file of its own, so one hub's secret is never presented to another."""
    if hub_url is None or hub_url == settings.hub_url:
        return _first_hubs_file(home, settings)
    digest = hashlib.sha256(hub_url.encode("utf-8")).hexdigest()[:20]
    return home.config_dir / "join-secrets" / digest


def read_join_secret(home: Home, settings: Settings, hub_url: str | None = None) -> str | None:
    """The join secret to present to ``hub_url`` (default: the first hub): ``$PARLER_JOIN_SECRET``
    (the caller's choice for this process), else the hub's own secret file; None if neither. A
    home holding one hub presents the first hub's file to any hub a command names, as before
    homes held several; with several, only the first hub gets it.

    Where the OS has a credential store (``platform/secrets``), the home's own secret files (in its
    config folder) are moved into it as they are read (``file_secrets.read_moving_to_store``).

    The file's surrounding whitespace is trimmed, as the hub trims the secret file it reads (the
    hub then compares bytes): one file can serve both, whatever line ending an editor added.
    Raises ``OSError`` when a configured secret file cannot be read.
    """
    from_env = os.environ.get(JOIN_SECRET_ENV)
    if from_env:
        return from_env
    first = _first_hubs_file(home, settings)
    own = join_secret_path(home, settings, hub_url)
    if own != first:
        try:
            return trim(read_moving_to_store(own, store_for(home, own))) or None
        except FileNotFoundError:
            if len(settings.hubs) > 1:
                return None
    try:
        secret = read_moving_to_store(first, store_for(home, first))
    except FileNotFoundError:
        if settings.join_secret_file.strip():
            raise  # the file the human named is missing
        return None
    return trim(secret) or None
