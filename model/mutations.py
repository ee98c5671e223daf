"""Mutations: each breaks one rule on purpose, with the environment that gives the breach a
chance to show (e.g. a model call that may return whitespace for SC-2), as the rule's card
declares it (`Breach`).  The spec review runs every one of them; the tests check that each is
caught."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.property import Property
from acp_suggestions.model.rules import RULES, Revision, Rule, RuleId, Side, in_force


@dataclass(frozen=True, slots=True)
class Mutation:
    """Break `rule` in a configuration; `expect` is the invariant meant to catch it."""

    rule: RuleId
    summary: str
    apply: Callable[[Config], Config]
    expect: Property
    versions: tuple[int, ...]
    revision: Revision

    def fits(self, revision: Revision, version: int) -> bool:
        """Whether the rule is one of `revision`'s and applies to protocol `version`."""
        return in_force((self.rule,), revision, version) and version in self.versions

    @property
    def setting(self) -> str:
        """Where the rule applies, in words."""
        return f"revision {self.revision.value}, protocol v{'/v'.join(map(str, self.versions))}"


def _breaks(
    rule: RuleId, by: Side, env: tuple[tuple[str, object], ...]
) -> Callable[[Config], Config]:
    def apply(cfg: Config) -> Config:
        agent, client = cfg.agent, cfg.client
        if by is not Side.CLIENT:
            agent = replace(agent, breaks=agent.breaks | {rule})
        if by is not Side.AGENT:
            client = replace(client, breaks=client.breaks | {rule})
        return cfg.with_(agent=agent, client=client, **dict(env))

    return apply


def _catching(rule: Rule) -> Property:
    """The one invariant that says it catches the rule's breach; none or several fail here."""
    catching = [p for p in INVARIANTS if rule.id in p.catches]
    if len(catching) != 1:
        named = ", ".join(p.name for p in catching) or "none"
        raise ValueError(f"{rule.id}: one invariant must catch its breach, not: {named}")
    return catching[0]


def mutations_of(rules: tuple[Rule, ...]) -> tuple[Mutation, ...]:
    """The mutation of each card with a breach, in catalogue order."""
    return tuple(
        Mutation(
            rule.id,
            rule.breach.summary,
            _breaks(rule.id, rule.breach.by, rule.breach.env),
            _catching(rule),
            rule.breach.versions or rule.versions,
            rule.revisions[0],
        )
        for rule in rules
        if rule.breach
    )


MUTATIONS = mutations_of(RULES)
MUTATIONS_BY_RULE: dict[str, Mutation] = {m.rule: m for m in MUTATIONS}
