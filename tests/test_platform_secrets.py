"""Where secrets live: the home's identity seed and join secrets move into the OS credential store
(a file-backed keyring here, support/file_keyring.py) and are never lost on the way; without a
store, or for a file the human named, they stay files."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import stat
import subprocess
import sys

import pytest
from support.cli_runner import run_cli
from support.private_bus import bus_address, needs_dbus  # noqa: F401 - fixture
from support.file_keyring import FileKeyring, file_keyring, subprocess_environment  # noqa: F401 - the fixture
from test_cli_send_join import team, texts

from parler_desktop.app.hubs.local_hub import save_join_secret
from parler_desktop.client.hub_identity import load_hub_identity
from parler_desktop.identity import Identity, KeyFileError, load_identity, seed_name
from parler_desktop.paths import Home
from parler_desktop.platform.secrets import SERVICE, credential_store
from parler_desktop.settings import Settings, join_secret_path, read_join_secret

HUB = "ws://127.0.0.1:7070/ws"


@pytest.fixture
def home(tmp_path) -> Home:
    home = Home.resolve(tmp_path / "home")
    home.ensure()
    return home


def key_document(home: Home) -> dict:
    return json.loads(home.key_file.read_text(encoding="utf-8"))


def test_without_a_credential_store_the_seed_stays_in_its_file(home):
    assert credential_store() is None  # the suite's keyring is the null one (conftest.py)
    identity = load_hub_identity(home, Settings(), HUB)
    assert key_document(home) == {"id": identity.agent_id, "seed": identity.seed}


def test_the_window_discovers_the_store_once_while_the_sessions_wait_for_it(tmp_path):
    """The window starts keyring's discovery (~0.2 s) as it is built; every hub's session loading
    its identity meanwhile waits for that one discovery instead of running its own (a fresh process:
    this one's keyring is discovered already)."""
    program = (
        "import threading; import keyring.core as core;"
        "calls = [];"
        "real = core._detect_backend;"
        "core._detect_backend = lambda *a, **k: calls.append(1) or real(*a, **k);"
        "from parler_desktop.platform.secrets import credential_store, discover_credential_store_now;"
        "started = discover_credential_store_now();"
        "sessions = [threading.Thread(target=credential_store) for _ in range(5)];"
        "[t.start() for t in sessions]; [t.join(30) for t in [started, *sessions]];"
        "print(len(calls))"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


@needs_dbus
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Secret Service is Linux's store")
def test_a_session_bus_without_a_secret_service_leaves_the_seed_in_its_file(tmp_path, bus_address):
    """keyring's own choice, in a fresh process, on a desktop bus where no keyring daemon runs."""
    program = (
        "import sys; from parler_desktop.paths import Home; from parler_desktop.settings import Settings;"
        "from parler_desktop.client.hub_identity import load_hub_identity;"
        "from parler_desktop.platform.secrets import credential_store;"
        "assert credential_store() is None;"
        f"print(load_hub_identity(Home.resolve(sys.argv[1]), Settings(), {HUB!r}).agent_id)"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHON_KEYRING_BACKEND"}
    done = subprocess.run(
        [sys.executable, "-c", program, str(tmp_path / "home")],
        capture_output=True, text=True, timeout=60, env={**env, "DBUS_SESSION_BUS_ADDRESS": bus_address},
    )
    assert done.returncode == 0, done.stderr
    document = key_document(Home.resolve(tmp_path / "home"))
    assert document["id"] == done.stdout.strip() and "seed" in document


def test_the_homes_seed_moves_to_the_store_and_the_file_keeps_only_its_id(home, file_keyring, caplog):
    caplog.set_level(logging.DEBUG)
    identity = load_hub_identity(home, Settings(), HUB)
    assert key_document(home) == {"id": identity.agent_id, "seed_in": "credential store"}
    assert file_keyring.entries() == {f"{SERVICE}/{seed_name(identity.agent_id)}": identity.seed}
    if os.name == "posix":
        assert stat.S_IMODE(home.key_file.stat().st_mode) == 0o600
    assert load_hub_identity(home, Settings(), HUB).seed == identity.seed  # read back from the store
    assert load_identity(home.key_file).agent_id == identity.agent_id  # any reader finds it there
    assert identity.seed not in caplog.text


def test_an_older_key_file_moves_only_once_the_store_gives_the_seed_back(home, file_keyring):
    identity = Identity.generate()
    home.key_file.write_text(json.dumps({"id": identity.agent_id, "seed": identity.seed}))
    home.key_file.chmod(0o600)
    file_keyring.refuse = True  # a locked keychain: the file keeps the seed
    assert load_hub_identity(home, Settings(), HUB).seed == identity.seed
    assert key_document(home)["seed"] == identity.seed
    file_keyring.refuse, file_keyring.garble = False, True  # keeps something else: the file keeps it
    assert load_hub_identity(home, Settings(), HUB).seed == identity.seed
    assert key_document(home)["seed"] == identity.seed
    file_keyring.garble = False
    assert load_hub_identity(home, Settings(), HUB).seed == identity.seed
    assert "seed" not in key_document(home) and file_keyring.get_password(SERVICE, seed_name(identity.agent_id)) == identity.seed


def test_a_store_that_lost_the_seed_is_named_and_the_file_is_left_for_a_backup(home, file_keyring):
    identity = load_hub_identity(home, Settings(), HUB)
    file_keyring.path.unlink()
    with pytest.raises(KeyFileError) as raised:
        load_hub_identity(home, Settings(), HUB)
    assert "credential store, which does not hold it" in str(raised.value) and identity.seed not in str(raised.value)
    assert key_document(home) == {"id": identity.agent_id, "seed_in": "credential store"}  # never replaced by a new key


def test_a_key_file_the_human_chose_elsewhere_stays_as_it_is(home, tmp_path, file_keyring):
    identity = Identity.generate()
    chosen = tmp_path / "config.json"  # a reference tool's file, read by that tool too
    chosen.write_text(json.dumps({"id": identity.agent_id, "seed": identity.seed, "hub": HUB}))
    chosen.chmod(0o600)
    settings = Settings(hub_key_files={HUB: str(chosen)})
    assert load_hub_identity(home, settings, HUB).agent_id == identity.agent_id
    assert json.loads(chosen.read_text())["seed"] == identity.seed and file_keyring.entries() == {}


def test_join_secrets_move_to_the_store_and_one_the_human_named_stays_a_file(home, tmp_path, file_keyring):
    settings = dataclasses.replace(Settings(), hubs=("", HUB))
    path = save_join_secret(home, "s3cret", join_secret_path(home, settings, HUB))
    assert not path.exists() and read_join_secret(home, settings, HUB) == "s3cret"
    home.join_secret_file.write_text("older\n")  # the first hub's, from before the store
    assert read_join_secret(home, settings) == "older\n".strip() and not home.join_secret_file.exists()
    assert read_join_secret(home, settings) == "older"  # now from the store
    named = tmp_path / "hub-secret"  # shared with `parler-desktop hub --join-secret-file`
    named.write_text("theirs")
    settings = dataclasses.replace(settings, join_secret_file=str(named))
    assert read_join_secret(home, settings) == "theirs" and named.read_text() == "theirs"
    assert all("theirs" not in value for value in file_keyring.entries().values())


def test_a_join_secret_the_store_refuses_is_written_to_its_private_file(home, file_keyring):
    file_keyring.refuse = True
    path = save_join_secret(home, "s3cret")
    assert path.read_text() == "s3cret" and read_join_secret(home, Settings()) == "s3cret"
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


class PlatformStoreError(Exception):
    """Like win32ctypes' ``pywintypes.error`` (CredWrite refusing a blob over 2,560 bytes, access
    denied): an OS store's own error, which keyring's backend lets through, not a KeyringError."""


def test_a_store_failing_with_its_own_error_leaves_the_secrets_in_their_files(home, file_keyring):
    file_keyring.fail_with = PlatformStoreError(87, "CredWrite", "The parameter is incorrect.")
    path = save_join_secret(home, "s3cret")
    assert path.read_text() == "s3cret" and read_join_secret(home, Settings()) == "s3cret"
    identity = load_hub_identity(home, Settings(), HUB)
    assert key_document(home) == {"id": identity.agent_id, "seed": identity.seed}
    file_keyring.fail_with = None  # the store works again: both move on the next read
    assert read_join_secret(home, Settings()) == "s3cret" and not path.exists()
    assert load_hub_identity(home, Settings(), HUB).seed == identity.seed and "seed" not in key_document(home)


@pytest.mark.timeout(90)
async def test_join_and_send_keep_the_homes_seed_in_the_store_across_processes(hub, raw_agent, tmp_path):
    peer, link = await team(raw_agent, hub)
    folder = tmp_path / "home"
    home = Home.resolve(folder)
    env = subprocess_environment(tmp_path / "keyring.json")
    joined = await run_cli(folder, "join", link, **env)
    assert joined.status == 0, joined.stderr
    document = json.loads(home.key_file.read_text(encoding="utf-8"))
    assert document == {"id": document["id"], "seed_in": "credential store"}
    sent = await run_cli(folder, "send", "--hub", hub.url, "--room", "team", "from the keychain", **env)
    assert sent.status == 0, sent.stderr
    assert "from the keychain" in await texts(peer)
    seed = FileKeyring(tmp_path / "keyring.json").get_password(SERVICE, seed_name(document["id"]))
    assert seed is not None and Identity.from_seed(seed).agent_id == document["id"]
    assert seed not in joined.stdout + joined.stderr + sent.stdout + sent.stderr
