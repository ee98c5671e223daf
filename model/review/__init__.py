"""The spec review: its jobs and their cache, where they run, the duty placement, the letter's
plan, the deep review, the RFC 2119 audit of an RFD text, and the summary the reports are
written from.

May import the protocol model, `model.check` and `model.binding`; never `model.render`,
`model.wire` or `model.cli`.
"""
