"""The randomness of a run of sessions, seeded from the run's seed and the chunk's place."""

from __future__ import annotations

from random import Random
from typing import NamedTuple

import numpy as np

from acp_suggestions.sims.dists import Stream
from acp_suggestions.sims.scenario import Point


class Draws(NamedTuple):
    """The randomness of a run of sessions: a Random for the user's and the agent's choices,
    and a stream of draws per timing, each with its own generator."""

    decide: Random
    to_agent: Stream
    to_client: Stream
    prediction: Stream
    turn: Stream
    think: Stream
    typing: Stream
    send_after_accept: Stream
    foreground_start: Stream
    foreground_duration: Stream
    replay_duration: Stream

    @classmethod
    def seeded(cls, point: Point, *key: int) -> Draws:
        """Draws for `point` seeded from `key` (e.g. seed, point, chunk); string seeds are
        hashed with SHA-512, so nothing depends on Python's hash seed."""
        timings = cls._fields[1:]
        seeds = np.random.SeedSequence(list(key)).spawn(len(timings))
        streams = (
            Stream(getattr(point, name), np.random.default_rng(ss))
            for name, ss in zip(timings, seeds, strict=True)
        )
        return cls(Random("/".join(map(str, key))), *streams)
