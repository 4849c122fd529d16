"""A certificate authority made in the test, and a server certificate for ``localhost`` it signed.

For the wss:// tests: ``FaultProxy(..., tls=ca.server_context)`` terminates TLS in front of a hub,
as public hubs sit behind a TLS proxy; ``ca.ca_file`` is what a person would trust for that hub.
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


def make_private_ca(folder: Path, expired: bool = False) -> PrivateCA:
    """``expired``: the server certificate's validity ended yesterday."""
    authority = trustme.CA(organization_name="parler-desktop tests")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    now = datetime.datetime.now(datetime.timezone.utc)
    validity = {"not_before": now - datetime.timedelta(days=30), "not_after": now - datetime.timedelta(days=1)} if expired else {}
    authority.issue_cert("localhost", **validity).configure_cert(server_context)
    ca_file = folder / "private-ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    return PrivateCA(ca_file, server_context)
