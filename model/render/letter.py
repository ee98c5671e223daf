"""The letter to the RFD's author, read in three minutes: the verdict first, then each edit
as text to paste, where it goes and where it matters (this RFD's own, then the SDKs'), then
the questions the model had to answer for itself.  Written from a review's data like the
findings: an edit the data no longer supports is an error, not a sentence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_suggestions.model.amendments import ADOPTIONS_BY_NAME
from acp_suggestions.model.render.findings import ABOUT, CURRENT, Review, Unsupported

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
REPLAY_LEVEL = ("Replay and resuming", "Agents SHOULD NOT include suggestions in session replay.")
REPLAY_EMPTY = ("Replay and resuming", "A loaded or resumed session starts with an empty list.")
REPLAY_AFTER = (
    "Replay and resuming",
    "After session/load or session/resume completes, the Agent may send a new update with "
    "suggestions for the session as it stands.",
)
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
PRESENTATION_SHOULD = (
    "Client presentation",
    "That UI SHOULD show the full text and identify every other block, such as a linked file, "
    "before the user selects the suggestion.",
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
QUOTES = (
    LIFETIME_CROSSING,
    LIFETIME_CURRENT,
    V2_ACCEPTS,
    LT4,
    LIFETIME_MAY_STOP,
    REPLAY_LEVEL,
    REPLAY_EMPTY,
    REPLAY_AFTER,
    SKIP,
    FAQ_ONE_ACTION,
    PRESENTATION_SHOULD,
    ACCEPT_THEN_SEND,
    AUTO_SETTING,
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
    # For an edit to this RFD: the text that takes the quoted sentence's place.
    replacement: str = ""


def _adopt(name: str) -> str:
    """The sentence the letter proposes, as the audit accepts it once adopted."""
    return ADOPTIONS_BY_NAME[name].sentence


def _need(holds: bool, what: str) -> None:
    if not holds:
        raise Unsupported(f"the letter no longer holds: {what}")


def _judged(data: Review, name: str) -> list[dict[str, Any]]:
    for p in data.get("proposals", []):
        if p["name"] == name:
            settings: list[dict[str, Any]] = p["settings"]
            return settings
    raise Unsupported(f"the review did not judge {name}")


def _setting(data: Review, name: str, key: str) -> dict[str, Any]:
    for s in _judged(data, name):
        if s["key"] == key:
            return s
    raise Unsupported(f"the review did not judge {name} in {key}")


def _reading(data: Review, name: str) -> dict[str, Any]:
    for r in data.get("readings", []):
        if r["name"] == name:
            found: dict[str, Any] = r
            return found
    raise Unsupported(f"the review did not judge the reading {name}")


def _under(data: Review, name: str, option: str) -> list[dict[str, Any]]:
    """What a reading's option changes, exploration by exploration."""
    for other in _reading(data, name)["others"]:
        if other["option"] == option:
            settings: list[dict[str, Any]] = other["settings"]
            return settings
    raise Unsupported(f"the review did not judge {name}={option}")


_LIST_KEPT = "withdrawn_after_prompt"  # the client holds no list from before an accepted prompt


def _replay(data: Review) -> Change:
    under = {s["key"]: s for s in _under(data, "reopened-list", "replayed")}
    for v in (1, 2):
        s = under.get(f"mutation.RP-1.v{v}.fifo", {"closed": [], "after": []})
        _need(_LIST_KEPT in s["closed"], f"v{v}: the replayed reading holds")
        _need(s["after"] == ["replay_carries_no_suggestions"], f"v{v}: only replay is left")
    return Change(
        "Replay and resuming contradicts Lifetime",
        REPLAY_LEVEL,
        f"Replace it with: \u201c{_adopt('replay-must-not')}\u201d",
        "Lifetime makes a replayed list current, the next sentence empty; if empty, nothing "
        "withdraws it.",
        "v1 and v2, every transport.",
        "`acp-suggestions check --break RP-1`, then with `--reading reopened-list=replayed`.",
        _adopt("replay-must-not"),
    )


