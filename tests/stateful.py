"""A Hypothesis rule-based state machine over the composed system of one configuration.

User and client actions, agent steps and the delivery of any in-flight message are separate
rules, so Hypothesis interleaves them freely and races happen; the chosen invariants are
checked after every step, and a failure prints the action trail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from model.config import Config
from model.invariants import REACHABLE, Property
from model.system import AGENT, CLIENT, TO_AGENT, TO_CLIENT, USER, Action, System

SETTINGS = settings(
    max_examples=150,
    stateful_step_count=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
# Finding a planted violation needs no shrinking: the explorer gives the shortest path.
FIND = settings(SETTINGS, max_examples=400, phases=[Phase.generate])


def machine_for(
    cfg: Config, check: Sequence[Property], seen: Counter[str] | None = None
) -> type[RuleBasedStateMachine]:
    """A state machine class for `cfg` that asserts `check`; `seen` counts reachability
    properties met along the way (to show the runs reach races)."""

    class SystemMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.system = System(cfg)
            self.world = self.system.init_state()
            self.trail: list[str] = []

        def _options(self, group: tuple[str, ...]) -> list[Action]:
            return [
                a for a in self.system.actions(self.world) if a.actor in group or a.name in group
            ]

        def _act(self, data: st.DataObject, group: tuple[str, ...]) -> None:
            action = data.draw(st.sampled_from(self._options(group)), label="action")
            self.world = self.system.next_state(self.world, action)
            self.trail.append(str(action))

        @precondition(lambda self: self._options((USER, CLIENT)))
        @rule(data=st.data())
        def user_or_client(self, data: st.DataObject) -> None:
            self._act(data, (USER, CLIENT))

        @precondition(lambda self: self._options((AGENT,)))
        @rule(data=st.data())
        def agent(self, data: st.DataObject) -> None:
            self._act(data, (AGENT,))

        @precondition(lambda self: self._options((TO_AGENT,)))
        @rule(data=st.data())
        def deliver_to_agent(self, data: st.DataObject) -> None:
            self._act(data, (TO_AGENT,))

        @precondition(lambda self: self._options((TO_CLIENT,)))
        @rule(data=st.data())
        def deliver_to_client(self, data: st.DataObject) -> None:
            self._act(data, (TO_CLIENT,))

        @precondition(lambda self: not self.system.actions(self.world))
        @rule()
        def quiescent(self) -> None:
            """Nothing is enabled: the bounds are used up and the network is empty."""

        @invariant()
        def invariants_hold(self) -> None:
            for p in check:
                if not p.holds(cfg, self.world):
                    raise AssertionError(
                        f"{p.name} ({', '.join(p.rules)}) violated after: {' '.join(self.trail)}"
                    )
            if seen is not None:
                seen.update(p.name for p in REACHABLE if p.holds(cfg, self.world))

    SystemMachine.__name__ = f"System_v{cfg.version}_{cfg.revision.value}_{cfg.semantics.value}"
    return SystemMachine
