"""The letter to the RFD's author, read in three minutes: the verdict first, then each edit
as text to paste, where it goes and where it matters (this RFD's own, then the SDKs'), then
the questions the model had to answer for itself.  Written from a review's data like the
findings: an edit the data no longer supports is an error, not a sentence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp_suggestions.model.amendments import ADOPTIONS_BY_NAME
from acp_suggestions.model.render.findings import ABOUT, CURRENT, Review, Unsupported
from acp_suggestions.model.render.rfd_edits import Op
from acp_suggestions.model.threats import AXES

# The RFD sentences the letter quotes, by section (a test holds each to the RFD's text).
LIFETIME_CROSSING = (
    "Lifetime",
    "The Agent replaces or withdraws that list when it accepts the prompt, so the Client "
    "does not need to detect this case.",
)
LIFETIME_CURRENT = (
    "Lifetime",
    "The suggestions in the most recent update are the current list until the Agent sends "
    "another update.",
)
V2_ACCEPTS = ("Lifetime", "In v2, the Agent accepts a prompt when it inserts the user message.")
LT4 = (
    "Lifetime",
    "If the conversation changes before the Agent has sent a prediction, for example because "
    "a session/prompt arrived, the Agent MUST discard that prediction.",
)
REPLAY_EMPTY = ("Replay and resuming", "A loaded or resumed session starts with an empty list.")
SKIP = (
    "Suggestion content",
    "A Client skips a suggestion it cannot use and keeps the rest, for example one with a "
    "block it cannot parse.",
)
FAQ_ONE_ACTION = (
    "Why can a Client not send a suggestion on its own?",
    "A Client can let one action both accept and send a suggestion, as long as the user could "
    "see what it contains first.",
)
LIFETIME_MAY_STOP = (
    "Lifetime",
    "A Client MAY stop offering it at any time, for example when the user dismisses it, starts "
    "typing, or sends a prompt.",
)
ACCEPT_THEN_SEND = (
    "Client presentation",
    "The user accepts a suggestion into the composer and then sends it.",
)
AUTO_SETTING = (
    "Client presentation",
    "The user turns on a Client setting that sends suggestions automatically.",
)
CHIP_SHOULD = (
    "Client presentation",
    "That UI SHOULD show the full text and identify every other block, such as a linked file, "
    "before the user selects the suggestion.",
)
QUOTES = (
    LIFETIME_CROSSING,
    LIFETIME_CURRENT,
    V2_ACCEPTS,
    LT4,
    LIFETIME_MAY_STOP,
    REPLAY_EMPTY,
    SKIP,
    FAQ_ONE_ACTION,
    ACCEPT_THEN_SEND,
    AUTO_SETTING,
    CHIP_SHOULD,
)


@dataclass(frozen=True, slots=True)
class Change:
    """One edit: what it is about, the sentence it changes (section, as written), the exact
    text to paste and where, what it fixes, where it matters, and the command that shows it."""

    headline: str
    quote: tuple[str, str]  # (section, sentence as written)
    paste: str
    fixes: str
    matters: str
    proof: str
    # For an edit to this RFD: the operations that make it on the RFD's text.
    ops: tuple[Op, ...] = ()


def _adopt(name: str) -> str:
    """The sentence the letter proposes, as the audit accepts it once adopted."""
    return ADOPTIONS_BY_NAME[name].sentence


def need(holds: bool, what: str) -> None:
    """Raise Unsupported unless the review's data still holds `what`."""
    if not holds:
        raise Unsupported(f"the letter no longer holds: {what}")


def _judged(data: Review, name: str) -> list[dict[str, Any]]:
    for p in data.get("proposals", []):
        if p["name"] == name:
            settings: list[dict[str, Any]] = p["settings"]
            return settings
    raise Unsupported(f"the review did not judge {name}")


def _plan(data: Review) -> dict[str, Any]:
    found: dict[str, Any] | None = data.get("plan")
    if not found:
        raise Unsupported("the review has no plan of the reopen edits")
    return found


def _steps(failure: dict[str, Any]) -> str:
    """A plan's failure as the letter names it: version and length of its run."""
    return f"v{failure['version']}, {failure['steps']} steps"


