"""``Hub``: the database worker, the WebSocket server and the HTTP routes, started and stopped
together on the caller's event loop."""

from __future__ import annotations

import asyncio
import logging

from websockets.asyncio.server import Server, ServerConnection, serve

from parler_desktop.file_lock import ExclusiveFileLock
from parler_desktop.hub.config import MIB, HubConfig
from parler_desktop.hub.connection import ClientConnection, remote_host
from parler_desktop.hub.context import HubContext, RateBudgets
from parler_desktop.hub.db_lock import lock_database
from parler_desktop.hub.dbworker import DbWorker
from parler_desktop.hub.http import route_http
from parler_desktop.hub.janitor import run_janitor
from parler_desktop.hub.read_buffer import BufferedServerConnection

log = logging.getLogger(__name__)

# A peer that does not answer our close frame promptly is dropped (e.g. a client whose loop is gone).
CLOSE_TIMEOUT_SECS = 1.0


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class Hub:
    """A Parler hub; ``await start()`` binds (raises OSError if the port is taken)."""

    def __init__(self, config: HubConfig) -> None:
        self.config = config
        self._server: Server | None = None
        self._ctx: HubContext | None = None
        self._janitor: asyncio.Task[None] | None = None
        self._db_lock: ExclusiveFileLock | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("hub is not started")
        return f"ws://{_url_host(self.config.host)}:{self.port}/ws"

    @property
    def public_url(self) -> str:
        assert self._ctx is not None
        return self._ctx.public_url

    @property
    def parked_polls(self) -> int:
        return self._ctx.wakeups.parked if self._ctx is not None else 0

    async def start(self) -> None:
        """Raises HubDatabaseError if another hub holds the database (or it is unusable)."""
        db_lock = lock_database(self.config.db_path)  # never two hubs over one database
        db = DbWorker(self.config.db_path)
        try:
            await db.start()
        except BaseException:
            db_lock.release()
            raise
        ctx = HubContext(config=self.config, db=db, public_url="", budgets=RateBudgets(self.config))
        try:
            self.config.resolved_blob_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._server = await serve(
                self._handle,
                self.config.host,
                self.config.port,
                process_request=lambda conn, req: route_http(ctx, conn, req),
                max_size=self.config.limits.max_blob_bytes + MIB,
                ping_interval=None,
                compression=None,
                max_queue=64,
                close_timeout=CLOSE_TIMEOUT_SECS,
                create_connection=BufferedServerConnection,
                # A flood of dials overflows a short accept queue (asyncio's is 100): the kernel
                # then drops the SYN of an agent's dial, which waits 1 s to send it again.
                backlog=4096,
            )
        except BaseException:
            await db.stop()
            db_lock.release()
            raise
        self._db_lock = db_lock
        self.port = self._server.sockets[0].getsockname()[1]
        ctx.public_url = (self.config.public_url or f"parler://{_url_host(self.config.host)}:{self.port}").rstrip("/")
        self._ctx = ctx
        self._janitor = asyncio.get_running_loop().create_task(run_janitor(ctx), name="hub-janitor")
        log.info("hub listening on %s", self.url)

    async def _handle(self, ws: ServerConnection) -> None:
        ctx = self._ctx
        assert ctx is not None
        await ClientConnection(ctx, ws, remote_host(ws)).run()

    async def stop(self) -> None:
        """Close every socket (1001), release parked polls, finish queued database work."""
        if self._server is None or self._ctx is None:
            return
        if self._janitor is not None:
            self._janitor.cancel()
            self._janitor = None
        self._ctx.wakeups.close()
        self._server.close()
        await self._server.wait_closed()
        await self._ctx.db.stop()
        self._server = None
        if self._db_lock is not None:
            self._db_lock.release()
            self._db_lock = None
