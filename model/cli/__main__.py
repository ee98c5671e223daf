"""`python -m acp_suggestions.model.cli`: the same as `acp-suggestions`."""

import sys

from acp_suggestions.model.cli import entry

sys.exit(entry())
