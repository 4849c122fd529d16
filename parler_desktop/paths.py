"""Where identity, settings and data live.

One *home* holds everything of one identity, so several identities can run side by side:
``--home DIR`` or ``PARLER_DESKTOP_HOME`` puts config, data and logs under DIR; otherwise the
platformdirs config, data and log dirs are used.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "parler-desktop"
HOME_ENV = "PARLER_DESKTOP_HOME"


@dataclass(frozen=True)
class Home:
    """The directories of one identity's home."""

    config_dir: Path
    data_dir: Path
    log_dir: Path

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None = None) -> "Home":
        chosen = home if home is not None else os.environ.get(HOME_ENV) or None
        if chosen is not None:
            root = Path(chosen).expanduser().resolve()
            return cls(config_dir=root / "config", data_dir=root / "data", log_dir=root / "logs")
        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
            log_dir=Path(platformdirs.user_log_dir(APP_NAME)),
        )

    @property
    def is_platform_default(self) -> bool:
        """True for the home used without --home or PARLER_DESKTOP_HOME."""
        return self.config_dir == Path(platformdirs.user_config_dir(APP_NAME))

    @property
    def key_file(self) -> Path:
        return self.config_dir / "identity.json"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def join_secret_file(self) -> Path:
        return self.config_dir / "join-secret"

    @property
    def embedded_hub_dir(self) -> Path:
        return self.data_dir / "embedded-hub"

    def hub_key_file(self, hub_url: str) -> Path:
        """Where the identity made for one hub is kept (when the human gives it one of its own):
        beside the home's key file, so removing the hub and adding it again finds it."""
        return self.config_dir / "identities" / f"{_file_stem(hub_url, hub_url)}.json"

    def store_path(self, hub_url: str, agent_id: str) -> Path:
        """One local database per (hub, identity)."""
        stem = _file_stem(hub_url, f"{hub_url}\n{agent_id}")
        return self.data_dir / "stores" / f"{stem}.sqlite3"

    def ensure(self) -> "Home":
        for directory in (self.config_dir, self.data_dir):
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self


def _file_stem(hub_url: str, unique: str) -> str:
    """A file name a person can place (the hub's address) that stays one per ``unique``."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", hub_url).strip("-")[:48]
    return f"{slug}-{hashlib.sha256(unique.encode()).hexdigest()[:12]}"
