"""Who we are on a hub: an Ed25519 key written as a NATS nkey user key (protocol.md §2).

The agent id is the public key (``U…``, 56 characters); the seed (``SU…``, 58 characters) is the
private half and never leaves this machine. The key file keeps both as JSON, created 0600 from its
first byte and never silently replaced: losing the seed means losing the identity.

Given the OS credential store (``platform/secrets``; the caller passes it for the home's own key
files), the seed moves there: written, read back and compared, and only then is the file rewritten
as ``{"id": …, "seed_in": "credential store"}`` (``file_secrets.move_out_of_file``), so the seed is
always in the file, the store or both. A file holding anything besides id and seed (a reference
tool's ``config.json``) stays as it is.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path

from nacl.exceptions import CryptoError
from nacl.signing import SigningKey, VerifyKey

from parler_desktop.atomic_file import write_atomically, write_private_temp
from parler_desktop.disk_errors import is_disk_full
from parler_desktop.platform.secrets import SecretStore, SecretStoreError, credential_store
from parler_desktop.platform.secrets.file_secrets import move_out_of_file

USER_KEY_PREFIX = 0xA0  # 20 << 3, renders as a leading "U"
SEED_PREFIX = 0x90  # 18 << 3, renders as a leading "S"
PUBLIC_KEY_LENGTH = 56
SEED_LENGTH = 58

_BASE32_TEXT = re.compile(r"[A-Z2-7]*")
_BASE64_SIGNATURE = re.compile(r"[A-Za-z0-9+/]{86}==")
_MAX_KEY_FILE_BYTES = 64 * 1024


def _crc16_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC16_TABLE = _crc16_table()


def crc16_xmodem(data: bytes) -> int:
    """CRC-16/XMODEM (poly 0x1021, init 0, no reflection, no final XOR): the nkey checksum."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC16_TABLE[(crc >> 8) ^ byte]
    return crc


def _encode(raw: bytes) -> str:
    checked = raw + crc16_xmodem(raw).to_bytes(2, "little")
    return base64.b32encode(checked).decode("ascii").rstrip("=")


def _decode(text: object, what: str, length: int) -> bytes:
    """The checked raw bytes of an nkey string, without the CRC. Messages never echo ``text``."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be text")
    if len(text) != length:
        raise ValueError(f"{what} must be {length} characters long, not {len(text)}")
    if not _BASE32_TEXT.fullmatch(text):
        raise ValueError(f"{what} may only contain the characters A-Z and 2-7")
    checked = base64.b32decode(text + "=" * (-len(text) % 8))
    body, crc = checked[:-2], int.from_bytes(checked[-2:], "little")
    if crc16_xmodem(body) != crc:
        raise ValueError(f"{what} has a wrong checksum (mistyped or truncated?)")
    if _encode(body) != text:
        # 58 characters carry 2 spare bits; only the encoding with them zero is canonical.
        raise ValueError(f"{what} is not canonically encoded")
    return body


def encode_user_public_key(pub32: bytes) -> str:
    """The agent id ``U…`` of a raw 32-byte Ed25519 public key."""
    if len(pub32) != 32:
        raise ValueError(f"a public key has 32 bytes, not {len(pub32)}")
    return _encode(bytes([USER_KEY_PREFIX]) + bytes(pub32))


def decode_public_key(agent_id: str) -> bytes:
    """The raw 32-byte public key of an agent id; ``ValueError`` if it is not a valid user key.

    Stricter than the ref hub, which verifies with any public nkey type (account, server, …):
    agents are users, so anything but a user key (prefix 0xA0) is refused here.
    """
    body = _decode(agent_id, "an agent id", PUBLIC_KEY_LENGTH)
    if body[0] != USER_KEY_PREFIX:
        raise ValueError("an agent id must be a user public key (starting with U)")
    return body[1:]


def encode_user_seed(seed32: bytes) -> str:
    """The seed string ``SU…`` of a raw 32-byte Ed25519 seed."""
    if len(seed32) != 32:
        raise ValueError(f"a seed has 32 bytes, not {len(seed32)}")
    prefix = bytes([SEED_PREFIX | (USER_KEY_PREFIX >> 5), (USER_KEY_PREFIX & 0x1F) << 3])
    return _encode(prefix + bytes(seed32))


def decode_user_seed(seed: str) -> bytes:
    """The raw 32-byte Ed25519 seed of a ``SU…`` string; ``ValueError`` if it is not one."""
    body = _decode(seed, "a seed", SEED_LENGTH)
    key_type = ((body[0] & 0x07) << 5) | ((body[1] & 0xF8) >> 3)
    if body[0] & 0xF8 != SEED_PREFIX or key_type != USER_KEY_PREFIX:
        raise ValueError("a seed must be a user seed (starting with SU)")
    return body[2:]


@dataclass(frozen=True)
class Identity:
    """One agent's key pair. The repr shows the agent id only, never the seed."""

    raw_seed: bytes = field(repr=False)
    agent_id: str = field(init=False)
    _signing_key: SigningKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.raw_seed) != 32:
            raise ValueError(f"a seed has 32 bytes, not {len(self.raw_seed)}")
        object.__setattr__(self, "raw_seed", bytes(self.raw_seed))
        signing_key = SigningKey(self.raw_seed)
        object.__setattr__(self, "_signing_key", signing_key)
        object.__setattr__(self, "agent_id", encode_user_public_key(bytes(signing_key.verify_key)))

    @classmethod
    def generate(cls) -> Identity:
        return cls(os.urandom(32))

    @classmethod
    def from_seed(cls, seed: str) -> Identity:
        return cls(decode_user_seed(seed))

    @property
    def seed(self) -> str:
        return encode_user_seed(self.raw_seed)

    def sign(self, data: bytes) -> str:
        """Detached Ed25519 signature as standard padded base64 (88 characters)."""
        return base64.b64encode(self._signing_key.sign(data).signature).decode("ascii")


