"""Declarative JSON codec for the protocol's frozen dataclasses.

Each wire shape is a frozen dataclass whose annotations say how its members are checked:
``str``, ``bool``, ``Any`` (any JSON), ``dict`` (a JSON object), ``float`` (any JSON number),
``I64`` / ``U32`` / ``U64`` (ranged integers), ``OneOf(...)`` (an enumerated string), a nested
wire dataclass, ``tuple[X, ...]`` (a JSON array), and ``X | None`` for optional members, which
are omitted on the wire when ``None``. Python names are snake_case; the wire name is the
camelCase spelling unless a field's metadata gives ``wire``. One codec serves every frame, value
and extension part, so the §1.3 rules (unknown members ignored, ``null`` optional == absent,
wrong types rejected) live in exactly one place.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, Annotated, ClassVar, TypeVar, Union, get_args, get_origin


class WireError(ValueError):
    """A JSON value does not have the shape the protocol requires."""


@dataclasses.dataclass(frozen=True)
class IntRange:
    low: int
    high: int


@dataclasses.dataclass(frozen=True)
class OneOf:
    """An enumerated string: matching is exact (``"DND"`` is not ``"dnd"``)."""

    values: tuple[str, ...]

    def __init__(self, *values: str) -> None:
        object.__setattr__(self, "values", values)


@dataclasses.dataclass(frozen=True)
class Custom:
    """A member decoded and encoded by functions of its own (targets, parts)."""

    decode: Callable[[Any], Any]
    encode: Callable[[Any], Any]


I64 = Annotated[int, IntRange(-(2**63), 2**63 - 1)]
U32 = Annotated[int, IntRange(0, 2**32 - 1)]
U64 = Annotated[int, IntRange(0, 2**64 - 1)]

# Field metadata keys.
WIRE_NAME = "wire"
NULL_IS_MALFORMED = "null_is_malformed"  # a defaulted member where null is rejected (§1.3)
OMIT_WHEN_DEFAULT = "omit_when_default"  # e.g. requireApproval is omitted when false


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def check_text(value: Any, where: str) -> str:
    """A JSON string that is valid Unicode (an unpaired surrogate is malformed, as in the ref hub)."""
    if not isinstance(value, str):
        raise WireError(f"{where}: expected a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise WireError(f"{where}: string contains an unpaired surrogate") from None
    return value


def _split_optional(hint: Any) -> tuple[Any, bool]:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) != len(get_args(hint)):
            return (args[0] if len(args) == 1 else Union[tuple(args)]), True
    return hint, False


def decode_value(hint: Any, value: Any, where: str) -> Any:
    """Check ``value`` against ``hint`` and return the Python value; raises WireError."""
    if get_origin(hint) is Annotated:
        base, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, IntRange):
                if not isinstance(value, int) or isinstance(value, bool):
                    raise WireError(f"{where}: expected an integer")
                if not extra.low <= value <= extra.high:
                    raise WireError(f"{where}: integer out of range")
                return value
            if isinstance(extra, OneOf):
                text = check_text(value, where)
                if text not in extra.values:
                    raise WireError(f"{where}: expected one of {', '.join(extra.values)}")
                return text
            if isinstance(extra, Custom):
                return extra.decode(value)
        return decode_value(base, value, where)
    if hint is str:
        return check_text(value, where)
    if hint is bool:
        if not isinstance(value, bool):
            raise WireError(f"{where}: expected true or false")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)
        ):
            raise WireError(f"{where}: expected a number")
        return value
    if hint is dict:
        if not isinstance(value, dict):
            raise WireError(f"{where}: expected an object")
        return value
    if hint is Any:
        return value
    if get_origin(hint) is tuple:
        (item_hint, _ellipsis) = get_args(hint)
        if not isinstance(value, list):
            raise WireError(f"{where}: expected an array")
        return tuple(decode_value(item_hint, item, f"{where}[{i}]") for i, item in enumerate(value))
    if dataclasses.is_dataclass(hint):
        return decode_object(hint, value, where)
    raise TypeError(f"unsupported wire annotation {hint!r}")  # a programming error, not input


def encode_value(hint: Any, value: Any) -> Any:
    if get_origin(hint) is Annotated:
        for extra in get_args(hint)[1:]:
            if isinstance(extra, Custom):
                return extra.encode(value)
        return encode_value(get_args(hint)[0], value)
    if get_origin(hint) is tuple:
        item_hint = get_args(hint)[0]
        return [encode_value(item_hint, item) for item in value]
    if dataclasses.is_dataclass(hint):
        return value.to_wire()
    return value


@dataclasses.dataclass(frozen=True)
class _FieldSpec:
    name: str
    wire: str
    hint: Any
    optional: bool
    required: bool
    default: Any
    null_is_malformed: bool
    omit_when_default: bool


@cache
def field_specs(cls: type) -> tuple[_FieldSpec, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    specs = []
    for f in dataclasses.fields(cls):
        hint, optional = _split_optional(hints[f.name])
        has_default = f.default is not dataclasses.MISSING
        specs.append(
            _FieldSpec(
                name=f.name,
                wire=f.metadata.get(WIRE_NAME, camel_case(f.name)),
                hint=hint,
                optional=optional,
                required=not has_default,
                default=f.default if has_default else None,
                null_is_malformed=f.metadata.get(NULL_IS_MALFORMED, False),
                omit_when_default=f.metadata.get(OMIT_WHEN_DEFAULT, False),
            )
        )
    return tuple(specs)


T = TypeVar("T")


def decode_object(cls: type[T], obj: Any, where: str = "") -> T:
    """Build ``cls`` from a JSON object, ignoring unknown members."""
    where = where or getattr(cls, "TAG", cls.__name__)
    if not isinstance(obj, dict):
        raise WireError(f"{where}: expected an object")
    values = {}
    for spec in field_specs(cls):
        raw = obj.get(spec.wire)
        if raw is None:
            if spec.wire in obj and spec.null_is_malformed:
                raise WireError(f"{where}.{spec.wire}: null is not allowed; omit it instead")
            if spec.required:
                raise WireError(f"{where}: missing {spec.wire}")
            continue
        values[spec.name] = decode_value(spec.hint, raw, f"{where}.{spec.wire}")
    return cls(**values)


def encode_object(instance: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in field_specs(type(instance)):
        value = getattr(instance, spec.name)
        if value is None or (spec.omit_when_default and value == spec.default):
            continue
        out[spec.wire] = encode_value(spec.hint, value)
    return out


class WireShape:
    """Mixin for wire dataclasses: ``to_wire()`` / ``from_wire()`` via the codec."""

    TAG_KEY: ClassVar[str | None] = None
    TAG: ClassVar[str | None] = None

    def to_wire(self) -> dict[str, Any]:
        body = encode_object(self)
        if self.TAG_KEY is None:
            return body
        return {self.TAG_KEY: self.TAG, **body}

    @classmethod
    def from_wire(cls: type[T], obj: Any) -> T:
        return decode_object(cls, obj)
