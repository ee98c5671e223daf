"""Immutable, hashable state values of the composed system: messages, agent, client, world.

Fields marked ghost are for checking only: no actor decides anything on them.  They record which
conversation point a list was predicted for and what the user actually did.
"""

from __future__ import annotations

import functools
import zlib
from enum import Enum
from typing import NamedTuple, TypeVar

from acp_suggestions.model.lifecycle import ListState
from acp_suggestions.model.messages import IMAGE, RESOURCE_LINK, TEXT
from acp_suggestions.model.session import V1, V2, SessionState

# Content kinds of a suggestion's blocks in the model: the message layer's names, plus two
# that stand for faults (whitespace-only text, a block the client cannot parse) and two that an
# agent may write within the rules to part what the user sees from what is sent: text that a
# composer feature acts on (a slash command, an @-mention), and a resource_link whose name is
# not its target.
BLANK, UNPARSEABLE = "blank", "unparseable"
COMMAND, MISNAMED_LINK = "command", "misnamed_link"
ADVERSARY_KINDS = (COMMAND, MISNAMED_LINK)
_TYPE_OF = {BLANK: TEXT, COMMAND: TEXT, MISNAMED_LINK: RESOURCE_LINK}

T = TypeVar("T")

Suggestion = tuple[str, ...]
"""A suggestion's prompt, abstracted to the kinds of its content blocks."""
SuggestionList = tuple[Suggestion, ...]


@functools.cache
def content_types(s: Suggestion) -> frozenset[str]:
    """The ACP content types of a suggestion's blocks that the client can parse."""
    return frozenset(_TYPE_OF.get(kind, kind) for kind in s) - {UNPARSEABLE}


def content_type(kind: str) -> str:
    """The ACP content type of a block of this kind."""
    return _TYPE_OF.get(kind, kind)


class Prompt(NamedTuple):
    """`session/prompt` from the client; `by_user` (ghost) says whether a user action sent it,
    and `unseen` (ghost) which of its blocks' types were never on screen before it went."""

    number: int
    by_user: bool
    unseen: tuple[str, ...] = ()


def _by_type(cls: type[T]) -> type[T]:
    """Make a message equal only to messages of its own type with equal fields: as bare
    tuples, a cancel, a prompt response and a load response would all be equal (and hash
    alike), and so would a load and a prompt response with equal flags, and states that
    differ only in them would be taken for one."""
    code = zlib.crc32(cls.__name__.encode())

    def eq(self: tuple[object, ...], other: object) -> bool:
        return type(other) is cls and tuple.__eq__(self, other)

    def ne(self: tuple[object, ...], other: object) -> bool:
        return not eq(self, other)

    def hashed(self: tuple[object, ...]) -> int:
        return code ^ tuple.__hash__(self) if self else code

    cls.__eq__ = eq  # type: ignore[assignment, method-assign]  # on purpose
    cls.__ne__ = ne  # type: ignore[assignment, method-assign]  # on purpose
    cls.__hash__ = hashed  # type: ignore[assignment, method-assign]  # on purpose
    return cls


def _quick_replace(cls: type[T]) -> type[T]:
    """Give a record a `_replace` that copies its fields once and sets the changed ones by
    place: the model's steps replace a field or two of records of up to 26 fields, and the
    standard one looks every field name up in the changes (twice the time)."""
    place = {name: i for i, name in enumerate(cls._fields)}  # type: ignore[attr-defined]  # a NamedTuple
    new = tuple.__new__

    def replaced(self: tuple[object, ...], /, **changes: object) -> T:
        values = list(self)
        try:
            for name, value in changes.items():
                values[place[name]] = value
        except KeyError as e:
            raise ValueError(f"{cls.__name__} has no field {e}") from None
        return new(cls, values)  # type: ignore[type-var]  # cls is a tuple type

    cls._replace = replaced  # type: ignore[attr-defined]  # on purpose
    return cls


