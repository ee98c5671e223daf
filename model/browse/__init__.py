"""The explorer in a browser: a run of one configuration walked step by step, the jumps to a
counterexample, and the web server with its page and JSON API.

May import the protocol model, `model.check`, `model.binding`, `model.review` and
`model.render`; never `model.wire` or `model.cli` (the command line gives it the parser of
`check`'s options).
"""
