"""The composer's text belongs to one room: each room's draft (and reply target) is put away
and brought back as the human switches rooms, and a post leaves the composer only once it is
durably in the outbox (a failed write keeps the text and says why).
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from parler_desktop.app.hubs.bridge import SessionBridge, why_not_posted
from parler_desktop.app.composer.drafts import DraftKeeper
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.client.errors import SessionClosed
from parler_desktop.store import StoreError
from parler_desktop.store.drafts import Draft
from parler_desktop.ui.composer.composer import Composer
from parler_desktop.ui.timeline.timeline_view import TimelineView


class RoomComposer(QObject):
    def __init__(self, bridge: SessionBridge, composer: Composer, timeline: TimelineView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._composer = composer
        self._timeline = timeline
        self._model: TimelineModel = timeline.model()
        self.drafts = DraftKeeper(bridge, self)
        self._composing_for: tuple[str, str] | None = None  # (hub, room) the composer's text belongs to
        composer.submitted.connect(self._post)
        composer.draftChanged.connect(self._remember)

    def switch_to(self, room: str) -> None:
        """Put the last room's text away and bring ``room``'s draft; the same room again (a
        session reopened) keeps its text."""
        composing_for = (self._bridge.hub_url, room)
        if composing_for != self._composing_for:
            self._composing_for = composing_for
            self._composer.restore("", None, "")  # the last room's draft is kept by self.drafts
            self._bridge.tasks.spawn("draft", self._restore(room))

    async def _restore(self, room: str) -> None:
        draft = await self.drafts.recall(room)
        untouched = not self._composer.edit.toPlainText() and self._composer.reply_to is None
        if draft is not None and room == self._model.room and untouched:
            self._composer.restore(draft.text, draft.reply_to, draft.reply_label)

    def _remember(self) -> None:
        room = self._model.room
        if room is not None:
            composer = self._composer
            self.drafts.remember(Draft(room, composer.edit.toPlainText(), composer.reply_to, composer.reply_label))

    def _post(self, text: str, mentions: list, reply_to: object, extra_parts: list) -> None:
        room = self._model.room
        if room is None:
            self._composer.refused("Not sent: open a room first.")
            return
        reply = reply_to if isinstance(reply_to, str) else None
        self._timeline.scroll_to_newest()  # the post shows at the bottom, in view
        post = self._post_durably(self._composing_for, self._bridge.session, room, text, mentions, reply, extra_parts)
        self._bridge.tasks.spawn("post", post)

    async def _post_durably(
        self, composing_for: tuple[str, str] | None, session: object, room: str, text: str, mentions: list,
        reply_to: str | None, extra_parts: list,
    ) -> None:
        """The composer lets go of the text only once it is in the outbox on disk (of the hub
        shown when Enter was pressed). If the human switched rooms meanwhile, the composer shows
        that room's draft: it is left alone, and a post that could not be saved goes back to its
        own room's draft."""
        try:
            await self._bridge.post(room, text, mentions, reply_to, extra_parts, session=session)
        except Exception as error:
            if self._composing_for == composing_for:
                self._composer.refused(why_not_posted(error))
            else:
                self.drafts.remember(Draft(room, text, reply_to, ""))
            if not isinstance(error, (StoreError, ValueError, SessionClosed)):
                raise  # unexpected: the task supervisor reports it as well
            return
        if self._composing_for == composing_for:
            self._composer.accepted()
        else:
            self.drafts.remember(Draft(room, "", None, ""))  # sent: the room's draft is spent
