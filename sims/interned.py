"""The model of one spec as the sessions of a point walk it, shared by them all."""

from __future__ import annotations

from acp_suggestions.model.binding.spec import ProtocolSpec
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Action, Step, System


class Interned:
    """Each world the sessions reach, numbered, with the steps out of it (from
    `System.steps`, so every step is the model's own, with what it sent), so that a session in
    flight is an int and a step taken before is a list index and a dict lookup."""

    def __init__(self, spec: ProtocolSpec) -> None:
        self.system: System = spec.system
        start = self.system.init_state()
        self._ids: dict[World, int] = {start: 0}
        self.worlds: list[World] = [start]
        self.moves: list[dict[Action, tuple[int, Step]] | None] = [None]  # by world, once visited

    def moves_from(self, sid: int) -> dict[Action, tuple[int, Step]]:
        """The actions enabled in world `sid`, each with the number of the world it leads to
        and the step."""
        moves = self.moves[sid]
        if moves is None:
            moves = self.moves[sid] = {}
            for step in self.system.steps(self.worlds[sid]):
                nid = self._ids.get(step.after)
                if nid is None:
                    nid = self._ids[step.after] = len(self.worlds)
                    self.worlds.append(step.after)
                    self.moves.append(None)
                moves[step.action] = (nid, step)
        return moves
