"""The embedded Parler hub: asyncio + websockets + sqlite3, wire-compatible with the Rust hub."""

from parler_desktop.hub.config import HubConfig, HubFaults, HubLimits, RateBudget
from parler_desktop.hub.db import HubDatabaseError
from parler_desktop.hub.embedded import EmbeddedHub
from parler_desktop.hub.server import Hub

__all__ = ["EmbeddedHub", "Hub", "HubConfig", "HubDatabaseError", "HubFaults", "HubLimits", "RateBudget"]
