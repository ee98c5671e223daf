"""The probe's scenarios as data: what the client advertises, the model's user actions it
drives over a live connection, and the rules each exercises."""

from __future__ import annotations

from dataclasses import dataclass

# A scenario's action ends so when it acts in the second session (`user.send@2`).
SECOND_SESSION = "@2"
AUTO_SEND = "client.auto_send"
AUTO_SENDS = (
    3  # the prompts the `auto-send` scenario's setting may send (the model's bounds: 4 in all)
)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario: what the client advertises, the model's actions it drives, the rules it
    exercises."""

    name: str
    caps: str  # "advertised", "none" or "legacy"
    actions: tuple[str, ...]
    rules: tuple[str, ...]
    versions: tuple[int, ...] = (1, 2)  # where the model lets a client do this


# The scenarios, from the model's client and user actions that reach the agent.
SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "prompt-after-suggestion",
        "advertised",
        ("user.send", "wait", "user.send", "wait", "user.send", "wait"),
        ("CAP-2", "SC-1", "SC-2", "SC-3", "UPD-1", "UPD-4", "UPD-5", "LT-5"),
    ),
    Scenario(
        "prompt-while-predicting",
        "advertised",
        ("user.send", "user.send", "user.send", "wait"),
        ("CAP-2", "LT-5"),
    ),
    Scenario(
        "cancel-mid-turn",
        "advertised",
        ("user.send", "wait", "user.send+user.cancel", "wait"),
        ("LT-5",),
    ),
    Scenario(
        "load-with-replay",
        "advertised",
        ("user.send", "wait", "user.load", "wait", "user.send", "wait"),
        ("RP-1", "LT-5"),
    ),
    Scenario(
        "two-sessions",
        "advertised",
        ("user.send", "session.second", "user.send@2", "wait", "user.send", "user.send@2", "wait"),
        ("CAP-2", "LT-5"),
    ),
    Scenario(
        "cancel-first-turn", "advertised", ("user.send+user.cancel", "wait"), ("LT-5", "CAP-2")
    ),
    Scenario(
        "load-during-turn",
        "advertised",
        ("user.send", "wait", "user.send+user.load", "wait", "user.send", "wait"),
        ("RP-1", "LT-5"),
        (2,),  # a v1 client loads between turns only
    ),
    Scenario(
        "cancel-during-resume",
        "advertised",
        ("user.send", "wait", "user.load+user.cancel", "wait", "user.send", "wait"),
        ("RP-1", "LT-5"),
        (2,),  # a v1 client cancels only a turn
    ),
    Scenario("capability-off", "none", ("user.send", "wait", "user.send", "wait"), ("CAP-2",)),
    # A setting that sends suggestions by itself: each `client.auto_send` sends the suggestion
    # the agent offers then, if any. Does the agent stop suggesting? The RFD bounds nothing.
    Scenario(
        "auto-send",
        "advertised",
        ("user.send", "wait", *AUTO_SENDS * (AUTO_SEND, "wait")),
        ("CAP-2", "LT-5"),
    ),
)
LEGACY_SCENARIO = Scenario(
    "legacy-channel", "legacy", ("user.send", "wait", "user.send", "wait"), ("L-1", "L-2", "LT-5")
)
