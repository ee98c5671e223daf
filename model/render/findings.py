"""The findings (docs/findings.md), written from a review's `review.json`: every number, step
count and verdict a finding states is read from the review, and a finding whose premise the
review no longer supports is an error, not a sentence."""

from __future__ import annotations

import textwrap
from typing import Any

from acp_suggestions.model.amendments import ADOPTIONS_BY_NAME
from acp_suggestions.model.render.about import ABOUT as ABOUT
from acp_suggestions.model.render.about import CURRENT as CURRENT
from acp_suggestions.model.render.about import DRAFT as DRAFT
from acp_suggestions.model.render.about import LEGACY as LEGACY

BEGIN = "<!-- findings: written by `acp-suggestions findings`; do not edit by hand -->"
END = "<!-- end of findings -->"
FENCED = "stop-on-send,fence-prompt"
TYPESCRIPT = "typescript-sdk"
# The same client with a fence that ends at the v2 `session/prompt` response alone, and with
# the other v2 ends (the first of response and `user_message`; the `user_message`).
FENCED_TO_RESPONSE = "stop-on-send,fence-response"
FENCED_TO_ECHO = ("stop-on-send,fence-prompt", "stop-on-send,fence-user-message")
# The modelling choices the v2 findings rest on, named in each of them.
V2_CHOICES = (
    "Depends on three readings: in v2 the agent sends the `session/prompt` response, the "
    "`user_message` and LT-5's withdrawal in any order (the RFD fixes none; the legacy adapter "
    "sends its clear first; `--reading acceptance-order=withdrawal-first` switches it); a "
    "client's update handler may await before it applies the "
    "update; and each SDK dispatches as measured on it (`tests/test_sdk_transport.py`): the "
    "Python SDK (agent-client-protocol 0.12.1) holds a prompt result until the updates read "
    "before it are handled, lets later updates pass it meanwhile, and holds a load or resume "
    "result for nothing; the TypeScript SDK (2.4.0) holds no result back."
)
# What the fenced client needs of the agent: LT-4, and an out-of-date list kept out of a
# reopened session, withdrawn at acceptance (LT-5) or never replayed (RP-1).
OUT_OF_REPLAY = [["LT-4", "LT-5"], ["LT-4", "RP-1"]]

Review = dict[str, Any]


class Unsupported(Exception):
    """A finding that the review no longer supports."""


def _need(holds: bool, finding: int, what: str) -> None:
    if not holds:
        raise Unsupported(f"finding {finding} no longer holds: {what}")


def _base(data: Review, revision: str, version: int, transport: str) -> dict[str, Any]:
    base: dict[str, object] = data["baselines"][f"baseline.{revision}.v{version}.{transport}"]
    return base


def _row(data: Review, prop: str, version: int, transport: str) -> dict[str, Any]:
    for row in data["duties"]["rows"]:
        if (row["property"], row["version"], row["transport"]) == (prop, version, transport):
            found: dict[str, object] = row
            return found
    raise Unsupported(f"the duty placement has no row for {prop} v{version} {transport}")


def _needs(data: Review, prop: str, version: int, transport: str, strategy: str) -> list[object]:
    sets: list[object] = _row(data, prop, version, transport)["needs"][strategy]
    return sets


def _nobody_keeps(data: Review, prop: str, version: int, transport: str) -> bool:
    return not any(_row(data, prop, version, transport)["needs"].values())


def _proposal(data: Review, name: str) -> dict[str, dict[str, Any]]:
    for p in data.get("proposals", []):
        if p["name"] == name:
            return {s["key"]: s for s in p["settings"]}
    raise Unsupported(f"the review did not judge the proposal {name}")


