"""Checking recorded ACP traffic (JSON Lines of JSON-RPC messages) against the rules.

May import the protocol model (`model.*` modules) and the ACP SDK; never `model.check`,
`model.render` or `model.cli`.
"""
