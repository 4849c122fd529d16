"""Where secrets live: the identity seed and join secrets in the OS credential store where one
exists, else in a 0600 file as before.

``SecretStore`` is the seam. Its implementation is ``keyring`` (``keyring_store.py``), whose
backends are each OS's documented store: the macOS Keychain, the Windows Credential Manager and
the freedesktop Secret Service (GNOME Keyring, KWallet) on Linux. ``credential_store()`` is None
where there is no such store (Linux without a Secret Service, a headless machine, or
``PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring``): the files stay what they are.
``file_secrets.py`` moves a file's secret into the store without ever losing it. Nothing here
logs or raises a secret's value.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

log = logging.getLogger(__name__)

SERVICE = "parler-desktop"  # every entry of ours in the store is under this service name
_DETECTING = threading.Lock()  # one discovery at a time: a second caller waits for the first's result


class SecretStoreError(Exception):
    """The credential store refused or failed (locked, denied, gone); never names the secret."""


class SecretStore(Protocol):
    def get(self, name: str) -> str | None:
        """The secret kept under ``name``, None if there is none. Raises SecretStoreError."""
        ...

    def put(self, name: str, value: str) -> None:
        """Keep ``value`` under ``name`` (replacing what was there). Raises SecretStoreError."""
        ...

    def delete(self, name: str) -> None:
        """Forget ``name`` (nothing if absent). Raises SecretStoreError."""
        ...


def credential_store() -> SecretStore | None:
    """The OS credential store keyring chose, or None where there is none (blocking: its first
    call in a process imports keyring and discovers its backends, ~0.2 s)."""
    with _DETECTING:
        try:
            from parler_desktop.platform.secrets.keyring_store import KeyringStore, os_backend

            backend = os_backend()
        except Exception as error:  # keyring missing or its backend discovery failed: files, as before
            log.info("no credential store (%s); secrets stay in files", type(error).__name__)
            return None
    return None if backend is None else KeyringStore(backend)


def discover_credential_store_now() -> threading.Thread:
    """Start keyring's discovery on a thread of its own, so the window's sessions, which each
    load their identity (and its seed) before they open their store and list their cached rooms,
    find it done instead of all waiting on it at launch (it overlaps building the window)."""
    thread = threading.Thread(target=credential_store, name="parler-credential-store", daemon=True)
    thread.start()
    return thread
