"""The plan of the reopen edits, checked a second way: the review judges every set of edits
within the duty table's bounds (v2 at one prediction); here the sets the letter rests on are
judged again at the review's own bounds, and each keeps or fails as the plan says."""

from __future__ import annotations

import pytest

from acp_suggestions.model.config import Bounds
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review import plan
from acp_suggestions.model.review.duties import violated


def _fails(edits: tuple[str, ...]) -> list[str]:
    """The situations in which `edits` fail a property the plan judges, at the review's
    bounds."""
    out = []
    for s in plan.SITUATIONS:
        cfg = s.config(edits).with_(bounds=Bounds())
        broken = violated(cfg, liveness=True)
        if any(n in broken for n in plan.judged(cfg)):
            out.append(plan.label(s.version, s.name))
    return out


@pytest.mark.parametrize(
    ("edits", "works"),
    [
        ((), False),
        (("empty-on-completion",), True),
        (("client-fences-load",), True),
        (("replay-must-not",), False),
        (("agent-withdraws-on-load",), False),
        (("agent-withdraws-on-load", "replay-must-not"), True),
    ],
    ids=["as-written", "completion", "fence", "must-not", "withdrawal", "withdrawal+must-not"],
)
def test_the_sets_the_letter_rests_on_hold_at_the_reviews_bounds(
    edits: tuple[str, ...], works: bool
) -> None:
    """As written, a replayed list (a SHOULD NOT taken) or one in flight across a live reopen
    stays; the completion sentence or the fence alone close both; the MUST NOT alone leaves
    the live reopen; the agent's withdrawal on load alone fails even where nothing failed
    before: it withdraws, then replays the list it had, and the client keeps that."""
    fails = _fails(edits)
    assert (fails == []) is works, fails
    if edits == ("replay-must-not",):
        assert fails and all("live-load" in f for f in fails)
    if edits == ("agent-withdraws-on-load",):
        assert len(fails) == len(plan.SITUATIONS)


def test_the_plan_is_read_from_each_sets_failures() -> None:
    """`plan_of` on hand-made failures: the smallest sets that work, fewer new sentences
    first, and what fails without each edit of the one recommended."""
    fail = plan.Failure("live-load,reopened-list=empty", 2, "p", 7, "k")
    found: dict[str, list[plan.Failure | None]] = {
        plan.AS_WRITTEN: [fail],
        "client-fences-load": [None],
        "empty-on-completion": [None],
        "replay-must-not": [fail],
        "agent-withdraws-on-load+replay-must-not": [None],
    }
    made = plan.plan_of(found)
    assert made.minimal == [["empty-on-completion"], ["client-fences-load"]]
    assert made.recommended == ["empty-on-completion"]
    assert made.without == {"empty-on-completion": fail}
    assert made.fails[plan.AS_WRITTEN] == ["v2 live-load,reopened-list=empty"]


def test_over_the_sdks_the_letters_set_is_judged_as_over_stdio() -> None:
    """The letter's set is judged over stdio in each edit's settings: with its ordering edit,
    a setting over either SDK is the same configuration as over stdio."""
    whole = plan.letter_sets(plan.LETTER[0])[plan.WHOLE]
    settings = review.letter_settings()
    for found in settings.values():
        for _, cfg in found:
            for sdk in (Transport.PYTHON_SDK, Transport.TYPESCRIPT_SDK):
                over_sdk = plan.with_edits(cfg.with_(transport=sdk), whole)
                assert over_sdk == plan.with_edits(cfg.with_(transport=Transport.FIFO), whole)
    assert set(settings) == set(plan.LETTER)


def test_the_letters_reopen_edit_is_needed_and_enough_at_the_reviews_bounds() -> None:
    """The second check of the letter's first edit, at the review's bounds (the plan judges
    it at the duty table's): the whole set keeps every judged property where a reopen can go
    wrong, the set without the completion sentence fails there, and the sentence alone holds."""
    edit = plan.LETTER[0]
    for name, works in ((plan.WHOLE, True), (f"without-{edit}", False), (f"only-{edit}", True)):
        edits = tuple(plan.letter_sets(edit)[name])
        assert (_fails(edits) == []) is works, name
