"""Simulation of message races under network delay: sessions run in simulated time by a
discrete-event engine that takes only actions `model.system` enables (`sims.engine`), over
scenario files and sweeps (`sims.scenario`, `sims.sweep`), with figures, plots and wire traces
(`sims.metrics`, `sims.report`, `sims.wire`).

May import the protocol model, `model.check.packed` (the packed system it walks) and
`model.render.atomic`; only `model.cli` imports it."""
