"""What a client under test says it offers, on the wire: an ACP extension notification
`_acp-suggestions/offered` with `{"sessionId", "updatesSeen": N, "suggestions": [...]}`, sent
after each suggestion update it reads, N counting the session's updates it has read so far.
The trace checker holds each report against the list of update N: the client may offer less
(LT-7), never a list before the first (LT-1), one that was replaced (LT-2) or withdrawn
(UPD-3), nor what remains of a suggestion it trimmed (SC-5)."""

from __future__ import annotations

from dataclasses import dataclass, field

from acp_suggestions.model.messages import (
    CURRENT_VARIANT,
    MessageError,
    Suggestion,
    frozen_json,
    parse_session_update,
)
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.wire.monitors import Verdict

OFFERED = "_acp-suggestions/offered"  # the notification's method (an extension: leading "_")
KEPT = 64  # the lists of a session kept for reports that lag behind the recording
JUDGED = (RuleId.LT_1, RuleId.LT_2, RuleId.UPD_3, RuleId.SC_5)


class ReportError(ValueError):
    """A report that cannot be read: says what is wrong with it."""


@dataclass(frozen=True, slots=True)
class Report:
    """One report: the session, how many of its updates the client had read, what it offers."""

    session: str
    seen: int
    offered: tuple[Suggestion, ...]


def read_report(params: dict[str, object]) -> Report:
    """The report in a notification's params; ReportError names the field that is wrong."""
    sid, seen = params.get("sessionId"), params.get("updatesSeen")
    if not isinstance(sid, str):
        raise ReportError("sessionId must be a string")
    if not isinstance(seen, int) or isinstance(seen, bool) or seen < 0:
        raise ReportError("updatesSeen must be a whole number, 0 or more")
    try:
        parsed = parse_session_update(
            {"sessionUpdate": CURRENT_VARIANT, "suggestions": params.get("suggestions")},
            "$.params",
        )
    except MessageError as exc:
        raise ReportError(f"{exc.path}: {exc}") from None
    assert parsed is not None  # the variant carries suggestions
    if parsed.skipped:
        raise ReportError(f"{parsed.skipped[0].path}: {parsed.skipped[0]}")
    return Report(sid, seen, parsed.suggestions)


def _trimmed(offered: list[object], whole: list[object]) -> bool:
    """Whether `offered` is `whole` with some of its blocks left out (in order)."""
    rest = iter(whole)
    return len(offered) < len(whole) and all(block in rest for block in offered)


def _why(
    report: Report, blocks: list[object], current: tuple[Suggestion, ...]
) -> tuple[RuleId, str]:
    """The rule an offered suggestion that is not in `current` breaks, and how."""
    n = report.seen
    if any(_trimmed(blocks, whole.blocks()) for whole in current):
        return RuleId.SC_5, (
            f"the client offers what remains of a suggestion of update {n} with some of its "
            "blocks left out, rather than skipping it whole"
        )
    if not n:
        return RuleId.LT_1, "the client offers a suggestion before it read any list of the session"
    if not current:
        return (
            RuleId.UPD_3,
            f"the client offers a list after update {n}, the empty list that withdrew it",
        )
    return RuleId.LT_2, (
        f"the client offers a suggestion that is not in update {n}, the most recent list it read"
    )


def judge(report: Report, current: tuple[Suggestion, ...]) -> tuple[RuleId, Verdict, str]:
    """The verdict on a report against the list of the update it names (`current`): the rule,
    the verdict and why."""
    lists = {frozen_json(s.blocks()) for s in current}  # a set: a long list costs a look-up
    for suggestion in report.offered:
        if frozen_json(blocks := suggestion.blocks()) not in lists:
            rule, why = _why(report, blocks, current)
            return rule, Verdict.VIOLATION, why
    return RuleId.LT_2, Verdict.PASS, "what the client offers is in the most recent list it read"


@dataclass
class Lists:
    """A session's lists as a recording shows them, counted, the last `KEPT` kept by their
    number: what a report of the session is judged on."""

    count: int = 0
    kept: dict[int, tuple[Suggestion, ...]] = field(default_factory=dict)

    def add(self, suggestions: tuple[Suggestion, ...]) -> None:
        """One more list (empty: a withdrawal)."""
        self.count += 1
        self.kept[self.count] = suggestions
        self.kept.pop(self.count - KEPT, None)

    def verdict(self, report: Report) -> tuple[RuleId, Verdict, str]:
        """The verdict on `report`; ReportError if it names a list the recording has not
        shown yet (it cannot have been read)."""
        if report.seen > self.count:
            raise ReportError(
                f"updatesSeen is {report.seen}, but the recording holds {self.count} list(s) "
                f"of session {report.session} by then"
            )
        if report.seen and report.seen not in self.kept:
            return (
                RuleId.LT_2,
                Verdict.INCONCLUSIVE,
                (
                    f"the report names update {report.seen}, older than the last {KEPT} the "
                    "checker keeps"
                ),
            )
        return judge(report, self.kept.get(report.seen, ()))
