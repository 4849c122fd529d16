"""Which handler answers which op once the connection is authenticated."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from parler_desktop.hub.ops import blobs, directory, memory, messages, presence, rooms, services
from parler_desktop.protocol import frames

Handler = Callable[[Any, Any, Any], Awaitable[Any]]

HANDLERS: dict[type, Handler] = {
    frames.Invite: rooms.handle_invite,
    frames.Redeem: rooms.handle_redeem,
    frames.JoinRequests: rooms.handle_join_requests,
    frames.ResolveJoin: rooms.handle_resolve_join,
    frames.Rooms: rooms.handle_rooms,
    frames.Roster: rooms.handle_roster,
    frames.DeleteRoom: rooms.handle_delete_room,
    frames.Serve: rooms.handle_serve,
    frames.Send: messages.handle_send,
    frames.Pull: messages.handle_pull,
    frames.Presence: presence.handle_presence,
    frames.SetAttention: presence.handle_set_attention,
    frames.Ping: presence.handle_ping,
    frames.Subscribe: presence.handle_subscribe,
    frames.Register: directory.handle_register,
    frames.Discover: directory.handle_discover,
    frames.Lookup: directory.handle_lookup,
    frames.MintDirectoryToken: directory.handle_mint_directory_token,
    frames.MintWatch: directory.handle_mint_watch,
    frames.PutBlob: blobs.handle_put_blob,
    frames.GetBlob: blobs.handle_get_blob,
    frames.Queue: services.handle_queue,
    frames.Claim: services.handle_claim,
    frames.Complete: services.handle_complete,
    frames.Remember: memory.handle_remember,
    frames.Recall: memory.handle_recall,
}
