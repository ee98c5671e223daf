"""The distribution's one import name: `acp_suggestions.model` (the protocol model and its
tools) and `acp_suggestions.sims` (the simulator), so that installing it takes no top-level
name another package could use.  In the repository the two are links to `model/` and `sims/`."""
