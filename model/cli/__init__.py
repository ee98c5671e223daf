"""The `acp-suggestions` command line, the one entry point to every tool.

May import everything: the protocol model, `model.check`, `model.render`, `model.wire` and the
simulator (`sims`); nothing imports it.
"""
