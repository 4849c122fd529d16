"""nkey encodings, signatures and the key file against protocol.md §2 (vectors of §2.5)."""

from __future__ import annotations

import base64
import json
import os
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parler_desktop.identity import (
    Identity,
    KeyFileError,
    crc16_xmodem,
    decode_public_key,
    decode_user_seed,
    encode_user_public_key,
    encode_user_seed,
    load_or_create_identity,
    save_identity,
    verify_signature,
)
from support.unprivileged import as_unprivileged_user
from support.os_needs import posix_file_modes, posix_special_files

ALICE_SEED = "SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU"
ALICE_RAW_SEED = bytes.fromhex("c5ab596af7db4996dfc9fa0f95cfc8b7aadf19c5b0d8321e8c2cfd14842f943a")
ALICE_ID = "UCK5N7N66OBOINFXAYC2ACJQYFSOD4VYNU6APEJTAVFZB2SVHLKGEW7L"
ALICE_RAW_PUB = bytes.fromhex("95d6fdbef382e434b70605a00930c164e1f2b86d3c079133054b90ea553ad462")
BOB_SEED = "SUAAAAICAMCAKBQHBAEQUCYMBUHA6EARCIJRIFIWC4MBSGQ3DQOR4H776Y"
BOB_ID = "UAB2CB576PHBBPQ5ODORRZ2LYCMWPZGWGCN2KDK7DXOIMZASKUY3RLKK"

# (signed bytes, alice's signature) from Vector A and Vector B.
ALICE_SIGNATURES = [
    (
        b"PXoWU7zWAMt75FY",
        "ZaAiVDgB5CeYoXoQ7cBCmq+ZllzUnGUoDVb8C7PilWvCs8XKfUchAUhz2P4BYAF++Dg3w05CqyQFRDiGL6LrDw==",
    ),
    (
        b"parler-auth:v1:9ef901ba9c5f:1710000060000:6f1c1e2a-9d3b-4c1e-8f00-1234567890ab",
        "1YtbqD+Lr4X3GrqPS47+hAxDvcT3rGfCrEaQ/1vFHBtiVBvjfWlMExC8jJBHeo9wLDwXPXoMgJNsyIkIF76TDA==",
    ),
    (
        b'{"from":"UCK5N7N66OBOINFXAYC2ACJQYFSOD4VYNU6APEJTAVFZB2SVHLKGEW7L","parts":[{"kind":"text",'
        b'"text":"ship it"}],"target":{"kind":"room","room":"team"},"ts":1710000000000,'
        b'"uid":"9b2f6c1e-1f7a-4c55-8d1e-0a6f3b7c2d10","v":1}',
        "FYSEYEcfz0ogd7M8NeCs1OMtO7+op6TuoKAR/8o/tqMTfi9hHCsTotyC+kRcIuYfaM5UNdQlnU2tm/yWtEg2Bw==",
    ),
    (
        b'{"id":"UCK5N7N66OBOINFXAYC2ACJQYFSOD4VYNU6APEJTAVFZB2SVHLKGEW7L","kind":"agent",'
        b'"name":"alice","protocolVersion":"0.2","role":"planner"}',
        "LkFV7j2DJeP8UeJKg90i7IWDwZntJjBTrrEoSnP0CiXhk1HnN+GzrsvGsQJ3DydBDd3rkJKUAVLAuNxWrLqCAg==",
    ),
]
NONCE_SIGNATURE = ALICE_SIGNATURES[0][1]


def nkey_string(raw: bytes) -> str:
    """Any raw nkey body with a correct checksum, to build well-formed keys of other types."""
    checked = raw + crc16_xmodem(raw).to_bytes(2, "little")
    return base64.b32encode(checked).decode().rstrip("=")


def replace_char(text: str, index: int, char: str) -> str:
    return text[:index] + char + text[index + 1 :]


# --- encodings and vectors ---------------------------------------------------------------------


def test_crc16_xmodem_check_value():
    assert crc16_xmodem(b"123456789") == 0x31C3
    assert crc16_xmodem(b"") == 0


def test_vector_a_keys():
    assert decode_user_seed(ALICE_SEED) == ALICE_RAW_SEED
    assert encode_user_seed(ALICE_RAW_SEED) == ALICE_SEED
    alice = Identity.from_seed(ALICE_SEED)
    assert alice.agent_id == ALICE_ID
    assert alice.seed == ALICE_SEED
    assert decode_public_key(ALICE_ID) == ALICE_RAW_PUB
    assert encode_user_public_key(ALICE_RAW_PUB) == ALICE_ID


