"""The modules each OS's seams load only when used, named in one place.

The seams import them inside functions (so the package imports everywhere) and fall back quietly
when one is missing: the tray instead of notifications, no wake notification, secrets left in
files. So a bundle that lacks one would still start; the bundle's spec ships them
(``packaging/parler-desktop.spec``) and its self-test checks that each imports, as the test suite
does in a pip install on each OS (pyproject.toml's environment markers install them).
"""

from __future__ import annotations

import importlib
import sys

NATIVE_MODULES: dict[str, tuple[str, ...]] = {
    # NSWorkspace (wake), the notification centre, the Keychain (keyring's Security API binding)
    "darwin": ("rubicon.objc", "desktop_notifier.backends.macos", "keyring.backends.macOS.api"),
    # the Run key, toasts, the Credential Manager (keyring's backend imports it in a trap)
    "win32": ("winreg", "desktop_notifier.backends.winrt", "win32ctypes.pywin32.win32cred"),
    # notifications over D-Bus (jeepney), the Secret Service
    "linux": ("jeepney.io.asyncio", "secretstorage"),
}


def native_modules(platform: str = sys.platform) -> tuple[str, ...]:
    return NATIVE_MODULES.get("linux" if platform.startswith("linux") else platform, ())


def missing_native_modules(platform: str = sys.platform) -> list[str]:
    """Those of ``platform``'s modules that do not import here, with why."""
    missing = []
    for name in native_modules(platform):
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - ImportError, or a framework class not found (NameError)
            missing.append(f"{name} ({type(error).__name__}: {error})")
    return missing