def _intro(data: Review, bounds: str) -> str:
    duties = data["duties"]
    cells = len({(r["version"], r["transport"], s) for r in duties["rows"] for s in r["needs"]})
    b1, b2 = duties["bounds"]["1"], duties["bounds"]["2"]
    return (
        f"Findings of the default review ({data['explorations']} explorations, "
        f"{data['states_explored']:,} states; duty placement {cells} cells, "
        f"{duties['explorations']} configurations), each with a command that shows it. Every "
        f"verdict holds within {bounds} ({b1['prompts']} prompts, {b1['predictions']} "
        f"predictions, {b1['loads']} load or resume, {b1['foreground']} foreground run; the "
        f"duty table {b2['predictions']} prediction in v2); the ones that say a client can keep "
        "something were also checked at 3 prompts, 3 predictions and a cancel "
        "(`tests/test_duties.py`), and the duty placement's v2 answers quoted below at the "
        "review's two predictions."
    )


def _finding_1(data: Review) -> str:
    rules = data["rules"]
    weightless = [
        rid
        for rid, r in rules.items()
        if not any(e["breaks"] for e in r["environments"] if e["transport"] == "fifo")
    ]
    for rid in weightless:
        _need(rules[rid]["compliant_peers_already_break"], 1, f"{rid} carries no weight")
    _need(weightless == ["D-4"], 1, f"the rules without weight over stdio are {weightless}")
    return (
        f"Every rule with a mutation ({len(rules)} rules) is load-bearing over stdio, except "
        "the draft's client rule D-4, which the draft's own peers already break (next finding)."
    )


def _v2_fence_ends(data: Review, prop: str, finding: int) -> None:
    """Over the SDK in v2 only the fence that ends at the response keeps `prop`."""
    _need(
        _needs(data, prop, 2, "python-sdk", FENCED_TO_RESPONSE) == OUT_OF_REPLAY, finding, "v2 sdk"
    )
    for strategy in FENCED_TO_ECHO:
        _need(_needs(data, prop, 2, "python-sdk", strategy) == [], finding, f"{strategy} v2 sdk")


def _finding_2(data: Review) -> str:
    prop, goal = "no_offer_from_before_own_prompt", "fresh_list_eventually_offered"
    draft = _base(data, DRAFT, 1, "fifo")
    _need(prop in draft["violated_in_force"], 2, "the draft's peers keep D-4")
    for v, transport in ((1, "fifo"), (1, "python-sdk"), (2, "fifo")):
        _need(
            _needs(data, prop, v, transport, FENCED) == OUT_OF_REPLAY, 2, f"fence v{v} {transport}"
        )
    for v in (1, 2):
        _need(_nobody_keeps(data, prop, v, "unordered"), 2, f"a client keeps it v{v} unordered")
    _v2_fence_ends(data, prop, 2)
    _need(not _needs(data, goal, 1, "fifo", "fence-prompt"), 2, "the v1 fence costs nothing")
    _need(bool(_needs(data, goal, 2, "fifo", "fence-prompt")), 2, "the v2 fence has a cost")
    cost = _row(data, goal, 1, "fifo")["shortest"]["fence-prompt"]
    lt5 = _needs(data, "withdrawn_after_prompt", 1, "fifo", "nothing-special")
    _need(lt5 == [["LT-4", "LT-5", "RP-1"]], 2, f"LT-5's property needs {lt5}")
    return (
        "The draft's client rule D-4 (\"never offer a suggestion from before the most recent "
        'prompt it sent") is broken by a client that only stops offering on send: a list '
        "predicted before the agent read the prompt crosses it "
        f"({draft['shortest'][prop]} steps: `acp-suggestions check --revision {DRAFT}`). It "
        "can be kept without message ids: a client that stops offering on send and ignores "
        "updates while its own prompt is unacknowledged keeps it over stdio in v1 and v2 and "
        "over the SDK's dispatch in v1, provided the agent discards predictions the "
        "conversation overtook (LT-4) and keeps an out-of-date list out of a reopened session, by "
        "withdrawing it when it accepts the prompt (LT-5) or by leaving suggestions out of "
        "replay (RP-1) (`acp-suggestions check --revision 2026-10-15 --client "
        "drop-on-send,fence-prompt`, with `--version 2`, or `--transport python-sdk`: the draft's "
        "agent keeps replay free of them; duty placement, `no_offer_from_before_own_prompt`). "
        "In v2 "
        "over the SDK the fence must end at the `session/prompt` response: v2 acknowledges a "
        "prompt twice, with the response and a `user_message` update, and the SDK may handle "
        "that update, a notification, before a list the agent sent earlier, so a fence that "
        "ends at the first of the two, or at the `user_message`, lets the old list through "
        "whatever the agent does (`acp-suggestions check --revision 2026-10-15 --version 2 "
        "--transport python-sdk --client drop-on-send,fence-prompt`; with `fence-response` in its "
        "place it holds). Over "
        "`unordered` no client strategy keeps it. The fence has a cost in v1, where the prompt "
        "is answered only at the end of the turn: a list the agent sends before that answer is "
        "ignored and never offered (`acp-suggestions check --client fence-prompt`, the goal "
        f"`{goal}`, {cost} steps); in v2 the fence ends at acceptance and costs nothing over "
        "stdio. The current revision puts the duty on the agent (LT-5) instead, so that a "
        "client needs no fence; with a client doing nothing special, LT-5 needs LT-4 and RP-1 "
        f"beside it (duty placement, `withdrawn_after_prompt`). {V2_CHOICES}"
    )