@_by_type
class Cancel(NamedTuple):
    """`session/cancel` (v1)."""


@_by_type
class Load(NamedTuple):
    """v1 `session/load` (always replays) or v2 `session/resume` (replays with replayFrom)."""

    replay: bool


@_quick_replace
class Update(NamedTuple):
    """A suggestions update; every field but `suggestions` is ghost."""

    suggestions: SuggestionList
    predicted_epoch: int  # the conversation point the list was predicted for
    sent_epoch: int  # the conversation point when it was sent
    prompts_seen: int  # prompts the agent had accepted when it predicted the list
    replay: bool  # sent as part of load/resume replay


@_by_type
class PromptResponse(NamedTuple):
    """The `session/prompt` response (v1: the turn's end; v2: the prompt's acceptance).
    `waited` is the transport's: over the Python SDK it was sent behind a notification, so
    the client's SDK held it back for that (`network.send`); the client reads both alike."""

    waited: bool = False


@_by_type
class UserMessage(NamedTuple):
    """v2 `user_message`: the accepted prompt's message in history, a notification sent
    beside the `session/prompt` response, in either order."""


@_by_type
class LoadResponse(NamedTuple):
    """The `session/load` or `session/resume` response."""


ToAgent = Prompt | Cancel | Load
ToClient = Update | PromptResponse | UserMessage | LoadResponse


class Composer(Enum):
    """What the client's composer holds."""

    EMPTY = "empty"
    TYPED = "typed"  # the user typed something of their own
    ACCEPTED = "accepted"  # a suggestion accepted with Tab, not sent

    __hash__ = object.__hash__  # singletons; see ListState


class Pending(NamedTuple):
    """A prediction the agent is computing: its output and the conversation point it reads."""

    suggestions: SuggestionList
    epoch: int
    prompts_seen: int


@_quick_replace
class Agent(NamedTuple):
    """The agent's local state."""

    session: SessionState
    list_state: ListState
    last_sent: SuggestionList  # the list most recently sent (the agent's current list)
    # Ghost: what `last_sent` was predicted for, (conversation point, prompts accepted), so
    # that a replay of it keeps its own labels; (0, 0) for an empty list.
    last_labels: tuple[int, int]
    epoch: int  # conversation changes so far: prompts accepted and foreground work
    accepted: int  # prompts accepted
    queued: int  # v2: prompts read but not yet inserted
    pending: Pending | None
    predictions: int  # budget used
    foreground: int  # budget used (v2)
    blocked: int  # requires_action budget used (v2)


@_quick_replace
class Client(NamedTuple):
    """The client's local state (with the user's composer)."""

    list_state: ListState
    held: Update | None  # the list it holds, as it keeps it after skipping
    composer: Composer
    outstanding: int  # prompts awaiting their response (v1: the turn's end; v2: acceptance)
    unechoed: int  # v2: prompts awaiting their `user_message`
    loading: bool  # a load/resume awaits its response
    waiting: bool  # only a client that waits for a suggestion (TM-3 broken) sets this
    sent: int  # prompts sent
    loads: int
    cancels: int
    last: Update | None  # ghost: the last update delivered since the last load
    unprompted: bool  # ghost: a prompt went out without a user action
    in_transcript: bool  # ghost: a suggestion was displayed generically, as conversation
    lost: int  # ghost: prompts it sent that a reopen lost before the agent accepted them
    newest: int  # with the FAQ's field: the latest user message an update it had follows
    # Ghosts of what the user saw (Client presentation): the content types of the accepted
    # suggestion in the composer that it does not show (and that suggestion, below); whether
    # a user action sent a suggestion's block that was never on screen (by any action; by one
    # action that accepts and sends, a chip); and the prompts the client sent by itself since
    # the user last acted.
    hidden: tuple[str, ...] = ()
    accepted: Suggestion = ()  # the suggestion Tab put in the composer, until it is sent
    sent_unseen: bool = False
    selected_unseen: bool = False
    auto_run: int = 0
    # Where rendering is a step of its own (reading `rendering=deferred`): the suggestion on
    # screen, () for none, which a user action is aimed at.
    screen: Suggestion = ()
    # With the strategy `auto-send-after-response`: the list it holds arrived before the
    # response to its latest prompt, so its setting does not send from it.
    held_early: bool = False
    # Ghosts of the threat model's promises: a user action took another suggestion than the
    # one on screen; the client sent by itself a suggestion predicted before a prompt it had
    # sent, or one with a block its presentation never shows; a composer feature acted on a
    # suggestion's text before a user action sent it.
    got_other: bool = False
    auto_stale: bool = False
    auto_unseen: bool = False
    feature_unchosen: bool = False

    def predates_latest_prompt(self, u: Update) -> bool:
        """Whether `u` was predicted before the latest prompt this client sent that entered
        the conversation (a prompt a reopen lost before the agent accepted it never did)."""
        return u.prompts_seen < self.sent - self.lost


