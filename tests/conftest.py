"""Shared test setup: offscreen Qt, and the fixture plugins under tests/support/."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest_plugins = ["support.hub_fixtures", "support.small_disk", "support.desktop_fixtures"]