def _finding_3(data: Review) -> str:
    v1, v2 = _base(data, CURRENT, 1, "python-sdk"), _base(data, CURRENT, 2, "python-sdk")
    lt5, lt6 = "withdrawn_after_prompt", "withdrawn_after_foreground_work"
    latest = "client_holds_latest"
    _need({lt5, "out_of_date_list_eventually_dropped"} <= set(v1["violated_in_force"]), 3, "v1 sdk")
    _need({lt5, lt6} <= set(v2["violated_in_force"]), 3, "v2 sdk")
    _need(_needs(data, lt5, 1, "python-sdk", FENCED) == OUT_OF_REPLAY, 3, "fenced v1 sdk")
    _v2_fence_ends(data, lt5, 3)
    for prop in (lt6, latest):
        _need(_nobody_keeps(data, prop, 2, "python-sdk"), 3, f"a client keeps {prop} v2 sdk")
    for prop in (lt5, latest, "no_offer_from_before_own_prompt"):
        for v in (1, 2):
            _need(_nobody_keeps(data, prop, v, "unordered"), 3, f"{prop} v{v} unordered")
    ordered = _proposal(data, "ordered-updates")
    _need(ordered[f"baseline.{CURRENT}.v1.python-sdk"]["after"] == [], 3, "ordered updates v1")
    _need(latest in ordered[f"baseline.{CURRENT}.v2.python-sdk"]["closed"], 3, "ordered updates v2")
    _need(ordered[f"baseline.{CURRENT}.v1.unordered"]["closed"] == [], 3, "unordered closed")
    for v in (1, 2):
        _need(_nobody_keeps(data, lt5, v, TYPESCRIPT), 3, f"a client keeps {lt5} v{v} ts")
        closed = ordered[f"baseline.{CURRENT}.v{v}.{TYPESCRIPT}"]["after"]
        _need(closed == [], 3, f"ordered updates leave {closed} v{v} ts")
    return (
        "Over the ACP Python SDK's dispatch (`--transport python-sdk`: each notification "
        "handled as a task of its own), compliant current peers break LT-5's property in v1 "
        "and v2: the withdrawal and the list it withdraws are both updates, handled in either "
        "order, and the client keeps the out-of-date list for good (`acp-suggestions check "
        "--transport python-sdk`, "
        f"{v1['shortest'][lt5]} steps; the leads-to property fails too), and in v2 LT-6's the "
        "same way. A client that stops offering on send and fences on its prompt keeps LT-5's "
        "property there if the agent keeps LT-4 and either LT-5 or RP-1 (a list replayed into "
        "a reopened session is the old prediction), in v2 only with a fence that ends at the "
        "`session/prompt` response (`--client drop-on-send,fence-response`); a fence that "
        "ends at the first of response and `user_message`, or at the `user_message`, keeps it "
        "under no set of agent rules. No client strategy keeps LT-6's property or "
        "`client_holds_latest` over the SDK in v2. Candidate rule: the agent's updates of one "
        "session are handled in the order sent (or carry an ordinal; `review --propose "
        "ordered-updates`, judged in every review: it closes every SDK finding); over "
        "`unordered` every property above fails whatever the client does, and ordered updates "
        "close nothing there. Per SDK: over the TypeScript SDK (2.4.0, `--transport "
        "typescript-sdk`: a result reaches its caller as it is read, while updates read before "
        "it may still be running) no client strategy keeps LT-5's property in v1 or v2, the "
        "fences included, because the response that ends the fence can be handled before the "
        "old list (duty placement; `acp-suggestions check --transport typescript-sdk --client "
        "drop-on-send,fence-prompt`); ordered updates close every finding there too. Release "
        "0.17.0 has the verdicts of `unordered`, and the Rust SDK (its dispatch loop read at "
        "2.0.0, not run) handles everything in order and has those of stdio "
        f"(`tests/test_sdk_transport.py`). {V2_CHOICES}"
    )


