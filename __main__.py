"""``python -m tiermem``: the same command line as ``tiermem``."""

import sys

from tiermem.cli import main

sys.exit(main())
