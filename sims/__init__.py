"""Simulation of message races under network delay.  Not written yet: the package holds the
place the project's layout gives it, and the simulator will drive `model.system` itself."""