@_quick_replace
class World(NamedTuple):
    """The global state: both actors and the two directions of the network."""

    agent: Agent
    client: Client
    to_agent: tuple[ToAgent, ...]
    to_client: tuple[ToClient, ...]


def initial_world(version: int) -> World:
    """A new session: idle, both lists empty (LT-1), nothing in flight."""
    session: SessionState = V1.IDLE if version == 1 else V2.IDLE
    agent = Agent(session, ListState.EMPTY, (), (0, 0), 0, 0, 0, None, 0, 0, 0)
    client = Client(
        ListState.EMPTY, None, Composer.EMPTY, 0, 0, False, False, 0, 0, 0, None, False, False, 0, 0
    )
    return World(agent, client, (), ())


# What a model call may return, for the mutations that need it: as few outputs as show the
# breach, since each output multiplies the states.
PREDICT_BLANK: tuple[SuggestionList, ...] = (((BLANK,),),)
PREDICT_IMAGE: tuple[SuggestionList, ...] = (((IMAGE,),),)
# Two predictions at one point of the conversation may differ (`check --distinct-predictions`).
PREDICT_DISTINCT: tuple[SuggestionList, ...] = (((TEXT,),), ((RESOURCE_LINK,),))
PREDICT_TEXT_OR_IMAGE: tuple[SuggestionList, ...] = (((TEXT,),), ((IMAGE,),))
# One suggestion of text and a linked file, as a user's prompt that mentions a file reads.
PREDICT_TEXT_AND_LINK: tuple[SuggestionList, ...] = (((TEXT, RESOURCE_LINK),),)
# What an agent may write within the rules to part what the user sees from what is sent: text
# a composer feature acts on; text and a link named as another file than its target.
PREDICT_COMMAND: tuple[SuggestionList, ...] = (((COMMAND,),),)
PREDICT_MISNAMED_LINK: tuple[SuggestionList, ...] = (((TEXT, MISNAMED_LINK),),)
PREDICT_TRIMMABLE: tuple[SuggestionList, ...] = (((TEXT, UNPARSEABLE),),)
PREDICT_ONE_UNUSABLE: tuple[SuggestionList, ...] = (
    ((RESOURCE_LINK,),),
    ((TEXT, UNPARSEABLE), (TEXT,)),
)
PREDICT_ALL_UNUSABLE: tuple[SuggestionList, ...] = (((TEXT,),), ((UNPARSEABLE,),))
# A model call that may return a text list, or a list of a link and a suggestion with a block
# the client cannot parse (a newer block type): within the RFD, which asks the client to skip
# that suggestion and keep the link (unequal to the text list, so holding one for the other
# shows).
PREDICT_SOMETIMES_UNREADABLE: tuple[SuggestionList, ...] = (
    ((TEXT,),),
    ((RESOURCE_LINK,), (TEXT, UNPARSEABLE)),
)
