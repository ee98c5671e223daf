"""One walk over a model value (records, enumerations, tuples and lists, sets, scalars),
shared by each JSON form the tools write of one: the browser's plain view, ITF, and the cache's
canonical encoding of a task.  A form says what each kind of value becomes; the walk says
what a kind is, once."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Protocol


class Form(Protocol):
    """What each kind of model value becomes in one JSON form, its parts already encoded."""

    def none(self) -> object: ...

    def enum(self, value: Enum) -> object: ...

    def scalar(self, value: bool | str | int | float) -> object: ...

    def record(self, value: object, fields: dict[str, object]) -> object: ...

    def sequence(self, items: list[object]) -> object: ...

    def set(self, items: list[object]) -> object: ...

    def other(self, value: object) -> object: ...


def encode(value: object, form: Form) -> object:
    """`value` in `form`: a record (a dataclass or a NamedTuple) by its fields, in order."""
    if value is None:
        return form.none()
    if isinstance(value, Enum):
        return form.enum(value)
    if isinstance(value, bool | str | int | float):
        return form.scalar(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return form.record(value, {k: encode(v, form) for k, v in fields.items()})
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return form.record(value, {k: encode(v, form) for k, v in value._asdict().items()})
    if isinstance(value, tuple | list):
        return form.sequence([encode(v, form) for v in value])
    if isinstance(value, frozenset | set):
        return form.set([encode(v, form) for v in value])
    return form.other(value)
