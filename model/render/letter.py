"""The letter to the RFD's author: the sentences to change first, each quoted from the RFD
with its section, the change, what it fixes and the run of the review that proves it; then
what holds, what fails and the readings the model made.  Written from a review's data like
the findings: a change the data no longer supports is an error, not a sentence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_suggestions.model.amendments import ADOPTIONS_BY_NAME
from acp_suggestions.model.render.findings import CURRENT, LEGACY, Review, Unsupported

# The RFD sentences the letter quotes, by section (a test holds each to the RFD's text).
LIFETIME_CROSSING = (
    "Lifetime",
    "The Agent replaces or withdraws that list when it accepts the prompt, so the Client "
    "does not need to detect this case.",
)
REPLAY_LEVEL = ("Replay and resuming", "Agents SHOULD NOT include suggestions in session replay.")
REPLAY_AFTER = (
    "Replay and resuming",
    "After session/load or session/resume completes, the Agent may send a new update with "
    "suggestions for the session as it stands.",
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
FAQ_FIELD = (
    "Why does the Agent own the list?",
    "If that is not enough in practice, a later revision can add a field that tells the "
    "Client which message a list follows.",
)
LIFETIME_MAY_STOP = (
    "Lifetime",
    "A Client MAY stop offering it at any time, for example when the user dismisses it, starts "
    "typing, or sends a prompt.",
)
MIGRATION = ("Proposed phases", "Keep the _meta key for one release for older peers.")
QUOTES = (
    LIFETIME_CROSSING,
    LIFETIME_MAY_STOP,
    REPLAY_LEVEL,
    REPLAY_AFTER,
    FAQ_ONE_ACTION,
    PRESENTATION_SHOULD,
    FAQ_FIELD,
    MIGRATION,
)


@dataclass(frozen=True, slots=True)
class Change:
    """One sentence to change: where it is, what it says, what to write, and why."""

    headline: str
    quote: tuple[str, str]  # (section, sentence as written)
    proposal: str
    fixes: str
    proof: str


def _adopt(name: str) -> str:
    """The sentence the letter proposes, as the audit accepts it once adopted."""
    return ADOPTIONS_BY_NAME[name].sentence


def _need(holds: bool, what: str) -> None:
    if not holds:
        raise Unsupported(f"the letter no longer holds: {what}")


def _setting(data: Review, name: str, key: str) -> dict[str, Any]:
    for s in _judged(data, name):
        if s["key"] == key:
            return s
    raise Unsupported(f"the review did not judge {name} in {key}")


_TRANSPORTS = {
    "fifo": "stdio",
    "python-sdk": "the Python SDK",
    "typescript-sdk": "the TypeScript SDK",
    "unordered": "free reordering",
}
_ENVIRONMENTS = {"load-on-live-connection": "a session reopened on its live connection"}


def _place(key: str) -> str:
    """A setting's key in words (`environment.load-on-live-connection.v1.fifo`: a session
    reopened on its live connection, v1 over stdio)."""
    kind = key.split(".", 1)[0]
    name, version, semantics = key.rsplit(".", 3)[1:]
    over = f"{version} over {_TRANSPORTS[semantics]}"
    if kind == "environment":
        return f"{_ENVIRONMENTS.get(name, name.replace('-', ' '))}, {over}"
    return over


def _judged(data: Review, name: str) -> list[dict[str, Any]]:
    for p in data.get("proposals", []):
        if p["name"] == name:
            settings: list[dict[str, Any]] = p["settings"]
            return settings
    raise Unsupported(f"the review did not judge {name}")


def _words(props: list[str]) -> str:
    return ", ".join(f"`{p}`" for p in props)


def _ordered(data: Review) -> Change:
    v1 = _setting(data, "ordered-updates", f"baseline.{CURRENT}.v1.python-sdk")
    v2 = _setting(data, "ordered-updates", f"baseline.{CURRENT}.v2.python-sdk")
    loose = _setting(data, "ordered-updates", f"baseline.{CURRENT}.v1.unordered")
    _need("withdrawn_after_prompt" in v1["before"] and v1["after"] == [], "ordered v1 sdk")
    _need(v2["after"] == [], "ordered v2 sdk")
    ts = [
        _setting(data, "ordered-updates", f"baseline.{CURRENT}.v{v}.typescript-sdk") for v in (1, 2)
    ]
    _need(all(t["before"] and t["after"] == [] for t in ts), "ordered typescript-sdk")
    shortest = data["baselines"][f"baseline.{CURRENT}.v1.python-sdk"]["shortest"][
        "withdrawn_after_prompt"
    ]
    return Change(
        "Say that a session's updates are handled in order, or the Client must detect a "
        "crossing after all",
        LIFETIME_CROSSING,
        f'Add: "{_adopt("ordered-updates")}"',
        "The agent does withdraw; what fails is the sentence's premise. A client built on the "
        "ACP Python SDK handles each notification as a task of its own, so the withdrawal can "
        "be handled before the list it withdraws, and the client keeps the outdated list for "
        f"good: {_words(v1['before'])} fail in v1 ({shortest} steps) and "
        f"{_words(v2['before'])} in v2, with both peers compliant. With the sentence added, "
        "all of them hold, in v1 and v2. The same goes for the TypeScript SDK (2.4.0), "
        "which does not even hold a prompt's response back for the updates before it, so no "
        "client strategy helps there; the Rust SDK handles a session's messages in order and "
        "needs nothing. Over a transport that reorders a session's "
        f"messages freely it closes nothing ({_words(loose['after'])} still fail).",
        "`acp-suggestions check --semantics python-sdk` (the run); `acp-suggestions review` judges "
        "`ordered-updates` every time (report: Proposals).",
    )


def _replay_level(data: Review) -> Change:
    needs = None
    for row in data["duties"]["rows"]:
        if (row["property"], row["version"], row["semantics"]) == (
            "withdrawn_after_prompt",
            1,
            "fifo",
        ):
            needs = row["needs"]["nothing-special"]
    _need(needs == [["LT-4", "LT-5", "RP-1"]], f"withdrawn_after_prompt needs {needs}")
    stdio = [e for e in data["rules"]["RP-1"]["environments"] if e["semantics"] == "fifo"]
    _need(
        len(stdio) == 2 and all("withdrawn_after_prompt" in e["breaks"] for e in stdio),
        "RP-1 broken leaves a list in v1 and v2",
    )
    return Change(
        "Make the replay rule a MUST NOT: a MUST rests on it",
        REPLAY_LEVEL,
        f'Write "{_adopt("replay-must-not")}" (or: "{_adopt("replay-ignored")}")',
        "LT-5's withdrawal on acceptance is a MUST, but what it is for (the client holds no "
        "list from before an accepted prompt) needs LT-4, LT-5 and RP-1 together when the "
        "client does nothing special: an agent that uses the SHOULD NOT's latitude replays "
        "the list it held into the reopened session, which starts empty (RP-2), and nothing "
        "withdraws it there.",
        "`acp-suggestions check --break RP-1` (`withdrawn_after_prompt` fails, in v1 and, "
        "with `--version 2`, in v2); the review's duty placement (report: Duty placement, "
        "`withdrawn_after_prompt`, v1 over stdio).",
    )


def _fence_load(data: Review) -> Change:
    for v in (1, 2):
        live = f"environment.load-on-live-connection.v{v}.fifo"
        fenced = _setting(data, "client-fences-load", live)
        _need("withdrawn_after_prompt" in fenced["before"] and fenced["after"] == [], live)
    return Change(
        "Say what a Client does with updates in flight across a load or resume",
        REPLAY_AFTER,
        f'Add: "{_adopt("client-fences-load")}"',
        "A session reopened on the connection it was live on lets a list the agent sent just "
        "before it read the load arrive after the client emptied its list; the agent's list "
        "is empty after the load (RP-2), so it never withdraws it. With the sentence, every "
        "property holds over stdio in v1 and v2.",
        "`acp-suggestions check --live-load` (the run) and `--live-load --client fence-load` "
        "(it holds); `acp-suggestions review` judges `client-fences-load` every time.",
    )


def _share(row: dict[str, Any]) -> str:
    low, high = row["stale_turns_fraction_lo"], row["stale_turns_fraction_hi"]
    return f"{row['stale_turns_fraction']:.1%} of turns (95%: {low:.1%} to {high:.1%})"


def _stop_on_send(data: Review) -> Change:
    screen = data.get("on_screen")
    if screen is None:
        raise Unsupported("the review has no simulator figures (on_screen)")
    rows = {(r["latency_s"], r["client"]): r for r in screen["rows"]}
    keeps, drops = rows[1.0, "rfd-minimal"], rows[1.0, "drop-on-send"]
    fast_keeps, fast_drops = rows[0.05, "rfd-minimal"], rows[0.05, "drop-on-send"]
    for kept, dropped in ((keeps, drops), (fast_keeps, fast_drops)):
        _need(
            kept["stale_turns_fraction_lo"] > 10 * dropped["stale_turns_fraction_hi"],
            "dropping on send shows a stale list on far fewer turns",
        )
    judged = _judged(data, "client-stops-on-send")
    opened = sorted({p for s in judged for p in s["opened"]})
    _need(not opened, f"dropping the list on send opens {opened}")
    stdio = [s for s in judged if s["key"].endswith(".fifo") and s["key"].startswith("baseline.")]
    _need(bool(stdio) and all(s["before"] == [] for s in stdio), "stdio holds without it")
    closes = [f"{_words(s['closed'])} in {_place(s['key'])}" for s in judged if s["closed"]]
    model = f"it closes {'; '.join(closes)}" if closes else "it closes nothing"
    return Change(
        "Ask the Client to drop its list when it sends a prompt",
        LIFETIME_MAY_STOP,
        f'Add: "{_adopt("client-stops-on-send")}"',
        "With compliant peers over stdio nothing in the model fails without it; of the "
        f"review's other settings, {model}, and it opens nothing. The screen is where it "
        "fails: a client that keeps its "
        "list when it sends (what the MAY allows) shows the old suggestion in the emptied "
        "composer until the agent's withdrawal comes back. In the simulator, over stdio with "
        f"compliant agents, such a client shows it on {_share(keeps)}, "
        f"{keeps['stale_exposure_mean_s']:.1f} s per session on average at 1 s one-way "
        f"latency ({_share(fast_keeps)} at 50 ms, as a flash); one that drops it on send, on "
        f"{_share(drops)} (the crossings no client can prevent).",
        f"`{screen['command']}` ({screen['sessions']:,} sessions per point; rows "
        "`rfd-minimal` and `drop-on-send`); the review runs it, and judges "
        "`client-stops-on-send`, every time (report: Proposals).",
    )


CHANGES = (_ordered, _replay_level, _fence_load, _stop_on_send)


def changes(data: Review) -> list[Change]:
    """The changes to make first, each checked against the review's data."""
    if "duties" not in data:
        raise Unsupported("the review was run without the duty placement (--no-duties)")
    return [make(data) for make in CHANGES]


