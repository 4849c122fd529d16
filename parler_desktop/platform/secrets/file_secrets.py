"""A secret file's content moved into the credential store without ever being lost.

The move is: write the store, read it back, compare, and only then take the secret out of the
file; any failure on the way leaves the file as it was (it is tried again on the next read). So at
every moment at least one of the two holds the secret. What "taking it out" means is the
caller's: a join secret's file is removed (``read_moving_to_store``); a key file keeps its public
id and says where its seed is (``identity.py``). Only files the app itself made are moved: a file
the human named (``join_secret_file``, a reference tool's ``config.json``) is theirs, and other
programs may read it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from parler_desktop.atomic_file import write_atomically
from parler_desktop.paths import Home
from parler_desktop.platform.secrets import SecretStore, SecretStoreError, credential_store

log = logging.getLogger(__name__)


def store_for(home: Home, path: Path) -> SecretStore | None:
    """The credential store for a secret file of ``home``'s own (in its config folder), None for
    a file elsewhere (the human named it; other programs may read it) or where there is no store."""
    return credential_store() if path.absolute().is_relative_to(home.config_dir.absolute()) else None


def join_secret_name(path: Path) -> str:
    """The store's name for the join secret the app keeps at ``path`` (one per hub and home)."""
    return f"join secret {path.absolute()}"


def copy_to_store(store: SecretStore, name: str, value: str) -> bool:
    """Whether ``value`` is now in ``store`` under ``name``, checked by reading it back."""
    try:
        store.put(name, value)
        if store.get(name) == value:
            return True
        log.warning("the credential store did not give back what was written to it; the secret stays in its file")
    except SecretStoreError as error:
        log.warning("the credential store refused a secret (%s); it stays in its file", error)
    return False


def move_out_of_file(path: Path, store: SecretStore, name: str, value: str, empty_file: Callable[[], None]) -> bool:
    """Copy ``value`` (read from ``path``) into ``store``; only once it reads back, ``empty_file()``
    takes it out of the file. True when it moved."""
    if not copy_to_store(store, name, value):
        return False
    try:
        empty_file()
    except OSError as error:
        log.warning("%s is in the credential store but could not be taken out of its file (%s)", path, error.strerror)
        return False
    log.info("%s: its secret is now in the credential store", path)
    return True


def read_moving_to_store(path: Path, store: SecretStore | None) -> str:
    """The join secret kept for ``path``: the file's when it exists (moved into ``store``, if any,
    and the file removed), else the store's. ``FileNotFoundError`` when neither holds it; a store
    that cannot be read counts as holding nothing (the caller asks the human again)."""
    name = join_secret_name(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        try:
            value = None if store is None else store.get(name)
        except SecretStoreError as error:
            log.warning("the credential store cannot be read (%s)", error)
            value = None
        if value is None:
            raise
        return value
    if store is not None:
        move_out_of_file(path, store, name, text, path.unlink)
    return text


def save_to_store_or_file(path: Path, value: str, store: SecretStore | None) -> None:
    """Keep a join secret for ``path``: in ``store`` when it takes it (an older file removed),
    else in the file, private (0600) from its first byte. Raises OSError."""
    if store is not None and copy_to_store(store, join_secret_name(path), value):
        try:
            path.unlink(missing_ok=True)  # an older file would win over the store on reading
            return
        except OSError:
            pass  # then the file is overwritten below, so it holds the same secret
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomically(path, value.encode("utf-8"))