def verify_signature(agent_id: str, data: bytes, sig_b64: str) -> bool:
    """Whether ``sig_b64`` is ``agent_id``'s signature of ``data``. Never raises.

    Like the ref hub's strict decoder, only canonical standard base64 with padding is accepted.
    """
    if not isinstance(sig_b64, str) or not isinstance(data, (bytes, bytearray)):
        return False
    if not _BASE64_SIGNATURE.fullmatch(sig_b64):
        return False
    try:
        public_key = decode_public_key(agent_id)
        signature = base64.b64decode(sig_b64, validate=True)
    except ValueError:  # includes binascii.Error
        return False
    if base64.b64encode(signature).decode("ascii") != sig_b64:
        return False  # non-zero spare bits in the last character
    try:
        VerifyKey(public_key).verify(bytes(data), signature)
    except CryptoError:
        return False
    return True


REMEDY_CORRUPT = "restore it from a backup, or move it away to create a new identity"
SEED_IN_STORE = "credential store"  # a key file's "seed_in" once its seed moved to the OS store


class KeyFileError(Exception):
    """The key file cannot be used; ``str()`` is one line naming the file and what to do."""

    def __init__(self, path: os.PathLike[str] | str, problem: str, remedy: str = REMEDY_CORRUPT):
        self.path = Path(path)
        self.problem = problem
        self.remedy = remedy
        super().__init__(f"Key file {self.path} {problem}; {remedy}.")


def load_or_create_identity(path: os.PathLike[str] | str, store: SecretStore | None = None) -> Identity:
    """The identity kept in ``path``, creating a new one there if the file does not exist; its
    seed moved into ``store`` when one is given (see the module docstring)."""
    path = Path(path)
    try:
        return _read_key_file(path, store)
    except FileNotFoundError:
        pass
    identity = Identity.generate()
    try:
        _write_new_key_file(path, identity)
    except FileExistsError:
        pass  # another process created it first: use theirs
    try:
        return _read_key_file(path, store)
    except FileNotFoundError:
        raise KeyFileError(path, "is a dangling link or vanished while being created") from None


def load_identity(path: os.PathLike[str] | str, store: SecretStore | None = None) -> Identity:
    """The identity kept in ``path``, which must exist: a key file chosen for a hub is never
    made again in its place (a new key would post there as somebody else)."""
    try:
        return _read_key_file(Path(path), store)
    except FileNotFoundError:
        raise KeyFileError(path, "does not exist", "restore it from a backup, or choose another identity") from None


def seed_name(agent_id: str) -> str:
    """The credential store's name for an identity's seed."""
    return f"identity {agent_id}"


def save_identity(path: os.PathLike[str] | str, identity: Identity) -> None:
    """Write ``identity`` to a new key file; an existing file is never replaced."""
    path = Path(path)
    try:
        _write_new_key_file(path, identity)
    except FileExistsError:
        raise KeyFileError(
            path, "already exists", "move it away first to save a different identity there"
        ) from None


