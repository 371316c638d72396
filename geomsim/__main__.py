"""`python -m geomsim`: the command line, as the `geomsim` command."""

from geomsim.cli import main

if __name__ == "__main__":
    main()