def _reopen(data: Review) -> Change:
    for v in (1, 2):
        live = f"environment.load-on-live-connection.v{v}.fifo"
        for name in ("agent-withdraws-on-load", "client-fences-load"):
            s = _setting(data, name, live)
            _need(_LIST_KEPT in s["before"] and s["after"] == [], f"{name} closes {live}")
        completion = {s["key"]: s for s in _under(data, "reopened-empty-from", "completion")}
        _need(_LIST_KEPT in completion[live]["closed"], f"completion closes {live}")
    return Change(
        "A list in flight across a reopen",
        REPLAY_AFTER,
        f"Add before it: \u201c{_adopt('agent-withdraws-on-load')}\u201d",
        "A list sent just before the agent read the load arrives after the client emptied "
        "its list; nothing withdraws it.",
        "v1 and v2, reopened on the live connection.",
        "`acp-suggestions check --live-load`, then with `--client fence-load`.",
        f"{_adopt('agent-withdraws-on-load')} {REPLAY_AFTER[1]}",
    )


def _share(row: dict[str, Any]) -> str:
    exposure = row["pre_prompt_exposure_mean_s"]
    per_session = f"{exposure * 1000:.0f} ms" if exposure < 1 else f"{exposure:.1f} s"
    return f"{row['pre_prompt_turns_fraction']:.0%} of turns, {per_session} a session"


def _stop_on_send(data: Review) -> Change:
    screen = data.get("on_screen")
    if screen is None:
        raise Unsupported("the review has no simulator figures (on_screen)")
    rows = {(r["latency_s"], r["client"]): r for r in screen["rows"]}
    stdio, slow = 0.005, 1.0
    for latency in (stdio, slow):
        kept, dropped = rows[latency, "rfd-minimal"], rows[latency, "drop-on-send"]
        _need(
            kept["pre_prompt_turns_fraction_lo"] > 10 * dropped["pre_prompt_turns_fraction_hi"],
            f"dropping on send shows a pre-prompt list on far fewer turns at {latency} s",
        )
    judged = _judged(data, "client-stops-on-send")
    _need(not any(s["opened"] for s in judged), "dropping the list on send opens nothing")
    replacement = (
        "A Client MAY stop offering it at any time, for example when the user dismisses it or "
        f"starts typing. {_adopt('client-stops-on-send')}"
    )
    return Change(
        "Drop the list when the prompt goes",
        LIFETIME_MAY_STOP,
        "End it at \u201cstarts typing.\u201d and add: "
        f"\u201c{_adopt('client-stops-on-send')}\u201d",
        "Kept, it shows in the emptied composer until withdrawn: at 5 ms one-way on "
        f"{_share(rows[stdio, 'rfd-minimal'])}; at 1 s on "
        f"{_share(rows[slow, 'rfd-minimal'])}. Dropped: "
        f"{rows[slow, 'drop-on-send']['pre_prompt_turns_fraction']:.1%} at 1 s.",
        "what the user sees.",
        f"`{screen['command']}`.",
        replacement,
    )


def _ordered(data: Review) -> Change:
    for sem in ("python-sdk", "typescript-sdk"):
        for v in (1, 2):
            s = _setting(data, "ordered-updates", f"baseline.{CURRENT}.v{v}.{sem}")
            _need(_LIST_KEPT in s["before"] and s["after"] == [], f"ordered {sem} v{v}")
    for v in (1, 2):
        _need(
            not data["baselines"][f"baseline.{CURRENT}.v{v}.fifo"]["violated_in_force"],
            "stdio holds",
        )
    return Change(
        "Updates handled out of order",
        LIFETIME_CROSSING,
        f"Ask the SDKs: \u201c{_adopt('ordered-updates')}\u201d",
        "Python's SDK handles notifications as concurrent tasks; TypeScript's lets the "
        "response overtake updates.",
        "Python's and TypeScript's SDKs.",
        "`acp-suggestions check --semantics python-sdk` (or `typescript-sdk`).",
    )


def _typed(data: Review) -> Change:
    typed = [
        data["environments"][f"environment.typed-sdk-client.v{v}.fifo"]["beyond_baseline"]
        for v in (1, 2)
    ]
    _need(all("client_holds_latest" in t for t in typed), "a typed SDK's client holds the latest")
    return Change(
        "Typed SDKs drop a whole update",
        SKIP,
        "Ask the SDKs: \u201cEach suggestion is parsed on its own, so that a block a Client "
        "cannot parse drops that suggestion and not the update.\u201d",
        "Otherwise the client keeps its older list.",
        "Python's and TypeScript's SDKs.",
        "`acp-suggestions review` (environment typed-sdk-client).",
    )


def _environment(data: Review, name: str, breaks: set[str]) -> None:
    for v in (1, 2):
        found = data["environments"][f"environment.{name}.v{v}.fifo"]["beyond_baseline"]
        _need(breaks <= set(found), f"{name} v{v} breaks {sorted(breaks)}")


