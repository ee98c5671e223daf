"""The model of one configuration as the sessions of a point walk it, shared by them all."""

from __future__ import annotations

from model.check.packed import Packed, PackedSystem
from model.state import World
from model.system import Action


class Interned:
    """Each world the sessions reach, numbered, with the moves out of it (from
    `PackedSystem.successors`, so every step is the model's own), so that a session in flight is an
    int and a step taken before is a list index and a dict lookup."""

    def __init__(self, system: PackedSystem) -> None:
        self.system = system
        start = system.pack(system.init_state())
        self._packed: list[Packed] = [start]
        self._ids: dict[Packed, int] = {start: 0}
        self.worlds: list[World] = [system.unpack(start)]
        self.moves: list[dict[Action, int] | None] = [None]  # by world, once visited

    def moves_from(self, sid: int) -> dict[Action, int]:
        """The actions enabled in world `sid`, each with the world it leads to."""
        moves = self.moves[sid]
        if moves is None:
            moves = self.moves[sid] = {}
            for action, nxt in self.system.successors(self._packed[sid]):
                nid = self._ids.get(nxt)
                if nid is None:
                    nid = self._ids[nxt] = len(self._packed)
                    self._packed.append(nxt)
                    self.worlds.append(self.system.unpack(nxt))
                    self.moves.append(None)
                moves[action] = nid
        return moves
