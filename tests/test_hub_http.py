"""HTTP routes, the per-IP budget and the connection cap (§1.1, §7.12, §10)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus


def get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def test_health(hub):
    status, headers, body = get(f"{hub.http_url}/health")
    assert (status, body) == (200, "ok")
    assert headers["Access-Control-Allow-Origin"] == "*"


def test_well_known_describes_the_hub(hub_factory):
    open_hub, secret_hub = hub_factory(), hub_factory(join_secret="s")
    status, headers, body = get(f"{open_hub.http_url}/.well-known/parler.json")
    description = json.loads(body)
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert description["protocolVersion"] == "0.2" and description["capabilities"]["joinPolicy"] == "open"
    assert description["capabilities"]["maxBlobBytes"] == 26_214_400
    assert json.loads(get(f"{secret_hub.http_url}/.well-known/parler.json")[2])["capabilities"]["joinPolicy"] == "secret"


def test_join_page_is_plain_text_and_unknown_paths_404(hub):
    status, headers, body = get(f"{hub.http_url}/join/K7QW2MZP")
    assert status == 200 and headers["Content-Type"].startswith("text/plain") and "K7QW2MZP" in body
    assert get(f"{hub.http_url}/nope")[0] == 404
    assert get(f"{hub.http_url}/")[0] == 200


def test_http_budget_per_ip_answers_429_but_never_for_health(hub_factory):
    hub = hub_factory(limits={"http_per_ip": {"count": 2, "window_secs": 60}})
    assert [get(f"{hub.http_url}/join/X")[0] for _ in range(2)] == [200, 200]
    status, headers, _ = get(f"{hub.http_url}/join/X")
    assert status == 429 and headers["Retry-After"] == "60"
    assert get(f"{hub.http_url}/health")[0] == 200


async def test_websocket_upgrade_counts_against_the_http_budget(hub_factory):
    hub = hub_factory(limits={"http_per_ip": {"count": 1, "window_secs": 60}})
    async with connect(hub.url, ping_interval=None):
        pass
    with pytest.raises(InvalidStatus) as refused:
        await connect(hub.url, ping_interval=None)
    assert refused.value.response.status_code == 429


async def test_connection_cap_sends_at_capacity_then_closes(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_connections": 1})
    first = await raw_agent(hub.url)
    second = await raw_agent(hub.url, handshake=False)
    reply = await second.recv()
    assert reply["type"] == "error" and reply["code"] == "at_capacity"
    await second.wait_closed()
    assert (await first.request({"op": "ping"}))["type"] == "pong"


def get_json(url: str, token: str | None = None) -> tuple[int, object]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_rest_directory_and_hub_stats(hub, raw_agent):
    alice, bob = await raw_agent(hub.url, name="alice"), await raw_agent(hub.url, name="bob")
    await alice.ok({"op": "register", "card": {"id": alice.id, "name": "alice", "kind": "agent"}, "visibility": "public"})
    await bob.ok({"op": "register", "card": {"id": bob.id, "name": "bob", "kind": "agent"}})
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": "team"})
    await alice.ok({"op": "send", "target": {"kind": "room", "room": invited["room"]},
                    "parts": [{"kind": "text", "text": "12345"}]})
    token = (await alice.ok({"op": "mint_directory_token"}))["token"]

    status, public = await asyncio.to_thread(get_json, f"{hub.http_url}/api/directory")
    assert status == 200 and [e["card"]["name"] for e in public] == ["alice"]
    status, refused = await asyncio.to_thread(get_json, f"{hub.http_url}/api/directory?scope=hub")
    assert status == 401 and "error" in refused
    status, everyone = await asyncio.to_thread(get_json, f"{hub.http_url}/api/directory?scope=hub&q=BO", token)
    assert status == 200 and [e["card"]["name"] for e in everyone] == ["bob"]
    assert (await asyncio.to_thread(get_json, f"{hub.http_url}/api/agents/{bob.id}"))[0] == 404
    assert (await asyncio.to_thread(get_json, f"{hub.http_url}/api/agents/{bob.id}", token))[0] == 200
    status, stats = await asyncio.to_thread(get_json, f"{hub.http_url}/api/hub")
    assert status == 200 and stats["agents"] == 2 and stats["publicAgents"] == 1
    assert stats["stats"]["messagesTotal"] == 1 and stats["stats"]["estimatedTokensTotal"] == 2
    assert stats["stats"]["liveConnections"] == 2
