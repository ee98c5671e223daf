"""Mutations: each breaks one rule on purpose, with the environment that gives the breach a
chance to show (e.g. a model call that may return whitespace for SC-2).  The spec review runs
every one of them; the tests check that each is caught."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from model.config import (
    PREDICT_ALL_UNUSABLE,
    PREDICT_BLANK,
    PREDICT_IMAGE,
    PREDICT_ONE_UNUSABLE,
    PREDICT_TRIMMABLE,
    Config,
)
from model.messages import ClientSuggestionCaps
from model.rules import Revision


@dataclass(frozen=True, slots=True)
class Mutation:
    """Break `rule` in a configuration; `expect` names the invariant meant to catch it."""

    rule: str
    summary: str
    apply: Callable[[Config], Config]
    expect: str
    versions: tuple[int, ...] = (1, 2)
    revision: Revision = Revision.CURRENT

    def fits(self, revision: Revision, version: int) -> bool:
        """Whether the rule is one of `revision`'s and applies to protocol `version`."""
        return revision is self.revision and version in self.versions

    @property
    def setting(self) -> str:
        """Where the rule applies, in words."""
        return f"revision {self.revision.value}, protocol v{'/v'.join(map(str, self.versions))}"


def _agent_breaks(rule: str, **env: object) -> Callable[[Config], Config]:
    def apply(cfg: Config) -> Config:
        agent = replace(cfg.agent, breaks=cfg.agent.breaks | {rule})
        return cfg.with_(agent=agent, **env)

    return apply


def _both_break(rule: str) -> Callable[[Config], Config]:
    def apply(cfg: Config) -> Config:
        agent = replace(cfg.agent, breaks=cfg.agent.breaks | {rule})
        client = replace(cfg.client, breaks=cfg.client.breaks | {rule})
        return cfg.with_(agent=agent, client=client)

    return apply


def _client_breaks(rule: str, **env: object) -> Callable[[Config], Config]:
    def apply(cfg: Config) -> Config:
        client = replace(cfg.client, breaks=cfg.client.breaks | {rule})
        return cfg.with_(client=client, **env)

    return apply


_NOT_ADVERTISED = ClientSuggestionCaps()

MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "CAP-2",
        "sends updates to a client that did not advertise promptSuggestions",
        _agent_breaks("CAP-2", client_caps=_NOT_ADVERTISED),
        "capability_respected",
    ),
    Mutation(
        "SC-3",
        "sends image suggestions that neither side advertised",
        _agent_breaks("SC-3", predictions=PREDICT_IMAGE),
        "content_supported",
    ),
    Mutation(
        "SC-2",
        "sends a whitespace-only suggestion",
        _agent_breaks("SC-2", predictions=PREDICT_BLANK),
        "no_blank_suggestion",
    ),
    Mutation(
        "LT-4",
        "publishes a prediction after the conversation moved on",
        _agent_breaks("LT-4"),
        "prediction_current",
    ),
    Mutation(
        "LT-5",
        "does not replace or withdraw its list when it accepts a prompt",
        _agent_breaks("LT-5"),
        "withdrawn_after_prompt",
    ),
    Mutation(
        "LT-6",
        "does not withdraw its list when foreground work starts without a prompt",
        _agent_breaks("LT-6"),
        "withdrawn_after_foreground_work",
        versions=(2,),
    ),
    Mutation(
        "RP-1",
        "includes past suggestions in load/resume replay",
        _agent_breaks("RP-1"),
        "replay_carries_no_suggestions",
    ),
    Mutation(
        "RP-2",
        "keeps its list across load/resume (the agent its current list, the client what it held)",
        _both_break("RP-2"),
        "list_starts_empty",
    ),
    Mutation(
        "CP-1",
        "sends an offered suggestion as a prompt by itself",
        _client_breaks("CP-1"),
        "user_sends_every_prompt",
    ),
    Mutation(
        "SC-4",
        "drops a whole update when one suggestion is unusable",
        _client_breaks("SC-4", predictions=PREDICT_ONE_UNUSABLE),
        "client_holds_last_update",
    ),
    Mutation(
        "SC-5",
        "offers what remains of a suggestion after dropping an unusable block",
        _client_breaks("SC-5", predictions=PREDICT_TRIMMABLE),
        "client_holds_last_update",
    ),
    Mutation(
        "SC-6",
        "keeps its old list when every suggestion of an update is unusable",
        _client_breaks("SC-6", predictions=PREDICT_ALL_UNUSABLE),
        "client_holds_last_update",
    ),
    Mutation(
        "UPD-3", "ignores an empty update", _client_breaks("UPD-3"), "client_holds_last_update"
    ),
    Mutation(
        "UPD-6",
        "appends an update to its list instead of replacing it",
        _client_breaks("UPD-6"),
        "client_holds_last_update",
    ),
    Mutation(
        "TM-3",
        "blocks the next prompt until a suggestion arrives",
        _client_breaks("TM-3"),
        "client_never_waits",
    ),
    Mutation(
        "D-4",
        "keeps offering its list after it sends a prompt",
        _client_breaks("D-4"),
        "no_offer_from_before_own_prompt",
        revision=Revision.DRAFT,
    ),
)

MUTATIONS_BY_RULE = {m.rule: m for m in MUTATIONS}