def test_vector_b_bob_keys():
    bob = Identity(bytes(range(32)))
    assert bob.seed == BOB_SEED
    assert bob.agent_id == BOB_ID
    assert Identity.from_seed(BOB_SEED) == bob
    from_bytearray = Identity(bytearray(range(32)))
    assert from_bytearray == bob and hash(from_bytearray) == hash(bob)
    assert type(from_bytearray.raw_seed) is bytes


@pytest.mark.parametrize("data, signature", ALICE_SIGNATURES)
def test_alice_signatures_match_vectors(data: bytes, signature: str):
    assert Identity.from_seed(ALICE_SEED).sign(data) == signature
    assert verify_signature(ALICE_ID, data, signature)
    assert not verify_signature(BOB_ID, data, signature)
    assert not verify_signature(ALICE_ID, data + b" ", signature)


def test_generated_identities_differ_and_sign_in_standard_base64():
    first, second = Identity.generate(), Identity.generate()
    assert first != second
    signature = first.sign(b"hello")
    assert len(signature) == 88 and signature.endswith("==")
    assert verify_signature(first.agent_id, b"hello", signature)
    assert not verify_signature(second.agent_id, b"hello", signature)


def test_repr_and_str_never_reveal_the_seed():
    alice = Identity.from_seed(ALICE_SEED)
    for text in (repr(alice), str(alice), f"{alice!r}"):
        assert ALICE_ID in text
        assert ALICE_SEED not in text
        assert ALICE_RAW_SEED.hex() not in text
        assert repr(ALICE_RAW_SEED) not in text


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "56 characters"),
        (ALICE_ID[:-1], "56 characters"),
        (ALICE_ID + "A", "56 characters"),
        (ALICE_SEED, "56 characters"),
        (ALICE_ID.lower(), "A-Z and 2-7"),
        (replace_char(ALICE_ID, 10, "1"), "A-Z and 2-7"),
        (replace_char(ALICE_ID, 20, "A" if ALICE_ID[20] != "A" else "B"), "checksum"),
        (nkey_string(bytes([0x00]) + ALICE_RAW_PUB), "user public key"),  # account key "A…"
        (nkey_string(bytes([13 << 3]) + ALICE_RAW_PUB), "user public key"),  # server key "N…"
        (None, "text"),
        (b"UCK5", "text"),
    ],
)
def test_decode_public_key_rejects_with_a_reason(text, reason: str):
    with pytest.raises(ValueError, match=reason):
        decode_public_key(text)


@pytest.mark.parametrize(
    "text, reason",
    [
        (ALICE_ID, "58 characters"),
        (ALICE_SEED[:-2], "58 characters"),
        (ALICE_SEED.lower(), "A-Z and 2-7"),
        (replace_char(ALICE_SEED, 30, "A" if ALICE_SEED[30] != "A" else "B"), "checksum"),
        (nkey_string(bytes([0x90, 0x00]) + ALICE_RAW_SEED), "user seed"),  # account seed "SA…"
        (nkey_string(bytes([0x88, 0x00]) + ALICE_RAW_SEED), "user seed"),  # not a seed marker
    ],
)
def test_decode_user_seed_rejects_without_echoing_the_input(text, reason: str):
    with pytest.raises(ValueError, match=reason) as caught:
        decode_user_seed(text)
    assert str(text) not in str(caught.value)


def test_seed_with_nonzero_spare_bits_is_not_canonical():
    # The last character of a 58-character seed carries 2 spare bits that must be zero.
    spare = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    last = spare.index(ALICE_SEED[-1])
    noncanonical = ALICE_SEED[:-1] + spare[last | 1]
    assert noncanonical != ALICE_SEED
    with pytest.raises(ValueError, match="canonical"):
        decode_user_seed(noncanonical)


@pytest.mark.parametrize("length", [0, 31, 33])
def test_encoders_and_identity_need_32_bytes(length: int):
    for build in (encode_user_public_key, encode_user_seed, Identity):
        with pytest.raises(ValueError, match="32 bytes"):
            build(bytes(length))


