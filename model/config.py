"""Check configuration, kept apart from the model logic: protocol version, revision, network
transport, capabilities, actor policies (with the rule each mutation breaks) and bounds."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from acp_suggestions.model.messages import TEXT, AgentPromptCaps, ClientSuggestionCaps
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.state import SuggestionList


@dataclass(frozen=True, slots=True)
class AgentPolicy:
    """How the agent behaves: a named policy, with `breaks` naming rules it violates on purpose."""

    name: str = "rfd"
    breaks: frozenset[RuleId] = frozenset()
    # Rules the agent is not bound by: at each step it may keep or break each of them (the
    # duty placement's agents; `breaks` are broken at every step).
    optional: frozenset[RuleId] = frozenset()
    legacy_gate: bool = False  # reads the _meta allowlist instead of the capability (L-2)
    blank_as_clear: bool = False  # publishes whitespace-only text as a clear (L-4)
    no_repeat: bool = False  # does not resend the list it holds; no clear before any list (L-5)
    withdraws_on_accept: bool = True  # LT-5; the draft puts staleness on the client instead
    withdraws_on_foreground: bool = True  # LT-6; the legacy adapter does not (L-8)
    # v2: LT-5's withdrawal goes before the `session/prompt` response and the `user_message`
    # (the legacy adapter's clear is its first message after it reads a prompt); otherwise
    # the agent may send the three in any order, as the RFD fixes none.
    withdraws_first: bool = False
    # Reading `reopened-list`: a list the agent replays into a reopened session (breaking
    # RP-1's SHOULD NOT) is its current list, not the empty one RP-2 starts the session with.
    replayed_list_current: bool = False
    # Reading `v1-acceptance=by-turn-end`: in v1 the agent accepts a prompt only as its turn
    # ends, so LT-5's withdrawal goes with the response, not when it reads the prompt.
    withdraws_by_turn_end: bool = False
    # Reading `conversation-changes=also-the-reply`: the agent's reply changes the
    # conversation too, so LT-4 discards a prediction still running when the turn ends.
    reply_changes_conversation: bool = False
    # Amendment `agent-withdraws-on-load`: reading a load or resume while its list is not
    # empty, the agent withdraws the list before it answers.
    withdraws_on_load: bool = False

    def keeps(self, rule_id: RuleId) -> bool:
        """Whether the policy obeys `rule_id` (it obeys every rule it does not break)."""
        return rule_id not in self.breaks


FenceEnd = Literal["", "first", "response", "user_message"]
# Client presentation: how the client offers a suggestion, and what of it the user sees.
#   composer:  grey text in the empty composer; Tab puts the suggestion in the composer, which
#              shows every block (a link or an image as a chip) before the user sends it.
#   grey-text: the same, with a composer of plain text: only text blocks are ever on screen,
#              the other blocks go with the prompt unseen.
#   chips:     a row of chips; selecting one sends it in one action (Client presentation's
#              second bullet); a chip shows the full text and every other block (CP-2).
Presentation = Literal["composer", "grey-text", "chips"]
PRESENTATIONS: tuple[Presentation, ...] = ("composer", "grey-text", "chips")
# Who turned on a setting that sends suggestions automatically: nobody, the user (it counts as
# the user's action, CP-3), or the client's default (it does not).
AutoSend = Literal["off", "user", "default"]
AUTO_SENDS: tuple[AutoSend, ...] = ("off", "user", "default")
# The threat model's axes, where what the user sees, chooses and gets can come apart:
#   time:     what is on screen follows the client's list at once, or rendering is a step of
#             its own, so a user action is aimed at what was on screen;
#   identity: the client carries out an action on the suggestion at the chosen place of the
#             list it holds then, or on the suggestion it showed (nothing if that is gone);
#   effect:   a composer feature (slash command, mention) acts on a suggestion's text when it
#             is sent, as if typed, or as soon as the text enters the composer;
#   fidelity: a resource_link on screen shows its target (uri), or its name alone.
Rendering = Literal["immediate", "deferred"]
Identity = Literal["position", "content"]
Features = Literal["on-send", "on-accept"]
LinkLabel = Literal["target", "name"]
_CHOICES: dict[str, tuple[str, ...]] = {
    "rendering": ("immediate", "deferred"),
    "identity": ("position", "content"),
    "features": ("on-send", "on-accept"),
    "link_label": ("target", "name"),
}


@dataclass(frozen=True, slots=True)
class ClientPolicy:
    """How the client behaves: every choice the RFD leaves to the client is a flag, and the
    flags combine freely (`client_policy` reads a combination from its name)."""

    name: str = "rfd-minimal"
    breaks: frozenset[RuleId] = frozenset()
    stop_on_send: bool = False  # stops offering its list when it sends a prompt (LT-7)
    stop_on_typing: bool = False  # stops offering its list when the user types (LT-7)
    # Ignores updates while a prompt of its own is unacknowledged, until: in v1 its response
    # (the turn's end); in v2 the first of its response and its `user_message`, the response,
    # or the `user_message` ("" for no prompt fence).
    fence_prompt: FenceEnd = ""
    fence_load: bool = False  # ignores updates until a load or resume completes
    # Reading `reopened-empty-from`: its list is emptied again when a load or resume
    # completes, so a list read during it goes too (RP-2 read as "empty once loaded").
    empties_on_load_completion: bool = False
    shows_unknown: bool = True  # v2: shows an update it does not know generically
    # Its typed SDK rejects an update with a block it cannot parse whole, before any handler
    # runs, so it keeps its previous list (the Python SDK's pydantic schema; SC-4 cannot be kept).
    rejects_whole_update: bool = False
    # The FAQ's later field (amendment `list-follows-message`): each update names the user
    # message its list follows, and the client ignores one that follows an older message than
    # an update it already has, or, with suggestions, an older one than its latest prompt.
    reads_follows: bool = False
    # Reading `cannot-use=cannot-show` (amendment `client-shows-every-block`): a suggestion with
    # a block the client's presentation cannot show is one it cannot use, skipped like one it
    # cannot parse (SC-4).
    skips_unshowable: bool = False
    # Amendment `auto-send-once`: the setting sends no suggestion after a prompt it sent
    # itself, until the user acts.
    auto_send_once: bool = False
    # Amendment `auto-send-bounds`: the setting sends nothing from a list that arrived before
    # the response to the client's latest prompt.
    auto_send_after_response: bool = False
    # Amendment `auto-send-bounds`: the setting sends a suggestion's text as it is, with no
    # composer feature acting on it.
    auto_send_plain: bool = False

    def keeps(self, rule_id: RuleId) -> bool:
        """Whether the policy obeys `rule_id`."""
        return rule_id not in self.breaks


RFD_AGENT = AgentPolicy()
CLAUDE_AGENT_ACP = AgentPolicy(
    name="claude-agent-acp",
    legacy_gate=True,
    blank_as_clear=True,
    no_repeat=True,
    withdraws_on_foreground=False,
    withdraws_first=True,
)
DRAFT_AGENT = AgentPolicy(name="draft", withdraws_on_accept=False, withdraws_on_foreground=False)
AGENT_POLICIES = {p.name: p for p in (RFD_AGENT, DRAFT_AGENT, CLAUDE_AGENT_ACP)}

RFD_CLIENT = ClientPolicy()
DROP_ON_SEND_CLIENT = ClientPolicy(name="drop-on-send", stop_on_send=True, stop_on_typing=True)
JETBRAINS_AIR = ClientPolicy(name="jetbrains-air", stop_on_typing=True)
CLIENT_POLICIES = {p.name: p for p in (RFD_CLIENT, DROP_ON_SEND_CLIENT, JETBRAINS_AIR)}
# A client's strategy flags by name, each setting one field of ClientPolicy.
CLIENT_FLAGS: dict[str, tuple[str, bool | str]] = {
    "stop-on-send": ("stop_on_send", True),
    "stop-on-typing": ("stop_on_typing", True),
    "fence-prompt": ("fence_prompt", "first"),
    "fence-response": ("fence_prompt", "response"),
    "fence-user-message": ("fence_prompt", "user_message"),
    "fence-load": ("fence_load", True),
    "ignore-unknown": ("shows_unknown", False),
    "rejects-whole-update": ("rejects_whole_update", True),
    "shows-every-block": ("skips_unshowable", True),
    "auto-send-once": ("auto_send_once", True),
    "auto-send-after-response": ("auto_send_after_response", True),
    "auto-send-plain": ("auto_send_plain", True),
}


def client_policy(spec: str) -> ClientPolicy:
    """The client named by `spec`: presets and flags, comma-separated, whose choices add up
    in any order (`drop-on-send,fence-prompt` is the preset with the prompt fence)."""
    words = [w.strip() for w in spec.split(",") if w.strip()]
    if not words:
        raise ValueError("name a client preset or strategy")
    changes: dict[str, bool | str] = {}
    for word in words:
        if word in CLIENT_POLICIES:
            preset = CLIENT_POLICIES[word]
            changes |= {
                f: getattr(preset, f)
                for f, value in CLIENT_FLAGS.values()
                if getattr(preset, f) == value
            }
        elif word in CLIENT_FLAGS:
            field_name, value = CLIENT_FLAGS[word]
            if changes.get(field_name, value) != value:
                raise ValueError(f"{spec!r} names two choices of one setting; choose one")
            changes[field_name] = value
        else:
            known = ", ".join([*CLIENT_POLICIES, *CLIENT_FLAGS])
            raise ValueError(f"unknown client preset or strategy {word!r}; choose from {known}")
    if len(words) == 1 and words[0] in CLIENT_POLICIES:
        return CLIENT_POLICIES[words[0]]
    return replace(RFD_CLIENT, name=",".join(words), **changes)  # type: ignore[arg-type]  # fields by name, checked above


@dataclass(frozen=True, slots=True)
class Bounds:
    """How much of each thing may happen, so the state space is finite."""

    prompts: int = 2
    predictions: int = 2
    loads: int = 1
    cancels: int = 0
    foreground: int = 1
    blocked: int = 0


ADVERTISES = ClientSuggestionCaps(advertised=True)


@dataclass(frozen=True, slots=True)
class Config:
    """One system to check: who talks, how, under which revision, within which bounds."""

    version: int = 1
    revision: Revision = Revision.CURRENT
    transport: Transport = Transport.FIFO
    client_caps: ClientSuggestionCaps = ADVERTISES
    agent_caps: AgentPromptCaps = field(default_factory=AgentPromptCaps)
    agent: AgentPolicy = RFD_AGENT
    client: ClientPolicy = RFD_CLIENT
    bounds: Bounds = field(default_factory=Bounds)
    # What the agent's model call may return: each entry is one possible predicted list.
    predictions: tuple[SuggestionList, ...] = (((TEXT,),),)
    presentation: Presentation = "composer"
    auto_send: AutoSend = "off"  # a setting that sends suggestions automatically, and who set it
    # How the user reopens a session: on a new connection (what clients do; what was in flight
    # on the old one is lost) or on the live connection, where a list can cross the load.
    load_on_live_connection: bool = False
    rendering: Rendering = "immediate"
    identity: Identity = "position"
    features: Features = "on-send"
    link_label: LinkLabel = "target"

    def __post_init__(self) -> None:
        if self.version not in (1, 2):
            raise ValueError(f"version must be 1 or 2, got {self.version}")
        if self.presentation not in PRESENTATIONS:
            raise ValueError(f"presentation must be one of {', '.join(PRESENTATIONS)}")
        if self.auto_send not in AUTO_SENDS:
            raise ValueError(f"auto_send must be one of {', '.join(AUTO_SENDS)}")
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}")
        if self.version == 1 and self.client.fence_prompt == "user_message":
            raise ValueError(
                "fence-user-message is a v2 strategy: v1 sends no user_message when it accepts "
                "a prompt (use fence-prompt)"
            )

    def with_(self, **changes: object) -> Config:
        """A copy with `changes` applied."""
        return replace(self, **changes)  # type: ignore[arg-type]  # fields by name: replace checks them


def baseline(revision: Revision, version: int, **changes: object) -> Config:
    """The configuration in which both peers keep every rule of `revision`."""
    if revision is Revision.DRAFT:
        cfg = Config(
            version=version, revision=revision, agent=DRAFT_AGENT, client=DROP_ON_SEND_CLIENT
        )
    elif revision is Revision.LEGACY:
        caps = ClientSuggestionCaps(legacy_allowlisted=True)
        cfg = Config(
            version=version,
            revision=revision,
            agent=CLAUDE_AGENT_ACP,
            client=JETBRAINS_AIR,
            client_caps=caps,
        )
    else:
        cfg = Config(version=version, revision=revision)
    return cfg.with_(**changes)
