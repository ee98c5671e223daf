"""Delay distributions of a scenario, each compiled to a NumPy draw, and streams that hand out
a generator's draws one at a time: sampling in blocks keeps a session's delays cheap, and each
stream's own seeded generator keeps a run reproducible from its seed."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from acp_suggestions.model import inputs

Draw = Callable[[np.random.Generator, int], Any]
"""Draws `n` delays in seconds from a generator, as a NumPy array."""
BLOCK = 2048  # draws a stream makes at a time


class ScenarioError(ValueError):
    """A scenario that cannot be run: `field` is the dotted path of what is wrong (empty when
    it is the file itself)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


# Each kind and the parameters it needs, all non-negative seconds or fractions.
KINDS: dict[str, tuple[str, ...]] = {
    "constant": ("value",),
    "uniform": ("low", "high"),
    "exponential": ("mean",),
    "lognormal": ("median", "sigma"),
    "empirical": ("file",),
}


# What a scenario may ask for: times up to about eleven days, lognormal spreads whose draws
# stay finite (its files: `model.inputs.MAX_BYTES`, which fit in memory many times over).
MAX_SECONDS = 1e6
MAX_SIGMA = 3.0


def _number(spec: Mapping[str, object], key: str, field: str) -> float:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScenarioError(f"{field}.{key}", f"expected a number, got {value!r}")
    high = MAX_SIGMA if key == "sigma" else MAX_SECONDS
    if not math.isfinite(value) or not 0 <= value <= high:
        raise ScenarioError(
            f"{field}.{key}", f"expected a number from 0 to {high:g}, got {value!r}"
        )
    return float(value)


def read_text(path: Path, field: str) -> str:
    """The UTF-8 text of a regular file of bounded size (`model.inputs`: no device, pipe or
    folder, each of which would hang, exhaust memory or mean nothing here)."""
    try:
        return inputs.read_text(path)
    except inputs.InputError as err:
        raise ScenarioError(field, f"{path}: {err}") from None


def _inside(base: Path, name: str, field: str) -> Path:
    """The file `name` of a scenario, which must be in its folder `base` (or below it),
    links resolved: a scenario is data and names no file elsewhere."""
    folder = base.resolve()
    path = (folder / name).resolve()
    if not path.is_relative_to(folder) or path == folder:
        raise ScenarioError(field, f"{name!r} is not a file in the scenario's folder {base}")
    return path


def _samples(path: Path, field: str) -> tuple[float, ...]:
    """Read one non-negative number per line (the first column of a CSV); `#` starts a comment."""
    values = []
    for number, line in enumerate(read_text(path, f"{field}.file").splitlines(), 1):
        cell = line.split("#", 1)[0].split(",", 1)[0].strip()
        if not cell:
            continue
        try:
            value = float(cell)
        except ValueError:
            raise ScenarioError(
                f"{field}.file", f"{path}:{number}: expected a number, got {cell[:40]!r}"
            ) from None
        if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
            raise ScenarioError(
                f"{field}.file", f"{path}:{number}: expected a number from 0 to {MAX_SECONDS:g}"
            )
        values.append(value)
    if not values:
        raise ScenarioError(f"{field}.file", f"{path} holds no samples")
    return tuple(values)


def _constant(value: float) -> Draw:
    return lambda g, n: np.full(n, value)


def compile_dist(spec: object, field: str, base: Path) -> Draw:
    """A draw from a scenario value: a number (constant seconds) or a table with `dist` and
    that kind's parameters; an empirical file is read relative to `base`."""
    if isinstance(spec, int | float) and not isinstance(spec, bool):
        if not math.isfinite(spec) or not 0 <= spec <= MAX_SECONDS:
            raise ScenarioError(field, f"expected a number from 0 to {MAX_SECONDS:g}, got {spec!r}")
        return _constant(float(spec))
    if not isinstance(spec, Mapping):
        raise ScenarioError(field, f"expected a number or a table with 'dist', got {spec!r}")
    kind = spec.get("dist")
    if kind not in KINDS:
        raise ScenarioError(f"{field}.dist", f"expected one of {', '.join(KINDS)}, got {kind!r}")
    extra = sorted(set(spec) - {"dist", *KINDS[kind]})
    if extra:
        raise ScenarioError(f"{field}.{extra[0]}", f"not a parameter of a {kind} distribution")
    if kind == "empirical":
        file = spec.get("file")
        if not isinstance(file, str):
            raise ScenarioError(f"{field}.file", f"expected a file name, got {file!r}")
        values = np.array(_samples(_inside(base, file, f"{field}.file"), field))
        return lambda g, n: g.choice(values, n)
    return _parametric(kind, {key: _number(spec, key, field) for key in KINDS[kind]}, field)


def _parametric(kind: str, p: dict[str, float], field: str) -> Draw:
    """The draw of a distribution given by its parameters `p`, checked where they must
    agree (a uniform's bounds, a lognormal's median)."""
    if kind == "constant":
        return _constant(p["value"])
    if kind == "uniform":
        low, high = p["low"], p["high"]
        if high < low:
            raise ScenarioError(f"{field}.high", f"must be >= low ({low}), got {high}")
        return lambda g, n: g.uniform(low, high, n)
    if kind == "exponential":
        mean = p["mean"]
        return lambda g, n: g.exponential(mean, n)
    if p["median"] == 0:
        raise ScenarioError(f"{field}.median", "a lognormal median must be > 0")
    mu, sigma = math.log(p["median"]), p["sigma"]
    return lambda g, n: g.lognormal(mu, sigma, n)


class Stream:
    """One distribution's draws from its own generator, handed out one at a time."""

    __slots__ = ("_block", "_draw", "_generator", "_next")

    def __init__(self, draw: Draw, generator: np.random.Generator) -> None:
        self._draw, self._generator = draw, generator
        self._block: list[float] = []
        self._next = 0

    def __call__(self) -> float:
        i = self._next
        if i == len(self._block):
            self._block, i = self._draw(self._generator, BLOCK).tolist(), 0
        self._next = i + 1
        return self._block[i]
