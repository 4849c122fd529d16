"""JSON numbers as the reference implementation has them (protocol.md §1.3, §8.1).

The reference parses JSON with serde_json: an integer in [-2^63, 2^64) stays an integer, any other
integer becomes a float, ``-0`` is the float ``-0.0``, and ``NaN``, ``Infinity`` and numbers a
float cannot hold (``1e400``) are refused. Its canonical text writes floats with the shortest
round-trip digits, in plain decimal notation for 1e-5 <= |x| < 1e16 and scientific otherwise
(``1e-7``, ``1e+16``). Python's ``json`` differs on every one of these points, and a signature
covers these bytes, so both directions go through here.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring
from typing import Any

INT_LOW = -(2**63)
INT_END = 2**64  # exclusive
PLAIN_DECIMAL_LOW = -5  # decimal exponents in [-5, 16) are written without an exponent
PLAIN_DECIMAL_END = 16


class NumberError(ValueError):
    """A number the protocol cannot carry: NaN, ±Infinity, or beyond a float's range."""


def _finite(value: float, text: str) -> float:
    if not math.isfinite(value):
        raise NumberError(f"number out of range: {text[:40]}")
    return value


def _parse_int(text: str) -> int | float:
    value = int(text)
    if INT_LOW <= value < INT_END:
        return value if value or text[0] != "-" else -0.0  # on every integer of every frame: keep it short
    try:
        return float(value)
    except OverflowError:
        raise NumberError(f"number out of range: {text[:40]}") from None


def _parse_float(text: str) -> float:
    return _finite(float(text), text)


def _refuse_constant(text: str) -> Any:
    raise NumberError(f"{text} is not a JSON number")


# Built once: json.loads and json.dumps build a new decoder or encoder on every call that passes
# options, which costs as much as decoding or encoding a whole small frame.
_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_refuse_constant)
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_COMPACT_SORTED = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True)


def loads(text: str | bytes) -> Any:
    """``json.loads`` with the reference's numbers; raises ``ValueError`` (NumberError for numbers)."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads does
    return _DECODER.decode(text)


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text, non-ASCII kept as is; NaN and Infinity refused (``ValueError``)."""
    return (_COMPACT_SORTED if sort_keys else _COMPACT).encode(value)


def float_text(value: float) -> str:
    """The reference's text of a finite float: shortest round-trip digits, always a float."""
    if not math.isfinite(value):
        raise NumberError(f"{value!r} cannot be written as JSON (NaN and Infinity are not numbers)")
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return f"{sign}0.0"
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)  # decimal point position within digits
    significant = digits.lstrip("0")
    point -= len(digits) - len(significant)
    significant = significant.rstrip("0")
    power = point - 1  # value = d.ddd × 10^power
    if PLAIN_DECIMAL_LOW <= power < PLAIN_DECIMAL_END:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{significant}"
        whole_digits = significant[:point].ljust(point, "0")
        return f"{sign}{whole_digits}.{significant[point:] or '0'}"
    head, tail = significant[0], significant[1:]
    return f"{sign}{head}{'.' + tail if tail else ''}e{'+' if power > 0 else '-'}{abs(power)}"


def number_text(value: int | float) -> str:
    """The reference's text of a number (an integer out of its range is written as a float)."""
    if isinstance(value, int):
        if INT_LOW <= value < INT_END:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            raise NumberError("an integer too large for a JSON number") from None
    return float_text(value)


def canonical_text(value: Any) -> str:
    """Compact JSON with keys sorted by their UTF-8 bytes, raw UTF-8 text and reference numbers."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def _write(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(number_text(value))
    elif isinstance(value, dict):
        out.append("{")
        for index, key in enumerate(sorted(value)):  # code point order is UTF-8 byte order
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings, not {type(key).__name__}")
            if index:
                out.append(",")
            out.append(encode_basestring(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")