@pytest.mark.parametrize(
    "agent_id, data, signature",
    [
        (ALICE_ID, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE.replace("+", "-")),  # URL-safe alphabet
        (ALICE_ID, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE.rstrip("=")),  # missing padding
        (ALICE_ID, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE[:-3] + "x=="),  # nonzero spare bits
        (ALICE_ID, b"PXoWU7zWAMt75FY", " " + NONCE_SIGNATURE),
        (ALICE_ID, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE + "\n"),
        (ALICE_ID, b"PXoWU7zWAMt75FY", "A" * 86 + "=="),
        (ALICE_ID, b"PXoWU7zWAMt75FY", ""),
        (ALICE_ID.lower(), b"PXoWU7zWAMt75FY", NONCE_SIGNATURE),
        (ALICE_SEED, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE),
        (nkey_string(bytes([0x00]) + ALICE_RAW_PUB), b"PXoWU7zWAMt75FY", NONCE_SIGNATURE),
        (None, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE),
        (ALICE_ID, "PXoWU7zWAMt75FY", NONCE_SIGNATURE),
        (ALICE_ID, None, NONCE_SIGNATURE),
        (ALICE_ID, b"PXoWU7zWAMt75FY", None),
        (ALICE_ID, b"PXoWU7zWAMt75FY", base64.b64decode(NONCE_SIGNATURE)),
    ],
)
def test_verify_signature_is_strict_and_never_raises(agent_id, data, signature):
    assert verify_signature(agent_id, data, signature) is False


def test_verify_signature_accepts_the_exact_vector():
    # Guards the rejections above: the untouched inputs do verify.
    assert verify_signature(ALICE_ID, b"PXoWU7zWAMt75FY", NONCE_SIGNATURE) is True


# --- properties ----------------------------------------------------------------------------------

raw_keys = st.binary(min_size=32, max_size=32)
base32_text = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=54, max_size=60)
# No per-example deadline: on a busy 2-core machine one example can take over 200 ms, and
# Hypothesis would call that a failure (or "flaky") although nothing here depends on time.
untimed = settings(deadline=None)


@untimed
@given(raw_keys)
def test_any_32_bytes_round_trip_through_both_encodings(raw: bytes):
    public = encode_user_public_key(raw)
    seed = encode_user_seed(raw)
    assert len(public) == 56 and public.startswith("U")
    assert len(seed) == 58 and seed.startswith("SU")
    assert decode_public_key(public) == raw
    assert decode_user_seed(seed) == raw


@untimed
@given(st.one_of(st.text(), base32_text))
def test_decoders_fail_only_with_value_error(text: str):
    for decode in (decode_public_key, decode_user_seed):
        try:
            raw = decode(text)
        except ValueError:
            continue
        assert len(raw) == 32


@untimed
@given(st.one_of(st.text(), base32_text), st.binary(), st.text())
def test_verify_signature_never_raises_on_arbitrary_text(agent_id: str, data: bytes, sig: str):
    assert verify_signature(agent_id, data, sig) is False


@settings(max_examples=25, deadline=None)
@given(raw_keys, st.binary(max_size=200))
def test_signatures_verify_only_for_their_data(raw: bytes, data: bytes):
    identity = Identity(raw)
    signature = identity.sign(data)
    assert verify_signature(identity.agent_id, data, signature)
    assert not verify_signature(identity.agent_id, data + b"\x00", signature)


# --- key file ------------------------------------------------------------------------------------


def file_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def assert_one_line_message(error: KeyFileError, path: Path, *absent: str) -> str:
    message = str(error)
    assert str(path) in message
    assert "\n" not in message
    assert "Traceback" not in message and "Errno" not in message
    for secret in absent:
        assert secret not in message
    return message


@posix_file_modes
def test_new_key_file_is_private_and_reloads_identical(tmp_path: Path):
    path = tmp_path / "home" / "config" / "identity.json"
    old_umask = os.umask(0)  # even a permissive umask must not widen the file
    try:
        identity = load_or_create_identity(path)
    finally:
        os.umask(old_umask)
    assert file_mode(path) == 0o600
    assert file_mode(path.parent) == 0o700
    assert json.loads(path.read_text()) == {"id": identity.agent_id, "seed": identity.seed}
    assert load_or_create_identity(path) == identity
    assert [p.name for p in path.parent.iterdir()] == ["identity.json"]  # no temp file left over


def test_save_identity_never_replaces_an_existing_file(tmp_path: Path):
    path = tmp_path / "identity.json"
    alice = Identity.from_seed(ALICE_SEED)
    save_identity(path, alice)
    before = path.read_bytes()
    with pytest.raises(KeyFileError, match="already exists") as caught:
        save_identity(path, Identity(bytes(range(32))))
    assert_one_line_message(caught.value, path, ALICE_SEED, BOB_SEED)
    assert path.read_bytes() == before
    assert load_or_create_identity(path) == alice
    assert [p.name for p in tmp_path.iterdir()] == ["identity.json"]


