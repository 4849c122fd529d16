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
LOCAL = "local"  # not a wire member: what this client learned about the value (never sent or read)


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def check_text(value: Any, where: str = "") -> str:
    """A JSON string that is valid Unicode (an unpaired surrogate is malformed, as in the ref hub)."""
    if not isinstance(value, str):
        raise WireError(f"{where}: expected a string" if where else "expected a string")
    if value.isascii():  # (no surrogate then; asking is free, encoding to find out is not)
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        problem = "string contains an unpaired surrogate"
        raise WireError(f"{where}: {problem}" if where else problem) from None
    return value


def _split_optional(hint: Any) -> tuple[Any, bool]:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) != len(get_args(hint)):
            return (args[0] if len(args) == 1 else Union[tuple(args)]), True
    return hint, False


Decoder = Callable[[Any], Any]
Encoder = Callable[[Any], Any]


def _check_int(bounds: IntRange) -> Decoder:
    def decode(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise WireError("expected an integer")
        if not bounds.low <= value <= bounds.high:
            raise WireError("integer out of range")
        return value

    return decode


def _check_choice(choice: OneOf) -> Decoder:
    def decode(value: Any) -> str:
        if check_text(value) not in choice.values:
            raise WireError(f"expected one of {', '.join(choice.values)}")
        return value

    return decode


def _check_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise WireError("expected true or false")
    return value


def _check_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
        isinstance(value, float) and not math.isfinite(value)
    ):
        raise WireError("expected a number")
    return value


def _check_object(value: Any) -> dict:
    if not isinstance(value, dict):
        raise WireError("expected an object")
    return value


def _check_array(item: Decoder) -> Decoder:
    def decode(value: Any) -> tuple:
        if not isinstance(value, list):
            raise WireError("expected an array")
        try:
            return tuple(map(item, value))
        except WireError as err:
            raise WireError(f"an item: {err}") from None

    return decode


@cache
def decoder_for(hint: Any) -> Decoder:
    """The checking decoder of one annotation, built once (decoding is on the hot path)."""
    if get_origin(hint) is Annotated:
        base, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, IntRange):
                return _check_int(extra)
            if isinstance(extra, OneOf):
                return _check_choice(extra)
            if isinstance(extra, Custom):
                return extra.decode
        return decoder_for(base)
    if hint is str:
        return check_text
    if hint is bool:
        return _check_bool
    if hint is float:
        return _check_number
    if hint is dict:
        return _check_object
    if hint is Any:
        return lambda value: value
    if get_origin(hint) is tuple:
        return _check_array(decoder_for(get_args(hint)[0]))
    if dataclasses.is_dataclass(hint):
        return _object_decoder(hint)
    raise TypeError(f"unsupported wire annotation {hint!r}")  # a programming error, not input


@cache
def encoder_for(hint: Any) -> Encoder | None:
    """The encoder of one annotation, or None where the Python value is already the JSON value."""
    if get_origin(hint) is Annotated:
        for extra in get_args(hint)[1:]:
            if isinstance(extra, Custom):
                return extra.encode
        return encoder_for(get_args(hint)[0])
    if get_origin(hint) is tuple:
        item = encoder_for(get_args(hint)[0])
        return list if item is None else (lambda value: [item(v) for v in value])
    if dataclasses.is_dataclass(hint):
        return lambda value: value.to_wire()
    return None


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    name: str
    wire: str
    hint: Any
    optional: bool
    required: bool
    default: Any
    null_is_malformed: bool
    omit_when_default: bool


@cache
def field_specs(cls: type) -> tuple[FieldSpec, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    specs = []
    for f in dataclasses.fields(cls):
        if f.metadata.get(LOCAL, False):
            continue
        hint, optional = _split_optional(hints[f.name])
        has_default = f.default is not dataclasses.MISSING
        specs.append(
            FieldSpec(
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


def _accepted_as_is(hint: Any) -> str | None:
    """A test of ``raw`` (Python source) that passes only values ``decoder_for(hint)`` returns
    unchanged, so the generated decoder calls no function for them (integers and ASCII strings,
    nearly every member of every message); None where there is none."""
    if get_origin(hint) is Annotated:
        extra = next((e for e in get_args(hint)[1:] if isinstance(e, (IntRange, OneOf, Custom))), None)
        if isinstance(extra, IntRange):
            return f"type(raw) is int and {extra.low} <= raw <= {extra.high}"
        return None if extra is not None else _accepted_as_is(get_args(hint)[0])
    return "type(raw) is str and raw.isascii()" if hint is str else None


@cache
def _object_decoder(cls: type) -> Decoder:
    """A decoder written for ``cls`` (its source built from its fields, as ``dataclasses`` builds
    ``__init__``): each member read, checked and stored in a line of its own, with no loop, and
    no call for a member its ``_accepted_as_is`` test passes. The generic loop over the fields
    was most of decoding a pulled message after json's own work (bench_hubs.py's wake decodes
    50,000 of them on the window's thread: 3.9 -> 2.4 µs a message). The instance is made
    without its ``__init__``: a frozen dataclass's sets each field with ``object.__setattr__``
    (4.5 -> 2.5 µs before). The fields read go into its ``__dict__``; a field left out keeps its
    default, which a dataclass holds as a class attribute (the wire classes have no
    ``default_factory`` and no ``__post_init__``: ``tests/test_protocol_codec.py`` checks)."""
    label = getattr(cls, "TAG", None) or cls.__name__
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls, "WireError": WireError, "label": label}
    lines = [
        "def decode(obj):",
        "    if not isinstance(obj, dict):",
        "        raise WireError(label + ': expected an object')",
        "    instance = new(cls)",
        "    values = instance.__dict__",
    ]
    for n, spec in enumerate(field_specs(cls)):
        scope[f"check_{n}"] = decoder_for(spec.hint)
        wire, name, where = repr(spec.wire), repr(spec.name), repr(f"{label}.{spec.wire}")
        lines += [f"    raw = obj.get({wire})", "    if raw is None:"]
        if spec.null_is_malformed:
            lines += [f"        if {wire} in obj:", f"            raise WireError({where} + ': null is not allowed; omit it instead')"]
        lines.append(f"        raise WireError(label + ': missing ' + {wire})" if spec.required else "        pass")
        if (as_is := _accepted_as_is(spec.hint)) is not None:
            lines += [f"    elif {as_is}:", f"        values[{name}] = raw"]
        lines += [
            "    else:",
            "        try:",
            f"            values[{name}] = check_{n}(raw)",
            "        except WireError as err:",
            f"            raise WireError({where} + ': ' + str(err)) from None",
        ]
    lines.append("    return instance")
    exec("\n".join(lines), scope)  # noqa: S102 - source built above from the class's own fields
    return scope["decode"]


@cache
def _object_encoder(cls: type) -> Encoder:
    plan = [(s.name, s.wire, encoder_for(s.hint), s.omit_when_default, s.default) for s in field_specs(cls)]

    def encode(instance: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, wire, convert, omit_when_default, default in plan:
            value = getattr(instance, name)
            if value is None or (omit_when_default and value == default):
                continue
            out[wire] = value if convert is None else convert(value)
        return out

    return encode


T = TypeVar("T")


def decode_object(cls: type[T], obj: Any) -> T:
    """Build ``cls`` from a JSON object, ignoring unknown members; raises WireError."""
    return _object_decoder(cls)(obj)


def encode_object(instance: Any) -> dict[str, Any]:
    return _object_encoder(type(instance))(instance)


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
