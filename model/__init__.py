"""The protocol model of the prompt suggestions RFD: rules, messages, the list lifecycle and the
session machines, state, configuration, network, actors, the composed system, invariants,
leads-to properties and mutations.

The modules directly in this package import only each other, the ACP SDK and `transitions`:
never the tools in `model.check`, `model.render`, `model.wire` or `model.cli` (a test enforces
it), so the model reads on its own and every tool sees the same one.
"""
