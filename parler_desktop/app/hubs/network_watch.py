"""Tell the session when the operating system says the network changed (Wi-Fi switch, resume).

A laptop that moves between networks keeps a socket that looks open and is dead; Qt's network
information backend (NetworkManager, the Windows or macOS equivalents) reports reachability
changes, and each one makes the session probe its connection at once instead of waiting for
the heartbeat to fail. Where the platform has no backend this does nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QNetworkInformation

from parler_desktop.app.hubs.bridge import SessionBridge


class NetworkWatch(QObject):
    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.active = QNetworkInformation.loadBackendByFeatures(QNetworkInformation.Feature.Reachability)
        info = QNetworkInformation.instance() if self.active else None
        if info is not None:
            info.reachabilityChanged.connect(self._changed)

    def _changed(self, reachability: QNetworkInformation.Reachability) -> None:
        if reachability != QNetworkInformation.Reachability.Disconnected:
            self._bridge.notify_network_changed()
