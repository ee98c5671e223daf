"""The readings: each place where the RFD leaves open what a peer does and the model had to
choose, as a named switch with its options (`--reading NAME=OPTION`).  The first option is
the model's default; the review judges every other option against it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from acp_suggestions.model.config import Config


@dataclass(frozen=True, slots=True)
class Reading:
    """One open point: the question the RFD leaves, the section where, the options with what
    each makes the model do (the first is the default), and where the review judges it."""

    name: str
    question: str
    section: str
    options: tuple[tuple[str, str], ...]
    apply: Callable[[Config, str], Config]
    # The review's explorations (job keys, fnmatch patterns) each other option is judged in.
    judged_in: tuple[str, ...]

    @property
    def default(self) -> str:
        """The option the model takes unless told otherwise."""
        return self.options[0][0]

    @property
    def names(self) -> tuple[str, ...]:
        """The options' names, the default first."""
        return tuple(name for name, _ in self.options)


def _agent(field: str, when: str) -> Callable[[Config, str], Config]:
    """Set the agent's flag `field` when the option is `when`, clear it otherwise."""
    return lambda cfg, option: cfg.with_(agent=replace(cfg.agent, **{field: option == when}))  # type: ignore[arg-type]  # a bool flag by name


def _client(field: str, when: str) -> Callable[[Config, str], Config]:
    """Set the client's flag `field` when the option is `when`, clear it otherwise."""
    return lambda cfg, option: cfg.with_(client=replace(cfg.client, **{field: option == when}))  # type: ignore[arg-type]  # a bool flag by name


def _config(field: str) -> Callable[[Config, str], Config]:
    """Set the configuration's field `field` to the option."""
    return lambda cfg, option: cfg.with_(**{field: option})