def _holds_and_fails(data: Review) -> tuple[list[str], list[str]]:
    bases = data["baselines"]
    v1, v2 = bases[f"baseline.{CURRENT}.v1.fifo"], bases[f"baseline.{CURRENT}.v2.fifo"]
    _need(v1["violated_in_force"] == [] and v2["violated_in_force"] == [], "stdio holds")
    legacy = bases[f"baseline.{LEGACY}.v2.fifo"]
    legacy_broken = legacy["violated_in_force"] + legacy["violated_other"]
    _need("withdrawn_after_foreground_work" in legacy_broken, "the adapter clears on work")
    loose = bases[f"baseline.{CURRENT}.v2.unordered"]["violated_in_force"]
    holds = [
        "Over stdio (each direction in order, the two directions crossing), agents and "
        "clients that keep every rule of this revision keep every property in force, in v1 "
        f"({v1['states']:,} states) and v2 ({v2['states']:,} states): there the agent's "
        "rules (LT-4, LT-5, RP-1) make the crossing the Lifetime section describes harmless.",
        "A cancel, a v2 turn blocked on `requires_action`, image opt-ins that differ between "
        "the sides and a second session on the connection add no failure (report: "
        "Environment changes).",
    ]
    fenced = [
        row["needs"]
        for row in data["duties"]["rows"]
        if (row["property"], row["version"], row["semantics"])
        == ("withdrawn_after_prompt", 2, "python-sdk")
    ]
    _need(
        bool(fenced)
        and bool(fenced[0]["stop-on-send,fence-response"])
        and not fenced[0]["stop-on-send,fence-prompt"],
        "only the response fence keeps LT-5's property in v2 over the SDK",
    )
    ts_fenced = [
        row["needs"]
        for row in data["duties"]["rows"]
        if row["property"] == "withdrawn_after_prompt" and row["semantics"] == "typescript-sdk"
    ]
    _need(
        len(ts_fenced) == 2 and not any(any(n.values()) for n in ts_fenced),
        "no client strategy keeps LT-5's property over the TypeScript SDK",
    )
    typed = [
        data["environments"][f"environment.typed-sdk-client.v{v}.fifo"]["beyond_baseline"]
        for v in (1, 2)
    ]
    _need(all("client_holds_latest" in t for t in typed), "a typed SDK's client holds the latest")
    fails = [
        "Suggestion content's skipping, on a typed SDK: the Python and TypeScript SDKs drop a "
        "whole update with a block they cannot parse before the client's code sees it, so the "
        "client keeps its previous list, older than the agent's latest, even over stdio "
        "(finding 10). The sentence that would fix it belongs to the SDKs, not this RFD: "
        '"Each suggestion is parsed on its own, so that a block a Client cannot parse drops '
        'that suggestion and not the update."',
        "Over the Python SDK's dispatch: LT-5's and, in v2, LT-6's properties (change 1). A "
        "client's own fence on its prompt keeps LT-5's there in v2 only if it ends at the "
        "`session/prompt` response: the `user_message` is a notification the SDK may handle "
        "before an older list (findings 2 and 3).",
        "Over the TypeScript SDK's dispatch: the same, and no fence helps in v1 or v2, as a "
        "response reaches its caller while the updates before it may still be handled "
        "(finding 3; `acp-suggestions check --semantics typescript-sdk --client "
        "drop-on-send,fence-prompt`).",
        f"Over a transport that reorders freely: {_words(loose)} in v2, whatever the client "
        "does; ordered updates do not help there, a list that names the message it follows "
        "closes LT-5's (next section).",
        "The legacy adapter does not clear on idle compaction, so in v2 it breaks LT-6's "
        "SHOULD (`acp-suggestions check --version 2 --revision legacy-meta`).",
    ]
    return holds, fails


