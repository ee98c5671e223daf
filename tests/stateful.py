"""A Hypothesis rule-based state machine over the composed system of one configuration.

Each action of the model is its own rule (the user types, accepts, sends...; the agent
predicts, publishes, ends its turn...; a message is delivered), so Hypothesis interleaves them
freely, races happen, and a shrunk failure reads as a scenario: `state.user_sends()`,
`state.deliver_to_client(i=1)`.  Each invariant checked is its own `@invariant`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from acp_suggestions.model.binding.spec import ProtocolSpec
from acp_suggestions.model.check.spec import StateProperty
from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Act, Action, System

SETTINGS = settings(
    max_examples=150,
    stateful_step_count=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
# Finding a planted violation needs no shrinking: the checker gives the shortest path.  The
# finding is what these runs claim, so they draw the same examples everywhere: examples known
# to find every planted breach, never a run that misses one by chance.
FIND = settings(SETTINGS, max_examples=400, phases=[Phase.generate], derandomize=True)

# Each action of the model by (actor, name): the rule's name, and whether the action comes in
# several copies (a message index, a prediction choice) that the rule picks from with `i`.
RULES: dict[tuple[str, str], tuple[str, bool]] = {
    ("user", Act.TYPE): ("user_types", False),
    ("user", Act.ACCEPT): ("user_accepts_the_suggestion", False),
    ("user", Act.SELECT): ("user_selects_a_chip", False),
    ("user", Act.DISMISS): ("user_dismisses_the_suggestion", False),
    ("user", Act.SEND): ("user_sends", False),
    ("user", Act.CANCEL): ("user_cancels", False),
    ("user", Act.LOAD): ("user_reopens_with_replay", False),
    ("user", Act.RESUME_WITHOUT_REPLAY): ("user_resumes_without_replay", False),
    ("client", Act.AUTO_SEND): ("client_sends_by_itself", False),
    ("client", Act.RENDER): ("client_draws_its_list", False),
    ("agent", Act.PREDICT): ("agent_predicts", True),
    ("agent", Act.PUBLISH): ("agent_publishes", False),
    ("agent", Act.END_TURN): ("agent_ends_its_turn", False),
    ("agent", Act.REPLAY_DONE): ("agent_finishes_the_replay", False),
    ("agent", Act.ACCEPT_PROMPT): ("agent_accepts_a_prompt", False),
    ("agent", Act.FOREGROUND_WORK): ("agent_starts_work_without_a_prompt", False),
    ("agent", Act.NEED_ACTION): ("agent_needs_the_users_action", False),
    ("agent", Act.ACTION_RESOLVED): ("agent_gets_the_users_action", False),
    ("net", Act.DELIVER_TO_AGENT): ("deliver_to_agent", True),
    ("net", Act.DELIVER_TO_CLIENT): ("deliver_to_client", True),
}


def _step(key: tuple[str, str], several: bool) -> Callable[..., None]:
    """The rule that takes the action `key` (the `i`-th enabled copy, if it has several)."""

    def options(machine: Any) -> list[Action]:
        return [a for a in machine.enabled if (a.actor, a.name) == key]

    def take(machine: Any, action: Action) -> None:
        machine.world = machine.system.next_state(machine.world, action)
        machine.enabled = machine.system.actions(machine.world)
        machine.trail.append(str(action))
        machine.count_what_is_reached()

    def pick(self: Any, i: int) -> None:
        found = options(self)
        take(self, found[i % len(found)])

    def first(self: Any) -> None:
        take(self, options(self)[0])

    step = pick if several else first
    step.__name__ = step.__qualname__ = RULES[key][0]
    decorated = rule(i=st.integers(min_value=0, max_value=3))(pick) if several else rule()(first)
    return precondition(lambda self: bool(options(self)))(decorated)


def _check(cfg: Config, p: StateProperty[Config, World]) -> Callable[[Any], None]:
    rules = ", ".join(PROPERTIES_BY_NAME[p.name].rules)

    def holds(self: Any) -> None:
        if not p.holds(cfg, self.world):
            raise AssertionError(f"{p.name} ({rules}) violated after: {' '.join(self.trail)}")

    holds.__name__ = holds.__qualname__ = p.name
    return invariant()(holds)


def machine_for(
    checked: ProtocolSpec, seen: Counter[str] | None = None
) -> type[RuleBasedStateMachine]:
    """A state machine class for a spec of the protocol model that asserts the spec's
    invariants; `seen` counts its reachability goals met along the way (to show the runs reach
    races).  It steps the readable system (`System`), one rule per action, where the checker
    steps the packed one: the two are held equal by the checker's tests."""
    cfg: Config = checked.config
    system: System = checked.system

    class SystemMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.system = system
            self.world = self.system.init_state()
            self.enabled = self.system.actions(self.world)
            self.trail: list[str] = []

        @precondition(lambda self: not self.enabled)
        @rule()
        def nothing_is_left_to_do(self) -> None:
            """Nothing is enabled: the bounds are used up and the network is empty."""

        def count_what_is_reached(self) -> None:
            if seen is not None:
                seen.update(p.name for p in checked.reachable if p.holds(cfg, self.world))

    for key, (name, several) in RULES.items():
        setattr(SystemMachine, name, _step(key, several))
    for p in checked.invariants:
        setattr(SystemMachine, p.name, _check(cfg, p))
    SystemMachine.__name__ = f"System_v{cfg.version}_{cfg.revision.value}_{cfg.transport.value}"
    return SystemMachine