def _finding_4(data: Review) -> str:
    fenced = _proposal(data, "client-fences-load")
    for v in (1, 2):
        live = data["environments"][f"environment.load-on-live-connection.v{v}.fifo"]
        _need("withdrawn_after_prompt" in live["beyond_baseline"], 4, f"live load v{v}")
        after = fenced[f"environment.load-on-live-connection.v{v}.fifo"]["after"]
        _need(after == [], 4, f"the load fence leaves {after} in v{v}")
    return (
        "A session reopened on the live connection (`check --live-load`) lets a list sent just "
        "before the agent read `session/load` arrive after the client emptied its list; the "
        "agent's list is empty after the load, so it never withdraws it. A client that ignores "
        "updates until the load or resume completes keeps every invariant and leads-to "
        "property over stdio in v1 and v2 (`acp-suggestions check --live-load --client "
        "fence-load`, with `--version 2`). The RFD is silent on updates in flight across a "
        "load or resume. Candidate rules: a client ignores updates for a session until its "
        "load or resume completes (`review --propose client-fences-load`, judged in every "
        "review), or, the same for the list, the letter's first edit (the review's plan)."
    )


def _finding_5(data: Review) -> str:
    legacy = _base(data, LEGACY, 2, "fifo")
    broken = legacy["violated_in_force"] + legacy["violated_other"]
    _need("withdrawn_after_foreground_work" in broken, 5, "the adapter clears")
    return (
        "The legacy adapter (`claude-agent-acp` policy) does not clear on idle compaction "
        "(L-8), so in v2 it breaks LT-6's SHOULD (`acp-suggestions check --version 2 "
        "--revision legacy-meta`)."
    )


def _finding_6(data: Review) -> str:
    cap2 = [e for e in data["rules"]["CAP-2"]["environments"] if e["version"] == 2]
    _need(all("never_in_transcript" in e["breaks"] for e in cap2), 6, "CAP-2 in v2")
    return (
        "CAP-4 is the FAQ's rationale for requiring the capability in v2, not a rule of its "
        "own; the review shows it through CAP-2. An agent that sends to a v2 client without "
        "the capability puts a prediction in the transcript only if that client displays "
        "unknown updates generically (`acp-suggestions check --version 2 --break CAP-2`, "
        "`never_in_transcript`); a client that preserves or ignores them, as ACP v2 lets it, "
        "shows nothing (add `--client ignore-unknown`), and the prediction is a model call "
        "wasted."
    )


