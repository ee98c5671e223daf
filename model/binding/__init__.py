"""The protocol model bound to the engine: the composed system over packed worlds and over
arrays of them, the protocol's Spec (`spec.of`), the one check of a configuration (`verify`)
with its verdicts as rows, and two sessions on one connection.

May import the protocol model (`model.*` modules) and `model.check`; never `model.review`,
`model.render`, `model.wire` or `model.cli`.
"""