def reopen_scope(plan: dict[str, Any]) -> str:
    """Where the RFD as written fails a reopen and the plan's set closes it, in words: the
    versions and the connections the session is reopened on, over stdio."""
    cells = plan["fails"]["as-written"]
    versions = sorted({c.split()[0] for c in cells})
    where = sorted({c.split()[1].split(",")[0] for c in cells})
    on = " or ".join({"new-connection": "a new", "live-load": "the live"}[w] for w in where)
    return f"{' and '.join(versions)} over stdio, reopened on {on} connection."


def _reopen(data: Review) -> Change:
    plan = _plan(data)
    sets = plan["sets"]
    need(plan["recommended"] == ["empty-on-completion"], "the plan recommends one sentence")
    need(sets["as-written"] is not None, "the RFD as written loses a reopen")
    withdraw, both = "agent-withdraws-on-load", "agent-withdraws-on-load+replay-must-not"
    need(sets[withdraw] is not None and sets[both] is None, "the withdrawal needs the MUST NOT")
    need(sets["replay-must-not"] is not None, "the MUST NOT alone leaves the live reopen")
    need(["client-fences-load"] in plan["minimal"], "the fence alone closes it too")
    return Change(
        "A list that outlives a reopen",
        REPLAY_EMPTY,
        f"Replace it with: \u201c{_adopt('empty-on-completion')}\u201d",
        "A list replayed under the SHOULD NOT, or in flight across a live reopen, stays "
        f"({_steps(sets['as-written'])}); this closes both, the MUST NOT on replay only the "
        "first.",
        reopen_scope(plan),
        "`acp-suggestions check --live-load`, then with `--reading "
        "reopened-empty-from=completion`.",
        (Op("replace", *REPLAY_EMPTY, _adopt("empty-on-completion")),),
    )


# A figure of the simulator's that a user would notice: a list from before the prompt on screen
# 0.1 s or more at a stretch (sims.screen.NOTICED) on at least one turn in ten.
NOTICEABLE = 0.1


def _stop_on_send(data: Review) -> Change:
    screen = data.get("on_screen")
    if screen is None:
        raise Unsupported("the review has no simulator figures (on_screen)")
    rows = {(r["latency_s"], r["client"]): r for r in screen["rows"]}
    kept = {lat: r for (lat, client), r in rows.items() if client == "rfd-minimal"}
    far = min(lat for lat, r in kept.items() if r["pre_prompt_noticed_fraction_lo"] >= NOTICEABLE)
    stdio, slow = min(kept), max(kept)
    dropped = rows[slow, "drop-on-send"]
    need(
        kept[slow]["pre_prompt_noticed_fraction_lo"]
        > 10 * dropped["pre_prompt_noticed_fraction_hi"],
        "dropping on send leaves a noticeable pre-prompt list on far fewer turns",
    )
    judged = _judged(data, "client-stops-on-send")
    need(not any(s["opened"] for s in judged), "dropping the list on send opens nothing")
    near = kept[stdio]["pre_prompt_noticed_fraction"]
    return Change(
        "Drop the list when the prompt goes",
        LIFETIME_MAY_STOP,
        "Make its end \u201cdismisses it or starts typing.\u201d and add: "
        f"\u201c{_adopt('client-stops-on-send')}\u201d",
        "Kept, it stays in the emptied composer 0.1 s or more on "
        f"{kept[far]['pre_prompt_noticed_fraction']:.0%} of turns at {_ms(far)}, "
        f"{kept[slow]['pre_prompt_noticed_fraction']:.0%} at {_ms(slow)}, "
        f"{f'{near:.1%}' if near else 'none'} at {_ms(stdio)}; dropped, "
        f"{dropped['pre_prompt_noticed_fraction']:.1%} at {_ms(slow)}.",
        f"agents {_ms(far)} or more away.",
        f"`{screen['command']}`.",
        (
            Op(
                "replace",
                *LIFETIME_MAY_STOP,
                "A Client MAY stop offering it at any time, for example when the user dismisses "
                f"it or starts typing. {_adopt('client-stops-on-send')}",
            ),
        ),
    )


def _ms(seconds: float) -> str:
    return f"{seconds:g} s" if seconds >= 1 else f"{seconds * 1000:g} ms"


