"""Checking the model: the packed system, the breadth-first explorer, leads-to checking on the
state graph, the spec review and the RFC 2119 audit of an RFD text.

May import the protocol model (`model.*` modules); never `model.render`, `model.wire` or
`model.cli`.
"""