def _finding_7(data: Review) -> str:
    envs = data["environments"]
    for name in (
        "cancel-and-requires-action",
        "only-the-client-takes-images",
        "only-the-agent-takes-images",
    ):
        for key in (k for k in envs if k.split(".")[1] == name):
            _need(envs[key]["beyond_baseline"] == [], 7, f"{key} breaks something")
    pairs = data.get("two_sessions", [])
    _need(bool(pairs) and all(t["each_session_as_alone"] for t in pairs), 7, "two sessions")
    return (
        "A cancel (v1 and v2) and a v2 turn blocked on `requires_action` in every transport, "
        "image opt-ins that differ between the sides over stdio, and a second session on the "
        "connection in every transport add no failure to the current revision's compliant "
        "peers (report, 'Environment changes'; `acp-suggestions check --cancels 1 --blocked 1 "
        "--version 2`); and no mutation's verdict changes with a cancel and `requires_action` "
        "over stdio and the SDK (`tests/test_bounds.py`). The two-session check "
        "compares each session beside another with a lone session at small bounds; what an "
        "implementation shares between sessions is not modelled."
    )


def _finding_8(data: Review) -> str:
    needs = _needs(data, "withdrawn_after_prompt", 1, "fifo", "nothing-special")
    _need(needs == [["LT-4", "LT-5", "RP-1"]], 8, f"withdrawn_after_prompt needs {needs}")
    rp1 = [e for e in data["rules"]["RP-1"]["environments"] if e["transport"] == "fifo"]
    _need(bool(rp1) and all("withdrawn_after_prompt" in e["breaks"] for e in rp1), 8, "RP-1")
    return (
        "A MUST rests on a SHOULD NOT: what LT-5's withdrawal on acceptance is for (the client "
        "holds no list from before an accepted prompt) needs LT-4, LT-5 and RP-1 together when "
        "the client does nothing special (duty placement, `withdrawn_after_prompt`, v1 over "
        "stdio). An agent that uses RP-1's latitude replays the list it held into the reopened "
        "session, which starts empty (RP-2), and nothing withdraws it (`acp-suggestions check "
        "--break RP-1`, in v1 and v2). The letter's first edit closes it with finding 4 (a "
        "reopened session's list is empty once the reopen completes); RP-1 as a MUST NOT "
        "closes this one alone, and an agent's withdrawal on load needs it (the review's plan)."
    )


def _finding_9(data: Review) -> str:
    cp2 = data["rules"].get("CP-2")
    _need(cp2 is not None and cp2["breaks"] == ["sent_as_shown"], 9, "CP-2 breaks sent_as_shown")
    _need(cp2["load_bearing"], 9, "CP-2 is load-bearing")
    return (
        "The FAQ is stronger than the rule it explains: Client presentation asks a UI that "
        "sends on selection to show the full text and every other block first with a SHOULD "
        "(CP-2), while the FAQ allows one action to accept and send only as long as the user "
        "could see what the suggestion contains first, a condition without latitude. A row of "
        "chips that shows only a suggestion's text lets the user send a linked file never on "
        f"screen in {cp2['shortest']} steps, in v1 and v2 over every transport (`acp-suggestions "
        "check --break CP-2`, `sent_as_shown`; the model's chip shows text only or every "
        "block); the RFD should say which is meant."
    )


def _finding_10(data: Review) -> str:
    lists = {"client_holds_last_update", "client_holds_latest"}
    for v in (1, 2):
        typed = data["environments"][f"environment.typed-sdk-client.v{v}.fifo"]
        _need(lists <= set(typed["beyond_baseline"]), 10, f"typed SDK client v{v}")
    return (
        "A client on a typed SDK cannot do this: the Python SDK rejects the whole "
        "`session/update` when one block fails its schema, before any handler runs, and the "
        'TypeScript SDK drops the notification with "Invalid params"; today neither knows '
        "`prompt_suggestions_update` at all. Such a client keeps its previous list, so with a "
        "model call that may return a list with a block it cannot parse, it is left holding an "
        "older list than the agent's latest, over stdio in v1 and v2 (report, environment "
        "`typed-sdk-client`; the client strategy `rejects-whole-update`). In the model the "
        "agent withdraws with an empty list when it accepts a prompt; an agent that replaces "
        "the list instead, with one the client's SDK rejects, would leave the out-of-date list "
        "itself, which the review does not explore. Candidate sentence for the SDKs rather "
        "than the Client: each suggestion is parsed on its own, so that a block a Client "
        "cannot parse drops that suggestion and not the update."
    )


