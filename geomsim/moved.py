"""Old import paths of names that moved, kept for one release with a DeprecationWarning.

A module whose public names moved resolves them in its `__getattr__` (PEP 562), importing the new
module there, so that the alias costs nothing until it is used and is no dependency of the module.
"""

from __future__ import annotations

import warnings
from typing import TypeVar

T = TypeVar("T")


def moved(old: str, new: str, value: T) -> T:
    """`value`, still found under its old dotted name `old`, with a DeprecationWarning that
    names its new place `new` (the warning points at the code that used the old name)."""
    warnings.warn(f"{old} moved to {new}; import it from there (the old name goes in the next "
                  "release)", DeprecationWarning, stacklevel=3)
    return value