OPEN_QUESTIONS = (
    "When must the withdrawal go out? The model's agent withdraws in the step in which it "
    "accepts the prompt; the RFD sets no deadline. A later withdrawal leaves the old list on "
    "screen longer, and, over the SDK, widens the race of change 1; the simulator measures "
    "how long a stale list shows (`acp-suggestions simulate`).",
    "In v2 the RFD fixes no order among the `session/prompt` response, the `user_message` "
    "and LT-5's withdrawal, and the model lets the agent send them in any. Over the SDK no "
    "order keeps the withdrawal behind the list it withdraws (a later update may pass a "
    "prompt result that waits), so change 1 is needed whatever the order. Should the RFD "
    "say which of the two a client may take as the prompt's acceptance?",
    f'The FAQ ("{FAQ_ONE_ACTION[1]}") is stronger than Client presentation ("'
    f'{PRESENTATION_SHOULD[1]}"): a MUST-like condition in rationale against a SHOULD in the '
    "rule. Which one is meant?",
    f'{MIGRATION[0]}: "{MIGRATION[1]}" For that release a peer may see each list twice, as '
    "the legacy `session_info_update` and as `prompt_suggestions_update`: two notifications, "
    "which a client may handle in either order, and a clear on one channel says nothing of "
    "the other. Should a client that advertises `promptSuggestions` ignore the legacy key, or "
    "an agent that sees the capability stop sending it?",
)