def _closes(data: Review, name: str, goal: str) -> None:
    for s in _judged(data, name):
        _need(goal in s["closed"], f"{name} closes {goal} in {s['key']}")


def _unseen(data: Review) -> Change:
    _environment(data, "grey-text-with-links", {"user_saw_what_they_sent"})
    _closes(data, "client-shows-every-block", "user_saw_what_they_sent")
    return Change(
        "A link the user never saw",
        ACCEPT_THEN_SEND,
        f"Add after it: \u201c{_adopt('client-shows-every-block')}\u201d",
        "Links are always allowed; Tab and Enter in a plain-text composer send one unseen, "
        "perhaps chosen by what the agent read. The RFD closes it only if \u201ccannot use\u201d "
        "means \u201ccannot show\u201d.",
        "v1 and v2 over stdio, a plain-text composer.",
        "`acp-suggestions check --reading presentation=grey-text --predict "
        "text+resource_link`, then with `--reading cannot-use=cannot-show`.",
        f"{ACCEPT_THEN_SEND[1]} {_adopt('client-shows-every-block')}",
    )


def _auto_send(data: Review) -> Change:
    _environment(data, "auto-send-by-user", {"automatic_sends_bounded"})
    _closes(data, "auto-send-once", "automatic_sends_bounded")
    return Change(
        "A setting that never stops",
        AUTO_SETTING,
        f"Add after it: \u201c{_adopt('auto-send-once')}\u201d",
        "The client sends, the agent suggests again, on and on without the user.",
        "v1 and v2 over stdio, the user's setting on.",
        "`acp-suggestions check --reading auto-send=user`, then with `--client auto-send-once`.",
        f"{AUTO_SETTING[1]} {_adopt('auto-send-once')}",
    )


IN_THIS_RFD = (_replay, _reopen, _stop_on_send)
FOR_THE_USER = (_unseen, _auto_send)
FOR_THE_SDKS = (_ordered, _typed)


def changes(data: Review) -> list[Change]:
    """The edits, this RFD's first (the list's, then the user's), each checked against the
    review's data."""
    return [make(data) for make in (*IN_THIS_RFD, *FOR_THE_USER, *FOR_THE_SDKS)]


def _verdict(data: Review) -> str:
    bases = data["baselines"]
    stdio = [bases[f"baseline.{CURRENT}.v{v}.fifo"]["violated_in_force"] for v in (1, 2)]
    _need(stdio == [[], []], "stdio holds")
    edits = len(IN_THIS_RFD) + len(FOR_THE_USER)
    return (
        "**The list is safe over stdio in v1 and v2 as written; what the user sends is not: "
        f"{edits} edits to this RFD and {len(FOR_THE_SDKS)} to the SDKs close the gaps.** "
        "Safe: compliant peers keep every checked property in every interleaving "
        "within small bounds. Checked: the list, and who authors each prompt under three "
        "presentations and an automatic setting; not: timing, other presentations."
    )


def _questions(data: Review) -> list[str]:
    """The readings that change a verdict, as questions with their options (but those an
    edit makes moot), then the open points no reading settles."""
    out = []
    for r in data.get("readings", []):
        changed = [o for o in r["others"] if any(s["closed"] or s["opened"] for s in o["settings"])]
        if r["name"] in _SETTLED_BY_EDITS or not changed:
            continue
        options = "; ".join(f"`{o['option']}`" for o in changed)
        out.append(
            f"{r['section']}: {r['question']} The model reads `{r['ran']}`; {options} changes "
            f"what fails (`--reading {r['name']}=OPTION`)."
        )
    return out + list(OPEN_QUESTIONS)


# Readings an edit above makes moot: with replay a MUST NOT no list is replayed, and with
# either reopen sentence it no longer matters when the client empties its list.
# The user's edits settle whether a block the client cannot show makes a suggestion one it
# cannot use, and what the presentation and an automatic setting may send (both the client's
# choice by design, not a question).
_SETTLED_BY_EDITS = (
    "reopened-list",
    "reopened-empty-from",
    "cannot-use",
    "presentation",
    "auto-send",
)

OPEN_QUESTIONS = (
    f"{PRESENTATION_SHOULD[0]}: a SHOULD asks a UI that sends on selection to show the whole "
    "suggestion first; the FAQ makes it a condition. Which?",
)


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
            f"   - For {c.matters} Shown by: {c.proof}",
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
