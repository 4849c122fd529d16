"""Which identity the human has on a hub: the home's, unless the settings chose a key file for it.

The window and the headless commands both ask here, by the address they dial, so a script given
``--hub`` posts as the same agent as the window on that hub and shares its store and outbox. A
chosen key file that cannot be used stops that hub with a sentence; it never falls back to the
home's identity, which would post there as somebody else.
"""

from __future__ import annotations

from pathlib import Path

from parler_desktop.client.address import normalize_hub_url
from parler_desktop.identity import Identity, load_identity, load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.platform.secrets.file_secrets import store_for
from parler_desktop.settings import Settings


def _dials(hub: str, url: str) -> bool:
    try:
        return bool(hub) and normalize_hub_url(hub) == url
    except ValueError:  # an address in the settings that cannot be dialed is no hub we dial
        return False


def hub_key_file(home: Home, settings: Settings, hub_url: str) -> Path:
    """The key file of the identity used on the hub dialed at ``hub_url`` (normalized). Raises
    ``ValueError`` when the settings' entry for it names no usable file, or two different ones."""
    chosen = {path for hub, path in settings.hub_key_files.items() if _dials(hub, hub_url)}
    if not chosen:
        return home.key_file
    if len(chosen) > 1 or not next(iter(chosen)).strip():
        raise ValueError(
            f"The settings ({home.settings_file}) name no usable key file for {hub_url}, so it is not "
            "connected as another identity; choose its identity again with Hub → Connect…"
        )
    return Path(next(iter(chosen))).expanduser()


def load_hub_identity(home: Home, settings: Settings, hub_url: str) -> Identity:
    """The identity for ``hub_url`` (blocking: call it off the UI thread). The home's key file is
    made on first use; a key file chosen for the hub must exist. The home's own key files (in its
    config folder) keep their seeds in the OS credential store where there is one. Raises
    ``KeyFileError`` or ``ValueError``."""
    path = hub_key_file(home, settings, hub_url)
    store = store_for(home, path)
    return load_or_create_identity(path, store) if path == home.key_file else load_identity(path, store)
