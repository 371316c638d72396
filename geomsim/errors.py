"""The engine's own error types, which the command line alone maps to exit codes.

A library user who reads a file, runs a batch or starts a served game from Python gets these,
never an exception of the command line (click). This module imports nothing of geomsim, so that
every layer may raise them.
"""

from __future__ import annotations


class InputError(ValueError):
    """A problem with what the user gave (a file, an option, a spec, a batch folder): its
    message is one line naming it. The command line prints it and exits with code 2.

    `geomsim.reading.DataError` and `geomsim.scenario.ScenarioError` are kinds of it."""