def test_concurrent_first_launches_agree_on_one_identity(tmp_path: Path):
    path = tmp_path / "identity.json"
    barrier = threading.Barrier(8)
    results: list[Identity] = []

    def launch() -> None:
        barrier.wait()
        results.append(load_or_create_identity(path))

    threads = [threading.Thread(target=launch) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(results) == 8
    assert len({identity.agent_id for identity in results}) == 1
    assert load_or_create_identity(path) == results[0]


ALICE_FILE = json.dumps({"id": ALICE_ID, "seed": ALICE_SEED})


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"", "not valid JSON"),
        (b'{"id": "U', "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"id": ALICE_ID}).encode(), '"seed"'),
        (json.dumps({"seed": ALICE_SEED}).encode(), '"id"'),
        (json.dumps({"id": ALICE_ID, "seed": 12}).encode(), '"seed"'),
        (json.dumps({"id": ALICE_ID, "seed": ALICE_SEED[:-1] + "A"}).encode(), "unusable seed"),
        (json.dumps({"id": ALICE_ID, "seed": ALICE_ID}).encode(), "unusable seed"),
        (json.dumps({"id": BOB_ID, "seed": ALICE_SEED}).encode(), "does not match"),
        (b" " * (65 * 1024), "too large"),
    ],
)
def test_corrupt_key_file_is_refused_with_a_one_line_message(
    tmp_path: Path, content: bytes, problem: str
):
    path = tmp_path / "identity.json"
    path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(KeyFileError) as caught:
        load_or_create_identity(path)
    message = assert_one_line_message(caught.value, path, ALICE_SEED, ALICE_SEED[:-1] + "A")
    assert problem in message
    assert "backup" in message and "move it away" in message
    assert path.read_bytes() == content  # never silently replaced


@posix_file_modes
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o620])
def test_key_file_readable_by_others_is_refused(tmp_path: Path, mode: int):
    path = tmp_path / "identity.json"
    path.write_text(ALICE_FILE)
    path.chmod(mode)
    with pytest.raises(KeyFileError) as caught:
        load_or_create_identity(path)
    message = assert_one_line_message(caught.value, path, ALICE_SEED)
    assert f"chmod 600 {path}" in message
    path.chmod(0o600)
    assert load_or_create_identity(path).agent_id == ALICE_ID


@posix_file_modes
def test_unreadable_key_file_is_refused():
    def check(folder: Path) -> None:
        path = folder / "identity.json"
        path.write_text(ALICE_FILE)
        path.chmod(0o000)
        with pytest.raises(KeyFileError, match="cannot be read") as caught:
            load_or_create_identity(path)
        assert_one_line_message(caught.value, path)

    as_unprivileged_user(check)  # root reads any file


def test_directory_in_place_of_the_key_file_is_refused(tmp_path: Path):
    path = tmp_path / "identity.json"
    path.mkdir()
    with pytest.raises(KeyFileError, match="directory") as caught:
        load_or_create_identity(path)
    assert_one_line_message(caught.value, path)


def test_key_file_under_a_file_instead_of_a_folder_is_reported(tmp_path: Path):
    blocker = tmp_path / "config"
    blocker.write_text("a file where the folder should be")
    path = blocker / "identity.json"
    with pytest.raises(KeyFileError) as caught:
        load_or_create_identity(path)
    assert_one_line_message(caught.value, path)


@posix_file_modes
def test_key_file_that_cannot_be_created_is_reported():
    def check(home: Path) -> None:
        folder = home / "config"
        folder.mkdir(mode=0o500)
        path = folder / "identity.json"
        try:
            with pytest.raises(KeyFileError, match="cannot be created") as caught:
                load_or_create_identity(path)
            assert_one_line_message(caught.value, path)
        finally:
            folder.chmod(0o700)
        assert list(folder.iterdir()) == []

    as_unprivileged_user(check)  # root writes into any folder


@posix_special_files
@pytest.mark.timeout(10)
def test_fifo_in_place_of_the_key_file_is_refused_without_hanging(tmp_path: Path):
    path = tmp_path / "identity.json"
    os.mkfifo(path, 0o600)
    with pytest.raises(KeyFileError, match="not a regular file") as caught:
        load_or_create_identity(path)
    assert_one_line_message(caught.value, path)


@posix_special_files
def test_dangling_link_is_refused_not_followed(tmp_path: Path):
    path = tmp_path / "identity.json"
    path.symlink_to(tmp_path / "missing.json")
    with pytest.raises(KeyFileError, match="dangling") as caught:
        load_or_create_identity(path)
    assert_one_line_message(caught.value, path)
    assert not (tmp_path / "missing.json").exists()
