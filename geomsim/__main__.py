"""`python -m geomsim`: the command line, as the `geomsim` command."""

import sys

from geomsim.cli import main

if __name__ == "__main__":
    sys.exit(main())