_SETTINGS = (
    ("the Python SDK", "baseline.{rev}.v{v}.python-sdk"),
    ("free reordering", "baseline.{rev}.v{v}.unordered"),
    ("the live load", "environment.load-on-live-connection.v{v}.fifo"),
)


def _field(data: Review) -> str:
    """What the FAQ's later field would close and leave, per version, from the review's run
    of the `list-follows-message` amendment over the SDK, free reordering and the live load."""
    said = []
    for v in (1, 2):
        closed: dict[str, None] = {}
        left: dict[str, list[str]] = {}
        for where, key in _SETTINGS:
            s = _setting(data, "list-follows-message", key.format(rev=CURRENT, v=v))
            _need(not s["opened"], f"the field opens {s['opened']} in {key}")
            closed |= dict.fromkeys(s["closed"])
            for prop in s["after"]:
                if prop != "fresh_list_eventually_offered":  # a goal, not a rule
                    left.setdefault(prop, []).append(where)
        _need(bool(closed), f"the field closes nothing in v{v}")
        rest = "; ".join(f"`{p}` ({', '.join(w)})" for p, w in left.items())
        said.append(
            f"in v{v} it closes {_words(list(closed))}"
            + (f" and leaves {rest}" if rest else ", all there was")
        )
    return (
        f"{FAQ_FIELD[0]}: \u201c{FAQ_FIELD[1]}\u201d Judged as an update naming the user "
        "message its list follows (v2: its messageId; v1: the count of prompts accepted), with "
        "a Client that offers only a list that follows its latest prompt and ignores an update "
        "that follows an older message than one it has, over the SDK, free reordering and the "
        f"live load: {'; '.join(said)}. In v2 work without a prompt (LT-6) changes the "
        "conversation without a user message, so the lists before and after it follow the "
        "same one; a field naming the last message of any kind would order those too. "
        "`acp-suggestions review --propose list-follows-message` (judged every time)."
    )


