"""A resumable, print-once feed of the stored messages, for ``listen``.

Printing MessagesStored events is not enough for a command: the store belongs to the whole home,
and a message the window (or another ``listen``) stored first is never announced in this process.
So the feed reads the store itself. Per room it keeps, in the store's meta, how far it has fed
without gaps (never beyond the room's sync mark, below which the store is complete) and which
messages above that it fed already (pushes not yet reconciled), so a message that fills a gap
later is still fed, once — in this process or the next. ``listen`` drains every second; a room
whose sync mark and message count did not change since its last drain is skipped without reading
its messages.

What a drain feeds is written down *before* it is delivered, and once written it is delivered
even if the drain is cancelled meanwhile: a write the disk refuses delivers nothing (the next
``listen`` does), so a command that stops on a full disk has printed every message once.

Live, what this process reads and stores is fed at once from the session's events
(``feed_live``), without reading it back: a push as it is read off the socket (``MessagesArrived``,
a store round trip sooner: the write to the store was most of ``listen``'s time from push to
line), and what it stores live (the rest: a burst, a pull that found a dropped push). Each is fed
once: a push fed as it arrived is skipped when its write is announced. They are remembered like
pushes above the mark, and the next drain skips them and records them (a message another process
on the home stored first, that this one's write therefore does not announce, too). Only rooms
drained once already are fed so (before that, older stored messages may be waiting to be fed
first); the rest are held until the room's drain ends and fed then, in seq order, after what
the drain read (a push held so may not be stored yet, so the drain itself may not see it; fed
any later, a push read after it would come first). The session announces pushes only once the
pushes read before them are stored, so a push fed as it arrives never comes before an earlier
push. At most ``MAX_HELD`` are held a room: the rest are stored after those, so the drains read
them from the store after those, in order.

At most ``MAX_AHEAD`` fed seqs are remembered above a room's gapless mark: a hub that pushes and
never fills the seqs it skipped (its pulls never reach them) grew that list ~140 B a message
(issue 47). Past it, the older half's gaps count as skipped (a message filling one later is not
fed) and ``listen`` says so once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from parler_desktop.client.tasks import TaskSupervisor, log_unheard_failure
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore, StoreWorker

FED_KEY = "listen-fed:"  # + room: "<seq up to which every message was fed> <fed seqs above it>..."
PAGE = 500
# Live messages held per room for its first clean drain; past these the drains read them from the
# store (in seq order, each once): under a push flood every drain raced a catch-up, the room never
# counted as drained and every message was held (issue 47: listen grew ~2.2 KB a message).
MAX_HELD = 1024
MAX_AHEAD = 1024  # fed seqs remembered above a room's gapless mark (see the module docstring)


@dataclass(frozen=True)
class FedState:
    """How far one room was fed without gaps, and the seqs above that which were fed too."""

    upto: int = 0
    ahead: frozenset[int] = frozenset()

    @classmethod
    def parse(cls, value: str | None) -> FedState:
        """The meta value as written by ``text`` (or an unreadable one: nothing fed)."""
        numbers = (value or "").split()
        if not numbers or not all(number.isdigit() for number in numbers):
            return cls()
        return cls(int(numbers[0]), frozenset(int(number) for number in numbers[1:]))

    def has_fed(self, seq: int) -> bool:
        return seq <= self.upto or seq in self.ahead

    def text(self) -> str:
        return " ".join(str(seq) for seq in (self.upto, *sorted(self.ahead)))

    def feeding(self, seqs: Iterable[int], complete_to: int | None) -> FedState:
        """This state after the messages ``seqs`` are fed and, with ``complete_to``, every
        message up to it."""
        upto = max(self.upto, complete_to or 0)
        ahead = frozenset(seq for seq in self.ahead.union(seqs) if seq > upto)
        if len(ahead) > MAX_AHEAD:  # the gaps below the newer half count as skipped
            newest = sorted(ahead)[-(MAX_AHEAD // 2) - 1:]
            upto, ahead = newest[0], frozenset(newest[1:])
        return FedState(upto, ahead)

    def skipped_from(self, before: FedState, complete_to: int | None) -> bool:
        """Whether this state, made by ``before.feeding(…, complete_to)``, took gaps as skipped."""
        return self.upto > max(before.upto, complete_to or 0)


class StoreFeed:
    def __init__(
        self,
        store: StoreWorker,
        deliver: Callable[[StoredMessage], bool],
        skipped: Callable[[str], None] = lambda _room: None,
    ) -> None:
        """``deliver`` returns False when the consumer is gone (then the feed stops); ``skipped``
        is told of the first room whose gaps were taken as skipped (``MAX_AHEAD``)."""
        self._store = store
        self._deliver = deliver
        self._skipped = skipped
        self._told_skipped = False
        self._fed: dict[str, FedState] = {}  # what was delivered
        self._recorded: dict[str, FedState] = {}  # what the store's meta says was delivered
        self._drained: dict[str, tuple[int, int]] = {}  # room -> its head (mark, count) when last drained
        self._catch_ups: dict[str, int] = {}  # room -> how many catch-ups stored behind it (``stored_behind``)
        self._held: dict[str, dict[int, StoredMessage]] = {}  # room -> live messages waiting for its drain
        self._recording = TaskSupervisor("listen-feed", log_failures=False)  # failures reach the drain

    def feed_live(self, messages: Iterable[StoredMessage], rooms: Collection[str] | None = None) -> bool:
        """Feed messages this process has just read or stored live (in ``rooms``, default every
        room), but none fed already; False once delivery stopped."""
        for message in messages:
            if rooms and message.room not in rooms:
                continue
            if message.room not in self._drained:
                held = self._held.setdefault(message.room, {})
                if len(held) < MAX_HELD:
                    held[message.seq] = message
                continue
            fed = self._fed[message.room]
            if fed.has_fed(message.seq):
                continue
            if not self._deliver(message):
                return False
            self._fed[message.room] = self._feeding(message.room, fed, [message.seq], None)
        return True

    def all_recorded(self) -> bool:
        """Everything fed is recorded in the store's meta, so a new feed would not feed it again
        (a push fed as it arrived is recorded by the first drain after its write lands)."""
        return self._fed == self._recorded

    def stored_behind(self, room: str) -> None:
        """A catch-up stored messages of ``room`` that only the drain prints: until the drain has
        run, live messages of that room wait for it too, so lines keep their order."""
        self._drained.pop(room, None)
        self._catch_ups[room] = self._catch_ups.get(room, 0) + 1

    async def drain(self, rooms: Iterable[str] | None = None, *, ahead: bool = True) -> bool:
        """Feed what is new in ``rooms`` (default: every stored room); False once delivery stopped.
        Without ``ahead`` only what lies under each room's sync mark is fed: while a session
        catches up, a message above it (a push that beat the catch-up of those below it) would
        be printed before them; no room counts as drained then, so live messages wait too.

        Raises ``StoreError`` when the store refuses to record what is fed (nothing is delivered)."""
        catch_ups = dict(self._catch_ups)
        heads = await self._store.call(LocalStore.room_heads)
        for room in list(rooms) if rooms is not None else list(heads):
            head = heads.get(room)
            if head is None or head == self._drained.get(room):
                continue  # nothing stored for it, or nothing stored nor marked since its last drain
            if not await self._drain_room(room, complete_to=head[0], ahead=ahead):
                return False
            if ahead and self._catch_ups.get(room) == catch_ups.get(room):
                self._drained[room] = head
                held = self._held.pop(room, {})
                if not self.feed_live(held[seq] for seq in sorted(held)):
                    return False
            # else a catch-up stored behind it while this drain read the store: what it stored may
            # not have been read, so live lines of the room still wait for the next drain
        return True

    async def _drain_room(self, room: str, complete_to: int, ahead: bool) -> bool:
        after = (await self._fed_state(room)).upto
        while True:
            page = await self._store.call(LocalStore.messages_after, room, after, PAGE)
            last = len(page) < PAGE or (not ahead and page[-1].seq >= complete_to)
            fed = self._fed[room]  # as of now: ``feed_live`` may have fed some of the page meanwhile
            fresh = [m for m in page if not fed.has_fed(m.seq) and (ahead or m.seq <= complete_to)]
            state = self._feeding(room, fed, (message.seq for message in fresh), complete_to if last else None)
            if state != self._recorded[room] and not await self._record_then_deliver(room, state, fresh):
                return False
            if last:
                return True
            after = page[-1].seq

    async def _record_then_deliver(self, room: str, state: FedState, messages: list[StoredMessage]) -> bool:
        async def record_and_deliver() -> bool:
            await self._store.call(LocalStore.set_meta, FED_KEY + room, state.text())
            self._recorded[room] = state
            fed_meanwhile = self._fed[room].ahead  # by ``feed_live``, while this was recorded
            self._fed[room] = self._feeding(room, state, fed_meanwhile, None)
            unfed = (message for message in messages if message.seq not in fed_meanwhile)
            return all(self._deliver(message) for message in unfed)  # stops at the first refusal

        task = self._recording.spawn(room, record_and_deliver())
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:  # it still delivers once recorded; nobody awaits it now
            task.add_done_callback(log_unheard_failure)
            raise

    def _feeding(self, room: str, fed: FedState, seqs: Iterable[int], complete_to: int | None) -> FedState:
        state = fed.feeding(seqs, complete_to)
        if not self._told_skipped and state.skipped_from(fed, complete_to):
            self._told_skipped = True
            self._skipped(room)
        return state

    async def _fed_state(self, room: str) -> FedState:
        if room not in self._fed:
            recorded = FedState.parse(await self._store.call(LocalStore.get_meta, FED_KEY + room))
            self._fed[room] = self._recorded[room] = recorded
        return self._fed[room]

