"""wss:// to the reference hub behind a TLS terminator with a private CA: the wss:// tests of
tests/test_client_tls.py, collected here again so that they run on both hubs (this folder's
``hub`` fixture is parametrized embedded / reference)."""

from test_client_tls import (  # noqa: F401 - fixtures and tests, collected here on both hubs
    private_ca,
    test_a_certificate_for_another_host_name_is_refused_even_with_its_ca,
    test_a_cut_line_reconnects_over_tls_as_over_ws,
    test_an_expired_certificate_says_so_and_who_can_fix_it,
    test_an_untrusted_certificate_is_explained_with_the_way_out,
    test_trusting_the_private_ca_for_the_hub_connects_and_messages_flow,
    tls_proxy,
)
from support.client_harness import session_factory  # noqa: F401 - fixture
