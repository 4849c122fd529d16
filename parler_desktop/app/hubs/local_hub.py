"""The embedded hub the window runs when no hub is configured, and the join secret file.

The local store is keyed by hub URL, so the embedded hub must come back on the same port every
launch: it prefers the port it used last (7070 the first time) and only when that port is taken
picks a free one and remembers it, in a small file beside the hub's data.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from parler_desktop.hub import EmbeddedHub, HubConfig, HubLimits
from parler_desktop.paths import Home
from parler_desktop.platform.secrets.file_secrets import save_to_store_or_file, store_for

PREFERRED_PORT = 7070
PORT_FILE = "port"


def remembered_port(hub_dir: Path) -> int:
    try:
        port = int((hub_dir / PORT_FILE).read_text().strip())
    except (OSError, ValueError):
        return PREFERRED_PORT
    return port if 0 < port < 65536 else PREFERRED_PORT


def start_local_hub(home: Home) -> EmbeddedHub:
    """Start the embedded hub on 127.0.0.1 (blocking: call it from a thread). Raises OSError."""
    hub_dir = home.embedded_hub_dir
    hub_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    config = HubConfig(
        db_path=hub_dir / "hub.sqlite3",
        host="127.0.0.1",
        port=remembered_port(hub_dir),
        limits=HubLimits().relaxed(),  # one person's own hub: no rate budgets to trip over
    )
    hub = EmbeddedHub(config)
    try:
        hub.start()
    except OSError:  # the port is taken: use a free one from now on
        hub = EmbeddedHub(dataclasses.replace(config, port=0))
        hub.start()
    if hub.hub.port != config.port or not (hub_dir / PORT_FILE).exists():
        (hub_dir / PORT_FILE).write_text(f"{hub.hub.port}\n")
    return hub


def save_join_secret(home: Home, secret: str, path: Path | None = None) -> Path:
    """Keep a join secret for ``path`` (default: the home's secret file, the first hub's): in the
    OS credential store where there is one and the file is the home's own, else in that file,
    private (0600) from its first byte (a fresh file renamed over the old one, so an older file's
    looser rights do not survive).
    """
    path = path or home.join_secret_file
    save_to_store_or_file(path, secret, store_for(home, path))
    return path
