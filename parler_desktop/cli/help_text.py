"""Module docstrings double as ``--help`` descriptions; this strips their reST markup."""

from __future__ import annotations


def description(docstring: str | None) -> str:
    return (docstring or "").replace("``", "")