def _env(data: Review, name: str, v: int) -> set[str]:
    """What the compliant peers break beyond the baseline in an environment, over stdio."""
    return set(data["environments"][f"environment.{name}.v{v}.fifo"]["beyond_baseline"])


def _finding_11(data: Review) -> str:
    for v in (1, 2):
        _need("offers_only_what_it_shows" in _env(data, "grey-text-with-links", v), 11, "SC-7")
        _need("user_saw_what_they_sent" in _env(data, "links-named-otherwise", v), 11, "names")
        _need("user_gets_what_they_saw" in _env(data, "screen-lags", v), 11, "a lagging screen")
        _need(not _env(data, "misnamed-links", v), 11, "a link shown by its target")
        _need(not _env(data, "chips-that-change", v), 11, "a screen that keeps up")
    fixed = _proposal(data, "sends-what-it-showed").values()
    _need(all(s["closed"] for s in fixed), 11, "showing and sending what was shown closes it")
    cost = {p for s in fixed for p in s["opened"]}
    _need(cost <= {"fresh_list_eventually_offered"}, 11, "it opens no more than a goal")
    return (
        "Accepting and then sending carries no condition on what the user saw, and an agent "
        "keeping every rule can part the two three ways (the review's environments, v1 and v2 "
        "over stdio): a plain-text composer sends a linked file unseen on Tab and Enter, "
        "which breaks SC-7 as the model reads it (\u201ccan offer\u201d: can put on screen; "
        "`acp-suggestions check --reading presentation=grey-text --predict "
        "text+resource_link`); a composer that shows a link by its name sends a target the "
        "agent named otherwise (`--reading link-label=name --predict text+misnamed_link`, "
        "the goal `user_saw_what_they_sent`); and where the screen is drawn in a step of its "
        "own, a chip or Tab aimed at what was drawn takes the suggestion a later update put in "
        "its place (`--reading rendering=deferred --reading presentation=chips "
        "--distinct-predictions`, the goal `user_gets_what_they_saw`). A link shown "
        "by its target, or a screen that keeps up, keeps both goals. Content the agent read "
        "can steer a suggestion (FAQ), and so the file a prompt carries. Modelling choices: "
        "suggestions compared by the kinds of their blocks; the client draws what it holds "
        "after its own steps, so only a received update leaves the screen behind. Candidate "
        "sentence, after Client presentation's list: "
        f"\u201c{ADOPTIONS_BY_NAME['sends-what-it-showed'].sentence}\u201d "
        "(`--reading identity=content --client shows-every-block` keeps both goals; its "
        "cost: a suggestion skipped is never offered, the goal "
        "`fresh_list_eventually_offered`)."
    )


