"""NeedsAlerts: one desktop notification per "Needs you" item, ever, naming the agent, the kind
and the question; the rest of the messages follow the notification rules (``attention_notifier``
leaves out the messages that raised an item, so nothing is told twice). Mentions and DMs are
the rules' to tell, as before (their alert names the room and the line); a room muted on its
hub (level "nothing") tells nothing here either.

Which items were told is kept in each hub's store (``needs_notified``), so a reconnect, a
restart or a wake never tells one again. New items are gathered until the line is live and has
been quiet for ``quiet_ms`` (a catch-up ends first): then each is told, or, when more than
``SUMMARY_AFTER`` came at once (after a wake, at launch), one summary for them all. In Do Not
Disturb or paused they count as told: the queue holds them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.attention.attention_notifier import QUIET_MS, Alert
from parler_desktop.app.attention.attention_settings import AttentionSettings, Level
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.app.needs_you.hub_needs import HubItem, HubNeeds
from parler_desktop.app.needs_you.needs_rules import NeedKind
from parler_desktop.app.needs_you.waiting_words import first_line
from parler_desktop.protocol.readable import readable
from parler_desktop.store import LocalStore, StoreError

SUMMARY_AFTER = 3


def alert_of(found: HubItem, several_hubs: bool) -> Alert:
    item = found.item
    room = found.entry.rooms.label(item.room)
    where = f"{room} · {found.entry.label}" if several_hubs else room
    title = readable(f"{item.agent_name} · {item.kind.label} · {where}")
    body = readable(first_line(item.text) or item.kind.label)
    return Alert(item.room, item.seq, title, body, found.entry.url, f"needs:{item.key}", item.kind is not NeedKind.JOIN)


def summary_of(found: list[HubItem]) -> Alert:
    agents = sorted({f.item.agent_name for f in found})
    named = ", ".join(agents[:3]) + (f" and {len(agents) - 3} others" if len(agents) > 3 else "")
    return Alert("", 0, f"{len(found)} things need you", readable(f"Waiting on you: {named}"), "", "needs:summary")


class NeedsAlerts(QObject):
    alert = Signal(object)  # Alert

    def __init__(
        self, needs: HubNeeds, settings: Callable[[], AttentionSettings], parent: QObject | None = None,
        quiet_ms: int = QUIET_MS,
    ) -> None:
        super().__init__(parent)
        self._needs = needs
        self._settings = settings
        self._told: dict[HubEntry, tuple[object, set[str]]] = {}  # per hub: its store, the items told there
        self._reading: set[HubEntry] = set()
        self._quiet = QTimer(self, singleShot=True, interval=quiet_ms, timeout=self._flush)
        needs.changed.connect(self._quiet.start)
        for entry in needs.hubs.entries:
            self._added(entry)
        needs.hubs.added.connect(self._added)

    def _added(self, entry: HubEntry) -> None:
        entry.bridge.stateChanged.connect(lambda _state: self._quiet.start() if entry.bridge.is_live else None)

    def _flush(self) -> None:
        fresh: list[HubItem] = []
        for found in self._needs.items():
            entry = found.entry
            if found.item.kind is NeedKind.MENTION:
                continue  # the rules' (module docstring)
            watch = self._needs.watch(entry)
            if watch is None or not watch.ready or not entry.bridge.is_live:
                continue
            store, told = self._told.get(entry, (None, set()))
            if store is None or store is not entry.bridge.store:
                self._read_told(entry)
                continue
            if found.item.key not in told:
                fresh.append(found)
        if not fresh:
            return
        for found in fresh:
            self._told[found.entry][1].add(found.item.key)
        for entry in {found.entry for found in fresh}:
            keys = [found.item.key for found in fresh if found.entry is entry]
            store = entry.bridge.store
            if store is not None:
                entry.bridge.tasks.spawn("notified", store.call(LocalStore.mark_needs_notified, keys))
        settings = self._settings()
        fresh = [f for f in fresh if settings.level(f.entry.url, f.item.room) is not Level.NONE]
        if settings.quiet() or not fresh:
            return
        if len(fresh) > SUMMARY_AFTER:
            self.alert.emit(summary_of(fresh))
            return
        several = len(self._needs.hubs.entries) > 1
        for found in fresh:
            self.alert.emit(alert_of(found, several))

    def _read_told(self, entry: HubEntry) -> None:
        if entry not in self._reading and entry.bridge.store is not None:
            self._reading.add(entry)
            entry.bridge.tasks.spawn("notified items", self._read(entry, entry.bridge.store))

    async def _read(self, entry: HubEntry, store: object) -> None:
        try:
            told = await store.call(LocalStore.needs_notified)
        except StoreError:
            told = set()
        finally:
            self._reading.discard(entry)
        if store is entry.bridge.store:
            self._told[entry] = (store, told)
            self._flush()
