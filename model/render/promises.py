"""The threat model's promises as a review judged them: where the current revision's compliant
peers break each as written, and which of the letter's edits closes each break."""

from __future__ import annotations

from acp_suggestions.model import threats
from acp_suggestions.model.amendments import AMENDMENTS_BY_NAME
from acp_suggestions.model.render.findings import Review
from acp_suggestions.model.render.letter import (
    EDIT_ORDER,
    GAPS,
    NEEDED,
    SETTLED_BY,
    Make,
    need,
    needed,
)
from acp_suggestions.model.render.mdtext import markdown_table


def _broken_where(data: Review) -> dict[str, list[str]]:
    """Where the current revision's compliant peers break each property: the review's
    environments by name, and reading options (NAME=OPTION) that break it."""
    where: dict[str, list[str]] = {}
    for key, e in data["environments"].items():
        for prop in e["beyond_baseline"]:
            name = key.split(".")[1]
            if name not in where.setdefault(prop, []):
                where[prop].append(name)
    for r in data.get("readings", []):
        for o in r["others"]:
            for prop in {p for s in o["settings"] for p in s["opened"]}:
                where.setdefault(prop, []).append(f"{r['name']}={o['option']}")
    return where


def _closed_by(place: str, prop: str) -> Make | None:
    """The letter's edit that closes a break of `prop` in `place`: the edit judged in that
    environment (the review's plan holds the letter's whole set to every judged property
    there, `needed`), or for a reading's option, the edit that settles the reading and
    closes `prop` where the reading shows it; None if none does."""
    name, option, _ = place.partition("=")
    if option:
        make = SETTLED_BY.get(name)
        goals = {
            g for a, gaps in GAPS.items() if NEEDED[a] is make for gs in gaps.values() for g in gs
        }
        return make if prop in goals else None
    judged = {a: AMENDMENTS_BY_NAME[a].judged_in for a in NEEDED if a in AMENDMENTS_BY_NAME}
    return next((NEEDED[a] for a, envs in judged.items() if place in envs), None)


def promises(data: Review) -> list[str]:
    """The threat model's promises as the review judged them: where the compliant peers break
    each as written, and which of the letter's edits closes each break (or that none does)."""
    judged = {key.split(".")[1] for key in data.get("environments", {})}
    need(
        {env for gaps in GAPS.values() for env in gaps} <= judged,
        "the review judged every environment the threat model's edits close",
    )
    needed(data)  # the letter's whole set keeps every judged property in each edit's settings
    numbers: dict[Make, int] = {make: n for n, make in enumerate(EDIT_ORDER, 1)}
    where = _broken_where(data)
    # Where the client itself breaks SC-7 (a screen that shows text only), what breaks there
    # is the client's to mend, not the RFD's.
    clients = set(where.get("offers_only_what_it_shows", []))
    rows = []
    for p in threats.PROMISES:
        if not p.properties:
            rows.append([p.id, p.promise, "-", f"not modelled: {p.not_modelled}", "-"])
            continue
        broken, fixed = [], []
        for prop in p.properties:
            for place in where.get(prop, []):
                broken.append(f"`{prop}` in {place}")
                edit = _closed_by(place, prop)
                if edit:
                    fixed.append(f"edit {numbers[edit]}")
                else:
                    fixed.append("the client's (SC-7)" if place in clients else f"open ({place})")
        checked = ", ".join(f"`{prop}`" for prop in p.properties)
        as_written = "; ".join(broken) or "holds"
        edited = ", ".join(sorted(set(fixed))) if fixed else "holds"
        rows.append([p.id, p.promise, checked, as_written, edited])
    return [
        "",
        "## The user's promises",
        "",
        f"Each promise the RFD makes to the user, checked against {threats.ADVERSARY} "
        "(`acp-suggestions threats`; the page on the threat model): where the compliant peers "
        "break it as written (an environment of the review, or a reading's option), and what "
        "closes each break: one of the letter's edits, the client (where it breaks SC-7 itself), "
        "or nothing yet (open).",
        "",
        *markdown_table(["id", "promise", "checked by", "as written", "with the edits"], rows),
    ]