def _finding_12(data: Review) -> str:
    _need(_env(data, "auto-send-by-user", 1) == {"automatic_sends_bounded"}, 12, "auto-send v1")
    current = {"automatic_sends_bounded", "automatic_send_current"}
    _need(_env(data, "auto-send-by-user", 2) == current, 12, "auto-send v2")
    for v in (1, 2):
        _need(
            "features_only_by_user_send" in _env(data, "commands-sent-by-a-setting", v),
            12,
            "a setting's mention",
        )
    fixed = _proposal(data, "auto-send-bounds").values()
    _need(all(not s["after"] for s in fixed), 12, "auto-send-bounds closes it")
    return (
        "Nothing bounds a setting that sends suggestions automatically, though it stands for "
        "the user's choice of a kind of prompt, not of any content at any moment. The Agent MAY "
        "send an update at any time (Timing); with the user's setting on, the client sends the "
        "suggestion, the agent answers and suggests again, and prompts go on with no user "
        "action as long as the bounds allow (`acp-suggestions check --reading "
        "auto-send=user`, the goal `automatic_sends_bounded`; v1 and v2 over stdio; with 3 "
        "and 4 prompts and predictions the run has 3 and 4 such prompts, "
        "`tests/test_user.py`). In v2 it also sends a list the agent predicted before the "
        "prompt the user had just sent: the list crosses the prompt, and the client sends it "
        "at once (`--version 2`, the goal `automatic_send_current`); \u201cthe "
        "Client does not need to detect this case\u201d holds when a person chooses. And "
        "text a composer feature acts on goes as if typed: a mention the setting sends "
        "attaches its file with no user action (`--predict command`, the goal "
        "`features_only_by_user_send`). A setting on by default sends nothing (CP-3; "
        "`--break CP-3` shows the breach). Modelling choice: the setting sends each list it "
        "receives once. Candidate sentence, after Client presentation's list: "
        f"\u201c{ADOPTIONS_BY_NAME['auto-send-bounds'].sentence}\u201d (`--client "
        "auto-send-once,auto-send-after-response,auto-send-plain` keeps the three goals)."
    )


def _finding_13(data: Review) -> str:
    reading = next(r for r in data["readings"] if r["name"] == "composer-features")
    opened = {p for o in reading["others"] for s in o["settings"] for p in s["opened"]}
    _need(opened == {"features_only_by_user_send"}, 13, "a feature on accept")
    for v in (1, 2):
        _need(not _env(data, "commands-in-suggestions", v), 13, "a feature on send")
    return (
        "The FAQ says how a suggestion meets a composer feature but not when the feature "
        "acts. Acting when the text is sent, as typed text does, keeps the user's choice "
        "(the review's environment `commands-in-suggestions`, v1 and v2). Acting as the text "
        "enters the composer (Tab) does not: a mention attaches its file, or a slash command "
        "runs, before the user could edit or clear the prediction, which the FAQ on a "
        "Client's own sending gives as the reason for the composer "
        "(`acp-suggestions check --reading composer-features=on-accept --predict command`, "
        "the goal `features_only_by_user_send`). The RFD should say that a "
        "suggestion's text is acted on only when a user action sends it."
    )


FINDINGS = (
    _finding_1,
    _finding_2,
    _finding_3,
    _finding_4,
    _finding_5,
    _finding_6,
    _finding_7,
    _finding_8,
    _finding_9,
    _finding_10,
    _finding_11,
    _finding_12,
    _finding_13,
)


def _fill(text: str, indent: str = "") -> str:
    return textwrap.fill(
        text, 96, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def items(data: Review, bounds: str = "the bounds above") -> tuple[str, list[str]]:
    """The findings' introduction and the findings, each one paragraph."""
    if "duties" not in data:
        raise Unsupported("the review was run without the duty placement (--no-duties)")
    if sorted(data["duties"]["bounds"]) != ["1", "2"]:
        raise Unsupported("the review's duty placement does not cover v1 and v2")
    found = [finding(data) for finding in FINDINGS]
    return _intro(data, bounds), [_quoting(n, text) for n, text in enumerate(found)]


def _quoting(n: int, text: str) -> str:
    """A finding after the sentence it is about, quoted with its text and section."""
    about = ABOUT[n]
    if about is None:
        return text
    revision, section, sentence = about
    where = "The draft" if revision == DRAFT else "The RFD"
    return f"{where}, {section}: \u201c{sentence}\u201d {text}"


def render(data: Review) -> str:
    """The findings section of a page (docs/findings.md), between its markers."""
    intro, found = items(data)
    out = [BEGIN, "", _fill(intro), ""]
    out += [_fill(f"{n}. {text}", "   ") for n, text in enumerate(found, 1)]
    return "\n".join([*out, END]) + "\n"


def replace_in(readme: str, section: str) -> str:
    """`readme` with its findings section replaced by `section`."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise Unsupported(f"the page has no findings markers ({BEGIN!r} ... {END!r})")
    return readme[:start] + section + readme[end + len(END) + 1 :]
