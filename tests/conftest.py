"""Shared test setup: offscreen Qt, and the fixture plugins under tests/support/."""

import os

from parler_desktop.ui.qt_environment import prepare_qt_environment  # noqa: E402 - before any QApplication

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Secrets stay in files unless a test sets a credential store (support/file_keyring.py): the
# suite never writes to the Keychain, Credential Manager or Secret Service of the machine it runs on.
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
prepare_qt_environment()  # the tests' Qt is set up as the app's

pytest_plugins = ["support.hang_backstop", "support.hub_fixtures", "support.small_disk", "support.desktop_fixtures"]
