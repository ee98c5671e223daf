"""Candidate rules the review and the simulator suggest, each a named change to the current
revision's peers or transport that the review can switch on (`review --propose NAME`) to show
which of its findings the rule would close."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from acp_suggestions.model.config import Config
from acp_suggestions.model.network import Transport


@dataclass(frozen=True, slots=True)
class Amendment:
    """A candidate rule: its name, its text, and what it changes in a configuration."""

    name: str
    text: str
    apply: Callable[[Config], Config]
    # The review's environments it is judged in (none: every transport, and a reopen on the
    # live connection), for an amendment about what only those environments show.
    judged_in: tuple[str, ...] = ()


def _ordered_updates(cfg: Config) -> Config:
    return cfg.with_(transport=Transport.FIFO) if cfg.transport.delivery.sdk else cfg


def _agent(**flags: bool) -> Callable[[Config], Config]:
    def apply(cfg: Config) -> Config:
        return cfg.with_(agent=replace(cfg.agent, **flags))  # type: ignore[arg-type]  # the agent's flags by name

    return apply


def _client(**flags: bool | str) -> Callable[[Config], Config]:
    def apply(cfg: Config) -> Config:
        return cfg.with_(client=replace(cfg.client, **flags))  # type: ignore[arg-type]  # the client's flags by name

    return apply


AMENDMENTS: tuple[Amendment, ...] = (
    Amendment(
        "ordered-updates",
        "A client handles the updates of one session in the order the agent sent them (over "
        "an SDK's dispatch: notifications of a session are handled one after another, and a "
        "result after the notifications read before it).",
        _ordered_updates,
    ),
    Amendment(
        "client-stops-on-send",
        "A client SHOULD stop offering its list when it sends a prompt.",
        _client(stop_on_send=True),
    ),
    Amendment(
        "client-fences-load",
        "A client ignores prompt_suggestions_update for a session until its session/load or "
        "session/resume completes, and starts with an empty list.",
        _client(fence_load=True),
    ),
    Amendment(
        "agent-withdraws-on-load",
        "An agent that reads session/load or session/resume while its list is not empty "
        "withdraws the list before it answers.",
        _agent(withdraws_on_load=True),
    ),
    Amendment(
        "list-follows-message",
        "An update names the user message its list follows (v2: its messageId; v1: the count "
        "of prompts the agent accepted), and a Client ignores an update that follows an older "
        "message than one it has, and a list that follows an older message than its latest "
        "prompt (the FAQ's later field).",
        _client(reads_follows=True),
    ),
    Amendment(
        "client-fences-prompt",
        "A client stops offering its list when it sends a prompt and ignores updates until "
        "the session/prompt response (v1: the turn's end; v2: the prompt's acceptance).",
        _client(stop_on_send=True, fence_prompt="response"),
    ),
    Amendment(
        "client-shows-every-block",
        "A Client does not send a block of a suggestion that it has not shown the user; a "
        "suggestion with a block its presentation cannot show is one it cannot use, and it "
        "skips it.",
        _client(skips_unshowable=True),
        judged_in=("grey-text-with-links",),
    ),
    Amendment(
        "auto-send-once",
        "A setting that sends suggestions automatically sends none after a prompt it sent "
        "itself, until the user acts.",
        _client(auto_send_once=True),
        judged_in=("auto-send-by-user",),
    ),
    Amendment(
        "sends-what-it-showed",
        "A Client shows every block of a suggestion, a resource_link by its target, before a "
        "user action sends it, and carries the action out on the suggestion it showed; it "
        "skips a suggestion with a block it cannot show.",
        lambda cfg: _client(skips_unshowable=True)(cfg.with_(identity="content")),
        judged_in=("links-named-otherwise", "screen-lags"),
    ),
    Amendment(
        "auto-send-bounds",
        "A setting that sends suggestions automatically sends none after a prompt it sent "
        "itself until the user acts, none from a list that arrived before the response to the "
        "client's latest prompt, and a suggestion's text as it is, with no composer feature.",
        _client(auto_send_once=True, auto_send_after_response=True, auto_send_plain=True),
        judged_in=("auto-send-by-user", "commands-sent-by-a-setting"),
    ),
    Amendment(
        "parses-each-suggestion",
        "Each suggestion is parsed on its own: a block a Client cannot parse drops that "
        "suggestion, not the update.",
        _client(rejects_whole_update=False),
        judged_in=("typed-sdk-client",),
    ),
)
AMENDMENTS_BY_NAME = {a.name: a for a in AMENDMENTS}
# The amendments the review's findings propose: judged in every review.
PROPOSED_BY_FINDINGS = (
    "ordered-updates",
    "sends-what-it-showed",
    "auto-send-bounds",
    "client-fences-load",
    "agent-withdraws-on-load",
    "list-follows-message",
    "client-stops-on-send",
    "client-shows-every-block",
    "auto-send-once",
)


@dataclass(frozen=True, slots=True)
class Adoption:
    """A sentence the review's letter proposes for the RFD, by what it adopts (an amendment
    the review judges, or a rule's new level): the audit takes it as stating that."""

    name: str
    sentence: str
    # The rules whose sentence the adoption takes the place of: once adopted, the audit does
    # not ask for their own sentence.
    supersedes: tuple[str, ...] = ()


ADOPTIONS: tuple[Adoption, ...] = (
    Adoption(
        "ordered-updates",
        "A Client handles the updates of one session, and the responses to its requests, in "
        "the order the Agent sent them.",
    ),
    Adoption("replay-must-not", "Agents MUST NOT include suggestions in session replay."),
    Adoption("replay-ignored", "A Client ignores suggestions in replay."),
    Adoption(
        "empty-on-completion",
        "A loaded or resumed session's list is empty when its session/load or session/resume "
        "completes: a Client drops any list that arrived before.",
    ),
    Adoption(
        "client-fences-load",
        "A Client ignores prompt_suggestions_update for a session until its session/load or "
        "session/resume completes, and starts with an empty list.",
    ),
    Adoption(
        "agent-withdraws-on-load",
        "An Agent that reads session/load or session/resume while its list is not empty MUST "
        "withdraw it before it responds.",
    ),
    Adoption(
        "client-stops-on-send", "A Client SHOULD stop offering the list when it sends a prompt."
    ),
    Adoption(
        "client-shows-every-block",
        "Whatever the presentation, a Client MUST show every block of a suggestion before a "
        "user action sends it, and skips a suggestion with a block it cannot show.",
    ),
    Adoption(
        "sends-what-it-showed",
        "A Client MUST show every block of a suggestion, a resource_link by its uri, before a "
        "user action sends it, MUST send the suggestion shown, not a later update's, and skips "
        "one with a block it cannot show.",
        supersedes=("CP-2",),
    ),
    Adoption(
        "auto-send-bounds",
        "A setting that sends suggestions automatically MUST NOT send again before the user "
        "acts, nor a list that arrived "
        "before the response to the Client's latest session/prompt, and sends text as is, "
        "without composer features.",
    ),
    Adoption(
        "auto-send-once",
        "A setting that sends suggestions automatically MUST NOT send one after a prompt it "
        "sent itself until the user acts.",
    ),
)
ADOPTIONS_BY_NAME = {a.name: a for a in ADOPTIONS}