READINGS: tuple[Reading, ...] = (
    Reading(
        "acceptance-order",
        "In v2, in what order go a prompt's response, its user_message and the old list's "
        "withdrawal?",
        "Lifetime",
        (
            ("any", "the agent sends the three in any order; the RFD fixes none"),
            (
                "withdrawal-first",
                "the withdrawal goes first, as the legacy adapter sends its clear",
            ),
        ),
        _agent("withdraws_first", "withdrawal-first"),
        ("baseline.2026-11-14.v2.*",),
    ),
    Reading(
        "v1-acceptance",
        "When does a v1 agent accept a prompt (the RFD defines it for v2 only)?",
        "Lifetime",
        (
            ("on-read", "when it reads session/prompt"),
            ("by-turn-end", "as the turn ends: the withdrawal goes with the response"),
        ),
        _agent("withdraws_by_turn_end", "by-turn-end"),
        ("baseline.2026-11-14.v1.*",),
    ),
    Reading(
        "conversation-changes",
        "What changes the conversation, discarding a running prediction: a prompt and v2 "
        "work, or the reply too?",
        "Lifetime",
        (
            ("prompts-and-work", "a prompt accepted, or v2 work without a prompt"),
            ("also-the-reply", "also the reply: a prediction running at the turn's end goes"),
        ),
        _agent("reply_changes_conversation", "also-the-reply"),
        ("baseline.2026-11-14.v1.*", "baseline.2026-11-14.v2.fifo"),
    ),
    Reading(
        "reopened-list",
        "Is a list an agent replays (a SHOULD NOT) the current list, or is the reopened "
        "session's list empty?",
        "Replay and resuming",
        (
            ("empty", "the list is empty, so the agent withdraws nothing at the next prompt"),
            ("replayed", "the replayed list is current: the agent withdraws it at the next prompt"),
        ),
        _agent("replayed_list_current", "replayed"),
        ("mutation.RP-1.v*.fifo",),
    ),
    Reading(
        "reopened-empty-from",
        "Is a reopened session's list empty from the load or resume request, or from its "
        "completion?",
        "Replay and resuming",
        (
            ("request", "emptied on sending the request; an update read during the load stays"),
            ("completion", "emptied again on completion, dropping what came during the load"),
        ),
        _client("empties_on_load_completion", "completion"),
        ("environment.load-on-live-connection.*", "mutation.RP-1.v*.fifo"),
    ),
    Reading(
        "cannot-use",
        "Is a suggestion with a block the presentation cannot show (a link in plain text) "
        "one the client \u201ccannot use\u201d?",
        "Suggestion content",
        (
            ("cannot-parse", "only a block it cannot parse: it offers what it cannot show"),
            ("cannot-show", "also a block it cannot show: such a suggestion is skipped"),
        ),
        _client("skips_unshowable", "cannot-show"),
        ("environment.grey-text-with-links.*",),
    ),
    Reading(
        "presentation",
        "How does the client present a suggestion, and what of it is on screen before it is sent?",
        "Client presentation",
        (
            ("composer", "grey text; Tab fills a composer that shows every block"),
            ("grey-text", "grey text; Tab fills a plain-text composer: text blocks only"),
            ("chips", "a row of chips, each showing every block; selecting one sends it"),
        ),
        _config("presentation"),
        ("environment.links-in-suggestions.*",),
    ),
    Reading(
        "auto-send",
        "Has the client a setting that sends suggestions automatically, and who turned it on?",
        "Client presentation",
        (
            ("off", "no such setting"),
            ("user", "the user turned it on: its prompts count as the user's (CP-3)"),
            ("default", "on by default: it must not send (CP-3)"),
        ),
        _config("auto_send"),
        ("baseline.2026-11-14.v*.fifo",),
    ),
    Reading(
        "rendering",
        "Is what the user sees the client's list as it is, or can the screen lag it, so that "
        "a user action is aimed at what was on screen?",
        "Client presentation",
        (
            ("immediate", "the screen shows the client's list at once"),
            ("deferred", "rendering is a step of its own; a received update can wait for it"),
        ),
        _config("rendering"),
        ("environment.chips-that-change.*",),
    ),
    Reading(
        "identity",
        "Suggestions have no IDs: on which suggestion does the client carry out a user's action?",
        "The update",
        (
            ("position", "the one at the chosen place of the list it holds when it acts"),
            ("content", "the one it showed, if its list still has it; else nothing"),
        ),
        _config("identity"),
        ("environment.screen-lags.*",),
    ),
    Reading(
        "composer-features",
        "When does a composer feature act on a suggestion's text?",
        "How does this interact with slash commands and other composer features?",
        (
            ("on-send", "when the text is sent, as typed text is"),
            ("on-accept", "as soon as the text enters the composer"),
        ),
        _config("features"),
        ("environment.commands-in-suggestions.*",),
    ),
    Reading(
        "link-label",
        "What does a resource_link on screen show of itself: its target (uri), or its name, "
        "which the agent writes?",
        "Suggestion content",
        (
            ("target", "its target, the file the prompt will link"),
            ("name", "its name alone, which need not be its target"),
        ),
        _config("link_label"),
        ("environment.misnamed-links.*",),
    ),
)
READINGS_BY_NAME = {r.name: r for r in READINGS}


def parse(specs: Sequence[str]) -> dict[str, str]:
    """`NAME=OPTION` strings as a mapping, each checked; a ValueError names what is wrong."""
    chosen: dict[str, str] = {}
    for spec in specs:
        name, sep, option = spec.partition("=")
        reading = READINGS_BY_NAME.get(name.strip())
        if not sep or reading is None:
            known = ", ".join(r.name for r in READINGS)
            raise ValueError(f"{spec!r}: give NAME=OPTION with NAME one of {known}")
        if option.strip() not in reading.names:
            raise ValueError(f"{spec!r}: {name} takes {', '.join(reading.names)}")
        if chosen.get(reading.name, option.strip()) != option.strip():
            raise ValueError(f"{spec!r}: {name} is given twice with different options")
        chosen[reading.name] = option.strip()
    return chosen


def apply(cfg: Config, chosen: dict[str, str]) -> Config:
    """`cfg` under the chosen options (readings not named keep their default)."""
    for name, option in sorted(chosen.items()):
        cfg = READINGS_BY_NAME[name].apply(cfg, option)
    return cfg
