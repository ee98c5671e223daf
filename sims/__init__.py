"""Simulation of message races under network delay: sessions run in simulated time by a
discrete-event engine that takes only actions `model.system` enables (`sims.engine`), over
scenario files and sweeps (`sims.scenario`, `sims.sweep`), with figures, plots and wire traces
(`sims.screen`, `sims.metrics`, `sims.report`).

May import the protocol model, `model.binding.packed` (the packed system it walks),
`model.render.atomic` and `model.wire.records` (the wire form of its traces); only `model.cli`
imports it."""
