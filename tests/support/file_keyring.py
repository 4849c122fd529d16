"""A credential store in a JSON file: a real keyring backend, for tests of where secrets live.

``file_keyring`` makes it keyring's backend for one test (the suite's is ``null``: conftest.py),
so ``platform.secrets.credential_store()`` finds it as it finds the Keychain; a command in a
subprocess gets it with ``PYTHON_KEYRING_BACKEND=support.file_keyring.FileKeyring`` and the file
in ``KEYRING_TEST_FILE`` (``subprocess_environment``). ``refuse`` makes it
refuse writes (a locked keychain); ``garble`` makes it keep something other than it was given;
``fail_with`` makes every call raise that error, as the OS stores' own errors pass through keyring
(Windows' ``pywintypes.error`` from CredRead/CredWrite, a Keychain ``api.Error``, SecretStorage's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import null
from keyring.errors import KeyringLocked, PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]  # a usable store (keyring's own attribute)

    def __init__(self, path: Path | None = None) -> None:
        super().__init__()
        self.path = path or Path(os.environ["KEYRING_TEST_FILE"])
        self.refuse = False
        self.garble = False
        self.fail_with: Exception | None = None

    def _fail(self) -> None:
        if self.fail_with is not None:
            raise self.fail_with

    def entries(self) -> dict[str, str]:
        return json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        self._fail()
        return self.entries().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        self._fail()
        if self.refuse:
            raise KeyringLocked("the test's keychain is locked")
        entries = self.entries()
        entries[f"{service}/{username}"] = password[::-1] if self.garble else password
        self.path.write_text(json.dumps(entries), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        self._fail()
        entries = self.entries()
        if entries.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError(username)
        self.path.write_text(json.dumps(entries), encoding="utf-8")


def subprocess_environment(path: Path) -> dict[str, str]:
    """What a command needs to keep its secrets in ``path`` (keyring loads the class by name)."""
    tests = str(Path(__file__).resolve().parent.parent)
    return {"PYTHON_KEYRING_BACKEND": f"{__name__}.FileKeyring", "KEYRING_TEST_FILE": str(path), "PYTHONPATH": tests}


@pytest.fixture
def file_keyring(tmp_path: Path) -> Iterator[FileKeyring]:
    backend = FileKeyring(tmp_path / "keyring.json")
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(null.Keyring())
