"""Dataclasses to JSON-ready values and back, driven by their type annotations.

This is what lets ``tfgpu doctor --from report.json`` re-run the checks on facts captured on
another machine: the JSON written by ``--json`` decodes into the same frozen ``Facts``.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from tfgpu.model.unavailable import Unavailable

T = TypeVar("T")


def encode(value: Any) -> Any:
    """A JSON-ready form of a dataclass tree; ``Unavailable`` becomes ``{"unavailable": …}``."""
    if isinstance(value, Unavailable):
        return {"unavailable": {"reason": value.reason, "source": value.source}}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [encode(item) for item in value]
    return value


def map_leaves(value: Any, fn: Callable[[Any], Any]) -> Any:
    """A copy of a JSON-ready tree (what :func:`encode` or ``json.loads`` gives) with ``fn`` applied to every leaf.

    Examples:
        >>> map_leaves({"a": ["x", 1]}, lambda v: v * 2)
        {'a': ['xx', 2]}
    """
    if isinstance(value, list):
        return [map_leaves(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_leaves(v, fn) for k, v in value.items()}
    return fn(value)


def decode(cls: type[T], data: Any) -> T:
    """Rebuild ``cls`` from what :func:`encode` produced.

    Raises:
        ValueError: the data does not have the shape the annotations describe.
    """
    return typing.cast(T, _decode(cls, data, cls.__name__))


def _decode(tp: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _decode_union(typing.get_args(tp), data, where)
    if tp is Any:
        return data
    if tp is type(None):
        if data is not None:
            raise ValueError(f"{where}: expected null")
        return None
    if origin is tuple:
        return _decode_tuple(typing.get_args(tp), data, where)
    if dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, data, where)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    if tp is float and isinstance(data, (int, float)) and not isinstance(data, bool):
        return float(data)
    if isinstance(tp, type) and isinstance(data, tp) and not (tp is int and isinstance(data, bool)):
        return data
    raise ValueError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {type(data).__name__}")


def _decode_union(args: tuple[Any, ...], data: Any, where: str) -> Any:
    if data is None and type(None) in args:
        return None
    if Unavailable in args and isinstance(data, dict) and set(data) == {"unavailable"}:
        inner = data["unavailable"]
        if not isinstance(inner, dict):
            raise ValueError(f"{where}: malformed unavailable marker")
        return Unavailable(str(inner.get("reason", "")), str(inner.get("source", "")))
    errors = []
    for arg in args:
        if arg in (type(None), Unavailable):
            continue
        try:
            return _decode(arg, data, where)
        except ValueError as exc:
            errors.append(str(exc))
    raise ValueError("; ".join(errors) or f"{where}: no type matches")


def _decode_tuple(args: tuple[Any, ...], data: Any, where: str) -> tuple[Any, ...]:
    if not isinstance(data, list):
        raise ValueError(f"{where}: expected a list")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], item, f"{where}[{i}]") for i, item in enumerate(data))
    if len(args) != len(data):
        raise ValueError(f"{where}: expected {len(args)} items")
    return tuple(_decode(a, item, f"{where}[{i}]") for i, (a, item) in enumerate(zip(args, data, strict=False)))


def _decode_dataclass(tp: Any, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object")
    hints = typing.get_type_hints(tp)
    kwargs = {}
    for f in dataclasses.fields(tp):
        if f.name in data:
            kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"{where}: missing field {f.name!r}")
    return tp(**kwargs)
