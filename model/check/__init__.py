"""The checking engine, for any Spec: the searches (a state at a time, or over arrays for steps
that have that form), the states found and spilled, the state graph, leads-to under weak
fairness and the searches' knobs.

May import nothing of the project but itself: the protocol model reaches it through
`model.binding`, whose `spec.of(config)` is the protocol model as a Spec.
"""