_SDKS = {"python-sdk": "Python's", "typescript-sdk": "TypeScript's"}


def _versions(keys: list[str]) -> str:
    """The protocol versions of explorations, by their keys, in words ("v1 and v2")."""
    return " and ".join(sorted({k.split(".")[-2] for k in keys}))


def ordered_cells(data: Review) -> list[str]:
    """The explorations over an SDK where ordering the updates closes what the compliant
    peers break, and opens nothing."""
    return [
        s["key"]
        for s in _judged(data, "ordered-updates")
        if s["key"].rsplit(".", 1)[1] in _SDKS and s["closed"] and not s["after"]
    ]


def _ordered(data: Review) -> Change:
    cells = ordered_cells(data)
    sdks = sorted({k.rsplit(".", 1)[1] for k in cells})
    every = {(f"v{v}", sdk) for v in (1, 2) for sdk in _SDKS}
    need(
        {(k.split(".")[-2], k.rsplit(".", 1)[1]) for k in cells} == every,
        "ordering closes what both SDKs break in v1 and v2",
    )
    for v in (1, 2):
        need(
            not data["baselines"][f"baseline.{CURRENT}.v{v}.fifo"]["violated_in_force"],
            "stdio holds",
        )
    return Change(
        "Updates handled out of order",
        LIFETIME_CROSSING,
        f"Ask: \u201c{_adopt('ordered-updates')}\u201d",
        "Python's SDK handles notifications concurrently; TypeScript's lets a response "
        "overtake updates.",
        f"{' and '.join(_SDKS[s] for s in sdks)} SDKs, {_versions(cells)}.",
        "`acp-suggestions check --transport python-sdk`, then with `--transport fifo`.",
    )


def environment_cells(data: Review, name: str, breaks: str) -> list[str]:
    """The explorations of an environment in which the compliant peers break `breaks`."""
    return [
        key
        for key, e in data["environments"].items()
        if key.startswith(f"environment.{name}.") and breaks in e["beyond_baseline"]
    ]


def _typed(data: Review) -> Change:
    cells = environment_cells(data, "typed-sdk-client", "client_holds_latest")
    need(bool(cells), "a typed SDK's client holds the latest")
    return Change(
        "Typed SDKs drop a whole update",
        SKIP,
        "Ask: \u201cEach suggestion is parsed on its own: a block a Client cannot "
        "parse drops that suggestion, not the update.\u201d",
        "Else one such block drops the update, keeping the older list.",
        f"Python's and TypeScript's SDKs, {_versions(cells)}.",
        "`acp-suggestions review` (environment typed-sdk-client).",
    )


def _environment(data: Review, name: str, breaks: str) -> str:
    """The versions over stdio in which the environment `name` breaks `breaks`, in words."""
    cells = environment_cells(data, name, breaks)
    need(bool(cells), f"{name} breaks {breaks}")
    return _versions(cells)


