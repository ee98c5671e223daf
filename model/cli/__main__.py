"""`python -m model.cli`: the same as `acp-suggestions`."""

import sys

from model.cli.main import main

sys.exit(main())
