"""The model of one configuration with its worlds numbered, shared by the sessions of a point."""

from __future__ import annotations

from model.state import World
from model.system import Action, System


class Interned:
    """The model of one configuration with each distinct world numbered, so that a session
    in flight is an int and a step it has seen before is one dict lookup.  Shared by every
    session of a point; each new step is computed by `System.next_state` itself."""

    def __init__(self, system: System) -> None:
        self.system = system
        w = system.init_state()
        self.worlds: list[World] = [w]
        self._ids: dict[World, int] = {w: 0}
        self.known: dict[tuple[int, Action], int] = {}  # steps taken before
        self.enabled_in: dict[int, frozenset[Action]] = {}  # worlds asked about before

    def step(self, sid: int, action: Action) -> int:
        """The world after `action` (which must be enabled) in world `sid`."""
        key = (sid, action)
        nid = self.known.get(key)
        if nid is None:
            w = self.system.next_state(self.worlds[sid], action)
            nid = self._ids.setdefault(w, len(self.worlds))
            if nid == len(self.worlds):
                self.worlds.append(w)
            self.known[key] = nid
        return nid

    def enabled(self, sid: int, action: Action) -> bool:
        """Whether the model enables `action` in world `sid`."""
        actions = self.enabled_in.get(sid)
        if actions is None:
            actions = self.enabled_in[sid] = frozenset(self.system.actions(self.worlds[sid]))
        return action in actions