def _closes(data: Review, name: str, gaps: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """Check that the edit `name` closes, in each environment, the goals the compliant peers
    break there; the versions each environment breaks its first goal in, by environment."""
    versions = {env: _environment(data, env, goals[0]) for env, goals in gaps.items()}
    for s in _judged(data, name):
        env = s["key"].split(".")[1]
        for goal in gaps.get(env, ()):
            if goal in s["before"]:
                need(goal in s["closed"], f"{name} closes {goal} in {s['key']}")
    return versions


# What each of the letter's edits for the user closes: by environment of the review, the goals
# the compliant peers break there (the review's letter jobs judge the edit there).
GAPS: dict[str, dict[str, tuple[str, ...]]] = {
    "sends-what-it-showed": {
        "links-named-otherwise": ("user_saw_what_they_sent",),
        "screen-lags": ("user_gets_what_they_saw",),
    },
    "auto-send-bounds": {
        "auto-send-by-user": ("automatic_sends_bounded", "automatic_send_current"),
        "commands-sent-by-a-setting": (
            "features_only_by_user_send",
            "automatic_sends_bounded",
            "automatic_send_current",
        ),
    },
}


def _unseen(data: Review) -> Change:
    versions = _closes(data, "sends-what-it-showed", GAPS["sends-what-it-showed"])
    return Change(
        "What the user saw is what is sent",
        ACCEPT_THEN_SEND,
        "Add after the list, replacing the second item's SHOULD: "
        f"\u201c{_adopt('sends-what-it-showed')}\u201d",
        "A plain-text composer sends links unseen; a link's name can hide its target; a chip "
        "selected as an update lands sends the new one.",
        f"{versions['links-named-otherwise']} over stdio.",
        "`acp-suggestions check --user-goals --reading link-label=name --predict "
        "text+misnamed_link`, then with `--client shows-every-block --reading identity=content`.",
        (
            Op("remove", *CHIP_SHOULD),
            Op("after-list", *ACCEPT_THEN_SEND, _adopt("sends-what-it-showed")),
        ),
    )


def _auto_send(data: Review) -> Change:
    versions = _closes(data, "auto-send-bounds", GAPS["auto-send-bounds"])
    current = _environment(data, "auto-send-by-user", "automatic_send_current")
    return Change(
        "A setting that sends by itself",
        AUTO_SETTING,
        f"Add after the list: \u201c{_adopt('auto-send-bounds')}\u201d",
        f"It sends without end; in {current}, a list that crossed the user's prompt; a "
        "mention attaches a file.",
        f"{versions['auto-send-by-user']} over stdio, the user's setting on.",
        "`acp-suggestions check --user-goals --version 2 --reading auto-send=user --predict "
        "command`, then with `--client auto-send-once,auto-send-after-response,auto-send-plain`.",
        (Op("after-list", *AUTO_SETTING, _adopt("auto-send-bounds")),),
    )


Make = Callable[[Review], Change]
IN_THIS_RFD = (_reopen, _stop_on_send)
FOR_THE_USER = (_unseen, _auto_send)
FOR_THE_SDKS = (_ordered, _typed)
EDIT_ORDER = (*IN_THIS_RFD, *FOR_THE_USER, *FOR_THE_SDKS)
# The readings an edit settles: with the list empty at completion it no longer matters whether
# a replayed list is current or when the list empties; the user's edits say what a client
# must show before a send and how often a setting may send.
SETTLED_BY = {
    "reopened-list": _reopen,
    "reopened-empty-from": _reopen,
    "cannot-use": _unseen,
    "presentation": _unseen,
    "rendering": _unseen,
    "identity": _unseen,
    "link-label": _unseen,
    "auto-send": _auto_send,
}


def changes(data: Review) -> list[Change]:
    """The edits, this RFD's first (the list's, then the user's), each checked against the
    review's data."""
    return [make(data) for make in EDIT_ORDER]


# The letter's set of edits (the review's plan judges it whole, each left out, each alone), by
# the edit that proposes each.
NEEDED = {
    "empty-on-completion": _reopen,
    "sends-what-it-showed": _unseen,
    "auto-send-bounds": _auto_send,
    "ordered-updates": _ordered,
    "parses-each-suggestion": _typed,
}


def needed(data: Review) -> list[int]:
    """The numbers of the edits the review's plan finds each needed and enough alone in its
    own settings, the set keeping every property in all of them (checked here)."""
    letter = _plan(data).get("letter")
    if not letter:
        raise Unsupported("the review has no plan of the letter's set")
    need(letter["edits"] == list(NEEDED), "the plan judges the letter's set")
    need(letter["whole"] is None, "the letter's set keeps every property")
    for edit in letter["edits"]:
        need(letter["without"][edit] is not None, f"{edit} is needed")
        need(letter["alone"][edit] is None, f"{edit} needs no other edit")
    numbers = {make: n for n, make in enumerate(EDIT_ORDER, 1)}
    return sorted(numbers[make] for make in NEEDED.values())


def _runs(numbers: list[int]) -> str:
    """Numbers in words, a run of three or more as a range: [1, 3, 4, 5] is "1 and 3-5" (with
    an en dash)."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [p for r in runs for p in ([f"{r[0]}\u2013{r[-1]}"] if len(r) > 2 else map(str, r))]
    return " and ".join(filter(None, [", ".join(parts[:-1]), parts[-1]]))


def _verdict(data: Review) -> str:
    bases = data["baselines"]
    stdio = [bases[f"baseline.{CURRENT}.v{v}.fifo"]["violated_in_force"] for v in (1, 2)]
    need(stdio == [[], []], "stdio holds")
    numbers = needed(data)
    rest = [n for n in range(1, len(EDIT_ORDER) + 1) if n not in numbers]
    need(rest == [2], "the edit left is the simulator's")
    return (
        "**The list is safe over stdio in v1 and v2 as written; what the user sends is not: "
        f"edits {_runs(numbers)} close the gaps, each needed, none needing another; edit 2 "
        "helps what the user sees.** "
        "Checked: every interleaving in small bounds, against any list an agent may send, "
        f"of the list and the user's side ({', '.join(a for a, _, _ in AXES)}); not: "
        "timing, text read otherwise than sent."
    )


def _questions(data: Review) -> list[str]:
    """Every reading of the review: those no edit settles as questions, with the option the
    model reads and the others that change what fails; then those the edits settle, by name
    (`acp-suggestions readings` asks each)."""
    numbers = {make.__name__: n for n, make in enumerate(EDIT_ORDER, 1)}
    out, idle, settled = [], [], dict[int, list[str]]()
    for r in data.get("readings", []):
        changed = [o for o in r["others"] if any(s["closed"] or s["opened"] for s in o["settings"])]
        if r["name"] in SETTLED_BY:
            settled.setdefault(numbers[SETTLED_BY[r["name"]].__name__], []).append(r["name"])
        elif not changed:
            idle.append(f"`{r['name']}`")
        else:
            options = ", ".join(f"`{o['option']}`" for o in changed)
            where = "FAQ" if r["section"].endswith("?") else r["section"]
            out.append(
                f"{where}: {r['question']} (read `{r['ran']}`; {options} changes what fails.)"
            )
    by_edit = "; ".join(
        f"edit {n}: {', '.join(f'`{name}`' for name in names)}"
        for n, names in sorted(settled.items())
    )
    quiet = [f"{', '.join(idle)}: no verdict changes with them."] if idle else []
    return [*out, *quiet, f"Settled by {by_edit}."]


def _section(title: str, items: list[Change], first: int, quoted: bool) -> list[str]:
    """A numbered list of edits; an edit to the RFD quotes the sentence it changes."""
    out = ["", f"### {title}", ""]
    for n, c in enumerate(items, first):
        section, sentence = c.quote
        where = f"{section}: \u201c{sentence}\u201d" if quoted else f"({section})"
        out += [
            f"{n}. **{c.headline}.** {where}",
            f"   - {c.paste}",
            f"   - Why: {c.fixes}",
            f"   - For {c.matters} Run: {c.proof}",
        ]
    return out


def markdown(data: Review) -> list[str]:
    """The letter as Markdown lines, under its own heading."""
    made = changes(data)
    n, m = len(IN_THIS_RFD), len(IN_THIS_RFD) + len(FOR_THE_USER)
    here, user, sdks = made[:n], made[n:m], made[m:]
    out = ["## To the RFD's author", "", _verdict(data)]
    out += _section("Edits to this RFD", here, 1, quoted=True)
    out += _section("Security and the user", user, n + 1, quoted=True)
    out += _section("For the SDKs", sdks, m + 1, quoted=False)
    out += ["", "### Questions", "", *(f"- {q}" for q in _questions(data))]
    return out


def covers(data: Review) -> dict[int, str]:
    """The findings (numbered from 1) the letter already makes, each with where: an edit that
    quotes the sentence the finding is about, or the questions."""
    edits = {c.quote[1]: n for n, c in enumerate(changes(data), 1)}
    asked = " ".join(_questions(data))
    out = {}
    for n, about in enumerate(ABOUT, 1):
        if about is None or about[0] != CURRENT:
            continue
        sentence = about[2]
        if sentence in edits:
            out[n] = f"edit {edits[sentence]}"
        elif sentence in asked:
            out[n] = "the questions"
    return out


def headlines(data: Review) -> list[str]:
    """The letter's first lines, for the end of the terminal run."""
    return [f"{n}. {c.headline} ({c.quote[0]})" for n, c in enumerate(changes(data), 1)]
