"""`python -m geomsim.cli`: the command line, as the `geomsim` command."""

import sys

from geomsim.cli import main

sys.exit(main())
