"""Fixtures of the interop suite: the reference (Rust) hub and the reference ``parler`` agent CLI.

Nothing here is the reference code: it runs binaries built from it, named by two variables —

- ``PARLER_REFERENCE_HUB``: path of ``parler-hub``; without it every test here is skipped.
- ``PARLER_REFERENCE_CLI``: path of ``parler``; without it the agent tests are skipped.

Fixtures:

- ``hub`` (overrides tests/support's): parametrized ``embedded`` (our hub, ``hub_factory``) and
  ``reference`` (``reference_hub``), so ``desktop`` and ``peer`` of tests/support run against both.
- ``reference_hub`` → a ``ReferenceHub`` on a free 127.0.0.1 port with a temporary database and
  generous rate limits; ``kill()`` is kill -9, ``restart()`` brings it back on the same port and
  database; killed at teardown.
- ``ref_agent(url, name)`` → a ``ReferenceAgent``: the reference CLI with a home of its own (a
  temporary ``HOME`` and ``PARLER_HOME``; it never sees the real home).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.reference_agent import ReferenceAgent
from support.reference_hub import ReferenceHub

HUB_VARIABLE = "PARLER_REFERENCE_HUB"
CLI_VARIABLE = "PARLER_REFERENCE_CLI"

INTEROP_DIR = Path(__file__).parent


def _binary(variable: str) -> str | None:
    value = os.environ.get(variable, "").strip()
    return value or None


def _skip_reason(variable: str, what: str) -> str:
    return f"{variable} is not set (path of the reference {what}; see docs/interop.md)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test here needs the reference hub (the suite's switch); agent tests need the CLI too."""
    for item in items:
        if INTEROP_DIR not in Path(str(item.fspath)).parents:
            continue
        if _binary(HUB_VARIABLE) is None:
            item.add_marker(pytest.mark.skip(reason=_skip_reason(HUB_VARIABLE, "parler-hub")))
        elif "ref_agent" in getattr(item, "fixturenames", ()) and _binary(CLI_VARIABLE) is None:
            item.add_marker(pytest.mark.skip(reason=_skip_reason(CLI_VARIABLE, "parler CLI")))


@pytest.fixture
def reference_hub_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., ReferenceHub]]:
    """``reference_hub_factory(*extra_args)`` → a started ``ReferenceHub`` (more options after
    the defaults, e.g. ``"--join-secret", "s3cr3t"``); every one is killed at teardown."""
    binary = _binary(HUB_VARIABLE)
    if binary is None:
        pytest.skip(_skip_reason(HUB_VARIABLE, "parler-hub"))
    started: list[ReferenceHub] = []

    def start(*extra_args: str) -> ReferenceHub:
        running = ReferenceHub(binary, tmp_path_factory.mktemp("refhub"), tuple(extra_args))
        started.append(running)
        return running.start()

    yield start
    for running in started:
        running.kill()


@pytest.fixture
def reference_hub(reference_hub_factory: Callable[..., ReferenceHub]) -> ReferenceHub:
    return reference_hub_factory()


@pytest.fixture(params=["embedded", "reference"])
def hub(request: pytest.FixtureRequest, hub_factory: Callable[..., Any]) -> Any:
    """Our embedded hub, or the reference hub: the same journey on both."""
    if request.param == "reference":
        return request.getfixturevalue("reference_hub")
    return hub_factory()


@pytest.fixture
def ref_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., ReferenceAgent]]:
    binary = _binary(CLI_VARIABLE)
    if binary is None:
        pytest.skip(_skip_reason(CLI_VARIABLE, "parler CLI"))
    made: list[ReferenceAgent] = []

    def make(url: str, name: str = "refbot") -> ReferenceAgent:
        agent = ReferenceAgent(binary, tmp_path_factory.mktemp("refagent"), url, name)
        made.append(agent)
        return agent

    yield make
    for agent in made:
        for process in agent.started:
            if process.returncode is None:
                process.kill()