def _read_key_file(path: Path, store: SecretStore | None) -> Identity:
    """Load and check a key file, moving its seed into ``store`` if given; ``FileNotFoundError``
    if it does not exist."""
    try:
        # O_NONBLOCK: a FIFO planted at the path must not hang the app; no effect on files.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as file:
            status = os.fstat(file.fileno())
            if stat.S_ISDIR(status.st_mode):
                raise KeyFileError(path, "is a directory, not a key file", "move it away")
            if not stat.S_ISREG(status.st_mode):
                raise KeyFileError(path, "is not a regular file", "move it away")
            if os.name == "posix" and status.st_mode & 0o077:
                raise KeyFileError(
                    path,
                    f"is accessible by other users (mode {stat.S_IMODE(status.st_mode):o})",
                    f"run: chmod 600 {shlex.quote(str(path))}",
                )
            content = file.read(_MAX_KEY_FILE_BYTES + 1)
    except (FileNotFoundError, KeyFileError):
        raise
    except OSError as error:
        raise KeyFileError(
            path, f"cannot be read ({error.strerror})", "check its owner and permissions"
        ) from None
    if len(content) > _MAX_KEY_FILE_BYTES:
        raise KeyFileError(path, "is far too large to be a key file")
    try:
        document = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise KeyFileError(path, "is not valid JSON") from None
    if not isinstance(document, dict):
        raise KeyFileError(path, "does not hold a JSON object")
    seed, agent_id = document.get("seed"), document.get("id")
    in_store = document.get("seed_in") == SEED_IN_STORE and isinstance(agent_id, str) and seed is None
    if in_store:
        seed = _seed_from_store(path, agent_id, store if store is not None else credential_store())
    if not isinstance(seed, str) or not isinstance(agent_id, str):
        raise KeyFileError(path, 'lacks an "id" or a "seed" string')
    try:
        identity = Identity.from_seed(seed)
    except ValueError as error:
        raise KeyFileError(path, f"holds an unusable seed ({error})") from None
    if identity.agent_id != agent_id:
        raise KeyFileError(path, "holds an id that does not match its seed")
    if store is not None and not in_store and set(document) == {"id", "seed"}:
        stub = json.dumps({"id": agent_id, "seed_in": SEED_IN_STORE}) + "\n"
        move_out_of_file(path, store, seed_name(agent_id), seed, lambda: write_atomically(path, stub.encode("utf-8")))
    return identity


def _seed_from_store(path: Path, agent_id: str, store: SecretStore | None) -> str:
    remedy = "unlock the system's keychain or credential manager, or restore the key file from a backup"
    if store is None:
        raise KeyFileError(path, "keeps its seed in the system's credential store, which is not available", remedy)
    try:
        seed = store.get(seed_name(agent_id))
    except SecretStoreError as error:
        raise KeyFileError(path, f"keeps its seed in the system's credential store, which cannot be read ({error})", remedy) from None
    if seed is None:
        raise KeyFileError(path, "keeps its seed in the system's credential store, which does not hold it", remedy)
    return seed


def _write_new_key_file(path: Path, identity: Identity) -> None:
    """Write atomically and 0600 from the first byte; ``FileExistsError`` if ``path`` exists."""
    content = json.dumps({"id": identity.agent_id, "seed": identity.seed}) + "\n"
    temp_path = _write_temp_file(path, content)
    try:
        # A hard link, unlike os.replace, fails instead of clobbering a file created meanwhile.
        os.link(temp_path, path)
        _fsync_directory(path.parent)
    except FileExistsError:
        raise
    except OSError as error:
        raise _cannot_create(path, error) from None
    finally:
        temp_path.unlink(missing_ok=True)


def _cannot_create(path: Path, error: OSError) -> KeyFileError:
    if is_disk_full(error):
        return KeyFileError(path, "cannot be created: the disk is full", "free some space and retry")
    return KeyFileError(path, f"cannot be created ({error.strerror})", "check that its folder is writable")


def _write_temp_file(path: Path, content: str) -> Path:
    """A durable 0600 file holding ``content`` next to ``path`` (in a 0700 folder if new)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return write_private_temp(path, content.encode("utf-8"))
    except OSError as error:
        raise _cannot_create(path, error) from None


def _fsync_directory(directory: Path) -> None:
    """Make the new directory entry durable (POSIX only; Windows cannot open directories)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
