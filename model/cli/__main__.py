"""`python -m model.cli`: the same as `acp-suggestions`."""

import sys

from model.cli import entry

sys.exit(entry())
