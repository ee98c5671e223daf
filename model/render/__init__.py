"""Showing what the model and its checks found: counterexamples narrated in the RFD's words and
as ITF, the review's reports, diagrams, and atomic file writes.

May import the protocol model, `model.check`, `model.binding` and `model.review`; never
`model.wire` or `model.cli`.
"""
