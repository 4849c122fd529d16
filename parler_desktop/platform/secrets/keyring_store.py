"""``SecretStore`` on keyring: Keychain (macOS), Credential Manager (Windows), Secret Service (Linux).

keyring picks the OS's backend (or the one ``PYTHON_KEYRING_BACKEND`` / ``keyring.set_keyring``
names). Its fallbacks that keep nothing (``fail``, ``null``) or that are no OS store at all count as
no store: the secrets then stay in their files.

Every failure is a ``SecretStoreError``, not only keyring's own: its backends let the OS store's
errors through (Windows: win32ctypes' ``pywintypes.error`` from CredRead/CredWrite other than "not
found", e.g. a blob over CRED_MAX_CREDENTIAL_BLOB_SIZE; macOS: the Security API's ``Error`` on
reading; Linux: SecretStorage's and D-Bus errors), and a caller that sees the store fail keeps the
secret in its file.
"""

from __future__ import annotations

import keyring
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null
from keyring.errors import PasswordDeleteError

from parler_desktop.platform.secrets import SERVICE, SecretStoreError


def os_backend() -> KeyringBackend | None:
    """keyring's chosen backend when it really keeps secrets, else None."""
    backend = keyring.get_keyring()
    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    return backend


class KeyringStore:
    def __init__(self, backend: KeyringBackend) -> None:
        self._backend = backend

    @property
    def name(self) -> str:
        """Which store this is (for the log: "macOS Keychain", "Windows WinVaultKeyring", …)."""
        return getattr(self._backend, "name", type(self._backend).__name__)

    def get(self, name: str) -> str | None:
        try:
            return self._backend.get_password(SERVICE, name)
        except Exception as error:  # noqa: BLE001 - see the module docstring
            raise self._failed(error) from None

    def put(self, name: str, value: str) -> None:
        try:
            self._backend.set_password(SERVICE, name, value)
        except Exception as error:  # noqa: BLE001 - see the module docstring
            raise self._failed(error) from None

    def delete(self, name: str) -> None:
        try:
            self._backend.delete_password(SERVICE, name)
        except PasswordDeleteError:
            pass  # not there: already forgotten
        except Exception as error:  # noqa: BLE001 - see the module docstring
            raise self._failed(error) from None

    def _failed(self, error: Exception) -> SecretStoreError:
        """The error named by its type only: an OS error's text could quote what it was given."""
        return SecretStoreError(f"{self.name}: {type(error).__name__}")
