"""What a rule card says: the rule's place in the text (section, level, revision), whom it
binds, how it is checked, the words the audit finds it by, and the breach that shows the model
catches it (its mutation)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from acp_suggestions.model.rules.ids import RuleId


class Level(StrEnum):
    """RFC 2119 level of a rule; STRUCTURAL is a requirement stated without a keyword, and
    RATIONALE a reason the RFD gives for a rule, catalogued beside it."""

    MUST = "MUST"
    MUST_NOT = "MUST NOT"
    SHOULD = "SHOULD"
    SHOULD_NOT = "SHOULD NOT"
    MAY = "MAY"
    STRUCTURAL = "structural"
    RATIONALE = "rationale"  # a reason the RFD gives for a rule, kept beside it, not a rule


class Side(StrEnum):
    """Which peer the rule binds."""

    AGENT = "agent"
    CLIENT = "client"
    BOTH = "both"


class Check(StrEnum):
    """How the project checks a rule."""

    INVARIANT = "model invariant"
    MONITOR = "trace monitor"
    BOTH = "both"
    # A behaviour one of the model's policies has (the legacy adapter's, the draft client's)
    # that neither a property nor the trace checker decides.
    MODELLED = "modelled, not checked"
    NOT_OBSERVABLE = "not observable"


class Revision(StrEnum):
    """The texts a rule can come from."""

    CURRENT = "2026-11-14"
    DRAFT = "2026-10-15"
    LEGACY = "legacy-meta"


@dataclass(frozen=True, slots=True)
class Breach:
    """Breaking a rule on purpose (its mutation): which side breaks it, in what environment
    (Config fields that give the breach a chance to show, e.g. a model call that may return
    whitespace).  The invariant meant to catch it says so (`Property.catches`): the
    invariants stand above the rules."""

    by: Side
    summary: str
    env: tuple[tuple[str, object], ...] = ()
    # Where the breach can show, if narrower than the rule (LT-6 needs v2's foreground work).
    versions: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    """One normative statement, its card: where it stands, whom it binds, how it is checked,
    and, where the model breaks it on purpose, how (`breach`)."""

    id: RuleId
    section: str
    level: Level
    side: Side
    versions: tuple[int, ...]
    revisions: tuple[Revision, ...]
    summary: str
    check: Check
    why_unobservable: str = ""
    keyword_as_written: str = ""
    # What the rule is about in a few of the RFD's own terms (who, which message, when): the
    # audit matches sentences to rules by these, so a sentence keeps its rule when the text
    # around it moves or is reworded.  Every rule with a keyword has one.
    signature: str = ""
    breach: Breach | None = None

    @property
    def as_written(self) -> str:
        """The level as the text writes it: a lower-case keyword stays lower case and says so
        (RFC 8174 counts only capitals as normative); otherwise the level."""
        kw = self.keyword_as_written
        return f"{kw} (lower case)" if kw and kw.islower() else self.level.value


_BOTH_VERSIONS = (1, 2)
_CURRENT = (Revision.CURRENT,)


def card(
    *,
    id: RuleId,
    section: str,
    level: Level,
    side: Side,
    summary: str,
    check: Check,
    versions: tuple[int, ...] = _BOTH_VERSIONS,
    revisions: tuple[Revision, ...] = _CURRENT,
    why: str = "",
    keyword: str | None = None,
    signature: str = "",
    breach: Breach | None = None,
) -> Rule:
    """A rule card, every field named, its keyword as written defaulting to its level (none for
    a requirement stated without one)."""
    unwritten = level in (Level.STRUCTURAL, Level.RATIONALE)  # no keyword in the text
    written = keyword if keyword is not None else ("" if unwritten else str(level))
    return Rule(
        id,
        section,
        level,
        side,
        versions,
        revisions,
        summary,
        check,
        why,
        written,
        signature,
        breach,
    )
