"""The searches' knobs as one value, a parameter of each search: how often they tell of
progress, how many states the search over arrays expands at once, and the widths and the
hash of its keys.  The defaults are what every command runs; the tests set smaller ones to
reach the searches' rare branches (a key past its field, two states under one hash)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check.tables import Ints

_U8 = np.uint64


def splitmix(a: Ints, b: Ints, c: Ints, d: Ints) -> Ints:
    """A packed world's key past its fields: a 64-bit hash of its four numbers (splitmix64's
    finalizer over the two words they make); each step's state is checked against the key's,
    so two states sharing one are caught, not merged."""

    def mix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
        x = (x ^ (x >> _U8(30))) * _U8(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> _U8(27))) * _U8(0x94D049BB133111EB)
        mixed: NDArray[np.uint64] = x ^ (x >> _U8(31))
        return mixed

    high = (a.astype(_U8) << _U8(32)) | b.astype(_U8)
    low = (c.astype(_U8) << _U8(32)) | d.astype(_U8)
    key: Ints = mix(mix(high) ^ low).view(np.int64)
    return key


@dataclass(frozen=True)
class Tuning:
    """`told`: states expanded between two calls of a search's `progress`; `batch`: states the
    search over arrays expands at once (what a batch's arrays hold is bounded by it); `decide`:
    expanded states it gathers before deciding their properties (a small search's first
    batches hold a few states each, and a decision costs a numpy pass per property group);
    `key_bits`: bits of each of a packed world's four numbers in its key before keys are
    hashed by `hash`; `part_bits`: bits of each number in the value of up to three parts a
    property reads (a number past it sends the search a state at a time)."""

    told: int = 50_000
    batch: int = 1 << 15
    decide: int = 1 << 13
    key_bits: int = 16
    part_bits: int = 21
    hash: Callable[[Ints, Ints, Ints, Ints], Ints] = splitmix


DEFAULT = Tuning()
