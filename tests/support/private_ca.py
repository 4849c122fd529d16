"""A certificate authority made in the test, and a server certificate for ``localhost`` it signed.

For the wss:// tests: ``FaultProxy(..., tls=ca.server_context)`` terminates TLS in front of a hub,
as public hubs sit behind a TLS proxy; ``ca.ca_file`` is what a person would trust for that hub.
``ca.serving(...)`` is another certificate from the same CA (for another host name, or expired),
so a test can make the terminator present it while the person trusts the same CA file.
"""

from __future__ import annotations

import datetime
import ssl
from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class PrivateCA:
    ca_file: Path  # the CA certificate, PEM
    server_context: ssl.SSLContext  # presents a certificate for "localhost" signed by the CA
    authority: trustme.CA

    def serving(self, host: str = "localhost", expired: bool = False) -> ssl.SSLContext:
        """A server context presenting a new certificate for ``host`` signed by this CA."""
        return _server_context(self.authority, host, expired)


def _server_context(authority: trustme.CA, host: str, expired: bool) -> ssl.SSLContext:
    """``expired``: the certificate's validity ended yesterday."""
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    now = datetime.datetime.now(datetime.timezone.utc)
    ended = {"not_before": now - datetime.timedelta(days=30), "not_after": now - datetime.timedelta(days=1)}
    validity = ended if expired else {}
    authority.issue_cert(host, **validity).configure_cert(server_context)
    return server_context


def make_private_ca(folder: Path, expired: bool = False, name: str = "private-ca.pem") -> PrivateCA:
    """``expired``: the server certificate's validity ended yesterday; ``name``: the CA file's
    name in ``folder`` (two CAs in one folder need two names)."""
    authority = trustme.CA(organization_name="parler-desktop tests")
    ca_file = folder / name
    authority.cert_pem.write_to_path(str(ca_file))
    return PrivateCA(ca_file, _server_context(authority, "localhost", expired), authority)


@dataclass(frozen=True)
class CertificateFault:
    """A certificate a hub's TLS terminator may present that the trusted CA file does not let
    through, what the one sentence about it must say, and how it is fixed."""

    name: str  # "untrusted", "wrong-host" or "expired"
    words: tuple[str, ...]  # in the sentence shown or printed (compared in lower case)
    fixed_by_operator: bool  # True: the right certificate is served again; False: the person trusts a new CA

    def presented(self, ca: PrivateCA, folder: Path) -> tuple[ssl.SSLContext, Path]:
        """The server context showing the fault, and the CA file that trusts the hub after the fix."""
        if self.name == "untrusted":  # the hub moved to another private CA
            other = make_private_ca(folder, name="new-private-ca.pem")
            return other.server_context, other.ca_file
        if self.name == "wrong-host":
            return ca.serving(host="hub.elsewhere.example"), ca.ca_file
        return ca.serving(expired=True), ca.ca_file


CERTIFICATE_FAULTS = [
    CertificateFault("untrusted", ("not trusted", "hub ▸ connect…", "--ca-file"), fixed_by_operator=False),
    CertificateFault("wrong-host", ("refused", "not for the address", "check the address"), fixed_by_operator=True),
    CertificateFault("expired", ("refused", "has expired", "renew it"), fixed_by_operator=True),
]
