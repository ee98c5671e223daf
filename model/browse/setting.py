"""What the explorer walks: a configuration named as `check` names one (its options, in a URL's
`args`, read by `model.options`, the one grammar of a configuration) or as the review names one
(a job's key, in `job`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from acp_suggestions.model import options
from acp_suggestions.model.config import Config


class Unreadable(ValueError):
    """A configuration, path or name the explorer cannot read, with what is wrong."""


@dataclass(frozen=True)
class Setting:
    """One configuration to walk: how a URL names it (`query`: `args` or `job`), its title,
    and the configuration itself."""

    query: tuple[tuple[str, str], ...]
    title: str
    config: Config


def from_job(key: str) -> Setting:
    """The configuration of the review's exploration `key` (`mutation.LT-5.v1.fifo`)."""
    from acp_suggestions.model.review.jobs import job_of

    try:
        job = job_of(key)
    except KeyError:
        raise Unreadable(
            f"job {key!r}: no exploration of the review has that key "
            "(a key names kind.name.version.transport, as review.json and the itf/ files do)"
        ) from None
    return Setting((("job", key),), f"review's {key}", job.config)


def from_namespace(args: argparse.Namespace) -> Setting:
    """The configuration parsed options name, with those options written the one way."""
    cfg, words = options.config_of(args), options.words_of(args)
    return Setting((("args", words),), f"check {words}".rstrip(), cfg)


def from_args(text: str) -> Setting:
    """The configuration `check` would explore with these options (`--version 1 --break LT-5`)."""
    try:
        cfg, words = options.read(text)
    except options.UsageError as exc:
        raise Unreadable(f"args {text!r}: {exc}") from None
    return Setting((("args", words),), f"check {words}".rstrip(), cfg)


def from_query(query: dict[str, str], default: Setting) -> Setting:
    """The setting a URL's query names, or `default`."""
    if "args" in query and "job" in query:
        raise Unreadable("a URL names its configuration by args or by job, not both")
    if "job" in query:
        return from_job(query["job"])
    if "args" in query:
        return from_args(query["args"])
    return default
