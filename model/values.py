"""One walk over a model value (records, enumerations, tuples and lists, sets, scalars),
shared by each JSON form the tools write of one: the browser's plain view, ITF, and the cache's
canonical encoding of a task.  A form says what each kind of value becomes; the walk says
what a kind is, once."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Protocol


class Form(Protocol):
    """What each kind of model value becomes in one JSON form, its parts already encoded;
    `same` are the scalar types it writes as they are."""

    same: frozenset[type]

    def none(self) -> object: ...

    def enum(self, value: Enum) -> object: ...

    def scalar(self, value: bool | str | int | float) -> object: ...

    def record(self, value: object, fields: dict[str, object]) -> object: ...

    def sequence(self, items: list[object]) -> object: ...

    def set(self, items: list[object]) -> object: ...

    def other(self, value: object) -> object: ...


SCALARS = frozenset({bool, str, int, float})  # exactly these: an enumeration may be a str too


def encode(
    value: object, form: Form, memo: dict[int, tuple[object, object]] | None = None
) -> object:
    """`value` in `form`: a record (a dataclass or a NamedTuple) by its fields, in order.  With
    `memo` (by identity, each value kept alive in it), a part several values share is encoded
    once: the worlds of one path share most of their parts."""
    if type(value) in form.same:  # the most of a model value's leaves
        return value
    if type(value) in SCALARS or value is None:
        return form.none() if value is None else form.scalar(value)  # type: ignore[arg-type]  # one of the four types
    if isinstance(value, Enum):
        return form.enum(value)
    if isinstance(value, bool | str | int | float):
        return form.scalar(value)
    if memo is not None and id(value) in memo:
        return memo[id(value)][1]
    names = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and names is not None:  # a NamedTuple
        pairs = zip(names, value, strict=True)
        out = form.record(value, {k: encode(v, form, memo) for k, v in pairs})
    elif isinstance(value, tuple | list):
        out = form.sequence([encode(v, form, memo) for v in value])
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        out = form.record(value, {k: encode(v, form, memo) for k, v in fields.items()})
    elif isinstance(value, frozenset | set):
        out = form.set([encode(v, form, memo) for v in value])
    else:
        return form.other(value)
    if memo is not None:
        memo[id(value)] = (value, out)
    return out
