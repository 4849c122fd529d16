"""Row layouts remembered per (row, width), so laying out the whole timeline costs a lookup a row.

The view lays every row out again after rows are inserted above others or removed, and at a new
width (``row_list_view``). Computing a row's layout, even from the layout cache, meant building
its context and cache key each time: about 15–25 µs a row. Here a row's layout is kept under its
key with everything else that decides it (the width, the row above, the "New messages" divider,
what the reader expanded, the send status, the hour: a date separator may say "Today"), checked
in a couple of microseconds, for sizes and for painting alike; only a new row, or one whose
neighbourhood changed, is laid out.

When only the width changed, a row outside ``exact_rows`` (what is on screen, see
``width_relayout``) keeps its last layout's height for the moment and is noted ``stale``, to be
laid out at the new width a little later (painting always asks for the exact layout). While a
room opens, a row outside them never laid out takes the ``estimate`` instead (``estimated``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from parler_desktop.app.timeline.timeline_entry import RowContext, TimelineEntry, row_context
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.timeline.message_layout import RowLayout

LIMIT = 20_000  # rows remembered before starting over (far more than a view holds)


class RowSizes:
    def __init__(self) -> None:
        self._known: dict[str, tuple[tuple[object, ...], RowLayout]] = {}
        self.exact_rows: range | None = None  # None: every row is laid out when asked
        self.stale: set[str] = set()  # keys of rows whose height is still the one of another width, or a guess
        self.estimate: int | None = None  # while a room opens: the height a row outside exact_rows is guessed at

    def clear(self) -> None:
        self._known.clear()
        self.stale.clear()
        self.estimate = None

    def estimated(self, row: int, key: str) -> int | None:
        """While a room opens (``estimate`` set), the height of a row outside ``exact_rows`` never
        laid out: the guess, the row noted ``stale`` to be laid out a little later; else None."""
        if self.estimate is None or self.exact_rows is None or row in self.exact_rows or key in self._known:
            return None
        self.stale.add(key)
        return self.estimate

    def forget(self, keys: Iterable[str]) -> None:
        """Forget the rows of ``keys`` (removed from the model)."""
        for key in keys:
            self._known.pop(key, None)
            self.stale.discard(key)

    def layout(
        self,
        model: TimelineModel,
        row: int,
        entry: TimelineEntry,
        width: int,
        compute: Callable[[RowContext, bool, frozenset[int]], RowLayout],
        exact: bool,
        answered: bool = False,
    ) -> RowLayout:
        """The row's layout at ``width``; ``compute(context, expanded, open_cards)`` lays it out
        when nothing known still holds (unless only the width changed, ``exact`` is false and the
        row is outside ``exact_rows``: then the old layout, for its height). ``answered``: the
        human acted on the request the row holds (its card loses its buttons). What the key is
        made of is handed to ``compute``, not looked up again: a pushed message's row is laid
        out here, on its way to the screen."""
        above = model.entry(row - 1) if row else None
        divider = row == model.first_unread_row()
        expanded, open_cards = model.is_expanded(entry.key), model.open_cards(entry.key)
        token = (
            width,
            above.key if above is not None else None,
            divider,
            expanded,
            open_cards,
            entry.outbox.status if entry.outbox is not None else None,
            entry.seq,
            time.time() // 3600,
            answered,
        )
        known = self._known.get(entry.key)
        if known is not None:
            if known[0] == token:
                return known[1]
            lazy = not exact and self.exact_rows is not None and row not in self.exact_rows
            if lazy and known[0][1:] == token[1:]:
                self.stale.add(entry.key)
                return known[1]
        if len(self._known) >= LIMIT:
            self._known.clear()
        layout = compute(row_context(above, entry, divider), expanded, open_cards)
        self._known[entry.key] = (token, layout)
        self.stale.discard(entry.key)
        return layout
