"""TLS for ``wss://`` hubs: whom to trust, and what to tell the person when a certificate fails.

Public hubs sit behind TLS with a certificate the system already trusts. A private hub may use its
own certificate authority; then the person names that CA's file for that hub (``--ca-file`` or the
Connect dialog), and only that CA is trusted for it. The host name is always checked.
"""

from __future__ import annotations

import ssl
from pathlib import Path

NOT_YET_VALID = 9  # X509_V_ERR_CERT_NOT_YET_VALID
EXPIRED = 10  # X509_V_ERR_CERT_HAS_EXPIRED
HOSTNAME_MISMATCH = 62  # X509_V_ERR_HOSTNAME_MISMATCH
IP_MISMATCH = 64  # X509_V_ERR_IP_ADDRESS_MISMATCH
TRUST_ADVICE = "if it uses a private CA, trust that CA file for the hub (Hub ▸ Connect…, or --ca-file FILE)"


def client_context(ca_file: str | None) -> ssl.SSLContext:
    """The system's trusted CAs, or only ``ca_file``; raises ValueError when it cannot be used."""
    if not ca_file:
        return ssl.create_default_context()
    path = Path(ca_file).expanduser()
    try:
        return ssl.create_default_context(cafile=str(path))
    except FileNotFoundError:
        raise ValueError(f"the CA file {path} does not exist") from None
    except (OSError, ssl.SSLError) as error:  # unreadable, or no PEM certificate in it
        reason = getattr(error, "strerror", None) or getattr(error, "reason", None) or error
        raise ValueError(f"the CA file {path} cannot be used ({reason}): it must hold PEM certificates") from None


def check_ca_file(ca_file: str) -> None:
    """Raise ValueError (with a message for the person) unless ``ca_file`` is a usable CA file."""
    client_context(ca_file)


def explain_certificate_error(error: ssl.SSLCertVerificationError, url: str) -> str:
    """A sentence for the person: why the hub at ``url`` was not trusted, and what to do."""
    detail = error.verify_message or str(error)
    if error.verify_code in (HOSTNAME_MISMATCH, IP_MISMATCH):
        return (
            f"refused: the hub's TLS certificate is not for the address {url} ({detail}); "
            "check the address"
        )
    if error.verify_code == EXPIRED:  # trusting a CA would not help: say who can fix it
        return f"refused: the hub's TLS certificate at {url} has expired ({detail}); its operator has to renew it"
    if error.verify_code == NOT_YET_VALID:
        return f"refused: the hub's TLS certificate at {url} is not valid yet ({detail}); check this computer's date and time"
    return f"the hub's TLS certificate is not trusted ({detail}); {TRUST_ADVICE}"
