"""Search for the window: the results list model, the query runner and the background indexer.

"All rooms" searches every hub the window holds (each hub's store, newest first across them);
a room's search, the shown hub's. Queries run on the stores' threads; typing restarts a short delay so a word typed fast costs one
query, and an answer that arrives after a newer query started is dropped. The indexer works
through the messages stored before the index existed, one small step per store call, so other
store work is never held up for long, and reports its progress.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.client.page_writer import write_turn
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.protocol.readable import readable
from parler_desktop.store.search import SNIPPET_END, SNIPPET_START, BacklogProgress, SearchHit

log = logging.getLogger(__name__)

SEARCH_DELAY_MS = 150
RESULT_LIMIT = 200
BACKLOG_STEP = 2000
PROGRESS_POLL_SECS = 1.0  # how often the progress is read while only the sync's indexing is left
HIT_PLACE = Qt.ItemDataRole.UserRole + 1  # "room label" (then " · hub" while the window holds several)
HIT_HUB = Qt.ItemDataRole.UserRole + 2  # the hub of the hit, as the settings name it
_SPACES = re.compile(r"\s+")

Index = QModelIndex | QPersistentModelIndex


def snippet_runs(snippet: str) -> list[tuple[str, bool]]:
    """The snippet as (text, matched) runs, each run's whitespace collapsed to single spaces."""
    pieces = snippet.replace(SNIPPET_END, SNIPPET_START).split(SNIPPET_START)
    runs = [(_SPACES.sub(" ", readable(piece)), number % 2 == 1) for number, piece in enumerate(pieces)]
    return [(text, matched) for text, matched in runs if text]


def hit_heading(place: str, hit: SearchHit) -> tuple[str, str, str]:
    """Where, who and when, as a result's first line shows them."""
    return place, hit.sender, datetime.datetime.fromtimestamp(hit.ts / 1000).strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class SearchQuery:
    text: str
    room: str | None = None
    author: str | None = None
    kind: str | None = None


class SearchResultsModel(QAbstractListModel):
    searching = Signal(bool)
    finished = Signal(int)  # how many results the newest query found

    def __init__(self, hubs: HubList, shown: Callable[[], HubEntry | None], parent: QObject | None = None) -> None:
        """``shown()``: the hub whose room a room search searches."""
        super().__init__(parent)
        self._hubs = hubs
        self._shown = shown
        self._hits: list[tuple[HubEntry, SearchHit]] = []
        self._query = SearchQuery("")
        self._generation = 0
        self._timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self._timer.timeout.connect(self._run)

    # Hub time (ms) below which the searched caches pruned messages (store/retention.py): the
    # newest search's results may miss older ones, which only the hub holds (None: none pruned).
    pruned_before_ms: int | None = None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._hits)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        entry, hit = self._hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return hit.snippet
        if role == Qt.ItemDataRole.UserRole:
            return hit
        if role == HIT_PLACE:
            return "  ·  ".join(self._place(entry, hit))
        if role == Qt.ItemDataRole.AccessibleTextRole:  # as shown: the match's marks are not characters to read
            words = "".join(text for text, _matched in snippet_runs(hit.snippet))
            return f"{', '.join(hit_heading(' on '.join(self._place(entry, hit)), hit))}: {words}"
        if role == HIT_HUB:
            return entry.url
        return None

    def _place(self, entry: HubEntry, hit: SearchHit) -> tuple[str, ...]:
        """The room's label, then the hub's while the window holds several."""
        label = entry.rooms.label(hit.room)
        return (label, entry.label) if len(self._hubs.entries) > 1 else (label,)

    def hit(self, row: int) -> SearchHit | None:
        return self._hits[row][1] if 0 <= row < len(self._hits) else None

    def hub_of(self, row: int) -> str | None:
        return self._hits[row][0].url if 0 <= row < len(self._hits) else None

    def set_query(self, query: SearchQuery) -> None:
        self._query = query
        self._generation += 1
        self._timer.start()

    def _run(self) -> None:
        shown = self._shown()
        hubs = [shown] if self._query.room is not None else list(self._hubs.entries)
        hubs = [entry for entry in hubs if entry is not None and entry.bridge.store is not None]
        if not hubs:
            return
        self.searching.emit(True)
        hubs[0].bridge.tasks.spawn("search", self._search(self._query, self._generation, hubs))

    async def _search(self, query: SearchQuery, generation: int, hubs: list[HubEntry]) -> None:
        async def search(entry: HubEntry) -> list[tuple[HubEntry, SearchHit]]:
            found = await entry.bridge.store.call(LocalStore.search, query.text, query.room, query.author, query.kind, RESULT_LIMIT)
            return [(entry, hit) for hit in found]

        answers = await asyncio.gather(*(search(entry) for entry in hubs))
        pruned = await asyncio.gather(*(entry.bridge.store.call(LocalStore.pruned_newest_ts) for entry in hubs))
        hits = sorted((pair for answer in answers for pair in answer), key=lambda pair: pair[1].ts, reverse=True)[:RESULT_LIMIT]
        if generation != self._generation:
            return
        self.beginResetModel()
        self._hits = hits
        self.pruned_before_ms = max((ts for ts in pruned if ts is not None), default=None)
        self.endResetModel()
        self.searching.emit(False)
        self.finished.emit(len(hits))


class SearchIndexer(QObject):
    progress = Signal(object)  # BacklogProgress

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.latest: BacklogProgress | None = None
        bridge.sessionChanged.connect(self._session_changed)

    def _session_changed(self) -> None:
        self.latest = None
        if self._bridge.store is not None:
            self._bridge.tasks.spawn("search index", self._index(self._bridge.store))

    async def _index(self, store: Any) -> None:
        """Step by step until done; a store that cannot be written now (a full disk opens it
        read-only) leaves the rest for the next session: search still finds what is indexed.

        What a killed process left unindexed is indexed here, even offline, but only that: the
        pages a launch's catch-up stores meanwhile are indexed by the session's sync after it,
        a batch at a time behind the process's page writes (client/sync.py). Indexing them here
        too, beside the catch-up, took the cores and the GIL from it (bench_hubs.py's wake)."""
        try:
            left = await store.call(LocalStore.newest_pending)
            if left is not None:
                await store.index_all_pending(write_turn(), up_to=left)
            step = functools.partial(LocalStore.index_backlog, batch=BACKLOG_STEP)
            while store is self._bridge.store:
                self.latest = await store.call(step)
                self.progress.emit(self.latest)
                if self.latest.done:
                    return
                if not self.latest.older:  # only what the sync indexes is left: read now and then, not written
                    step = LocalStore.search_progress
                    await asyncio.sleep(PROGRESS_POLL_SECS)
        except StoreError as error:
            log.info("the search index is not built further for now: %s", error)