def markdown(data: Review) -> list[str]:
    """The letter as Markdown lines, under its own heading."""
    out = [
        "## To the RFD's author",
        "",
        "The sentences to change first, in the order that matters, each with the run that "
        "proves it; every claim is read from this review's data. Then what holds, what fails, "
        "and the readings the model had to make.",
        "",
        "### Change first",
        "",
    ]
    for n, c in enumerate(changes(data), 1):
        section, sentence = c.quote
        out += [
            f"{n}. **{c.headline}.** {section}: \u201c{sentence}\u201d",
            f"   - Change: {c.proposal}",
            f"   - Why: {c.fixes}",
            f"   - Proof: {c.proof}",
        ]
    holds, fails = _holds_and_fails(data)
    out += ["", "### Holds", "", *(f"- {line}" for line in holds)]
    out += ["", "### Fails", "", *(f"- {line}" for line in fails)]
    out += ["", "### The FAQ's later field", "", _field(data)]
    out += ["", "### Open questions", "", *(f"- {line}" for line in OPEN_QUESTIONS)]
    return out


def headlines(data: Review) -> list[str]:
    """The letter's first lines, for the end of the terminal run."""
    return [f"{n}. {c.headline} ({c.quote[0]})" for n, c in enumerate(changes(data), 1)]
