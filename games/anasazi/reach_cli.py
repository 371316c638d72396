"""`geomsim reach`: can an expedition reach a pueblo, in how many markers, how safely.

    geomsim reach --setup setup.json [--state state.json] --expedition E3 --pueblo P7
    geomsim reach --setup setup.json [--state state.json] --map -o reach.png [--json reach.json]

The verdict names the markers to lay in the game's action text (paste them into a scenario or
`state.apply(game.parse_action(...))`) and the margin of the touching marker. Registered under
the entry point group ``geomsim.commands``; errors are one line and exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from geomsim.commands import Command, Option, echo
from geomsim.errors import InputError
from geomsim.files import read_bytes
from geomsim.reading import MAX_JSON_BYTES, read_input


def run(setup_path: Path, state_path: Path | None, expedition: str | None, target: str | None,
          player: int | None, max_markers: int, map_mode: bool, output: Path | None,
          json_out: Path | None, seed: int, lab: bool) -> None:
    """Run `geomsim reach` with its options (`reach`, the command)."""
    from games.anasazi import reach as rc

    state = load_state(setup_path, state_path, check_setup=not lab)
    if player is not None and not 0 <= player < state.num_players:
        raise InputError(f"--player must be 0 to {state.num_players - 1}, not {player}")
    if map_mode:
        if target or expedition:
            raise InputError("--map draws every expedition and sector: leave out --expedition "
                             "and --pueblo")
        rmap = rc.reach_map(state, max_markers, player=player, seed=seed)
        echo(rmap.to_text())
        if output:
            from geomsim.plotting import save

            save(rmap.draw(state), output)
            echo(f"wrote {output}")
        _write_json(json_out, rmap.to_json())
        return
    if output:
        raise InputError("-o draws the reach map: add --map")
    if not (expedition and target):
        raise InputError("give --expedition and --pueblo (or --map)")
    known = [c.id for c in state.table.expedition_camps]
    if expedition not in known:
        raise InputError(f"--expedition: no expedition base camp {expedition!r} "
                         f"(known: {', '.join(known)})")
    try:
        sectors = rc.sectors_of(state.table, target)
    except KeyError as e:
        raise InputError(f"--pueblo: {e.args[0]}") from None
    results = [rc.reach(state, expedition, s, max_markers, player=player, seed=seed)
               for s in sectors]
    for r in results:
        echo(str(r))
    _write_json(json_out, [r.to_json() for r in results] if len(results) > 1
                else results[0].to_json())


def load_state(setup_path: Path, state_path: Path | None, check_setup: bool = True) -> Any:
    """The Anasazi state of the files: the setup's table right after setup, or the saved state
    (which must be played on the setup's table). The setup is checked against every setup rule
    unless `check_setup` is False (laboratory tables)."""
    from games.anasazi import GAME, layout

    data = read_input(setup_path)
    try:
        setup = layout.load_setup(data, check_setup)
    except (ValueError, KeyError, TypeError) as e:
        hint = " (a laboratory table? --no-check-setup)" if "setup rules" in str(e) else ""
        raise InputError(f"{setup_path}: {e}{hint}") from None
    if state_path is None:
        try:
            return GAME.new_state(setup.players, setup=setup, check_setup=False)  # checked above
        except ValueError as e:
            raise InputError(f"{setup_path}: {e}") from None
    try:
        state = GAME.state_from_json(read_bytes(state_path, MAX_JSON_BYTES).decode("utf-8"))
    except OSError as e:  # also not a regular file, or over the limit
        raise InputError(f"{state_path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{state_path}: not UTF-8 text (byte {e.start})") from None
    except ValueError as e:
        raise InputError(f"{state_path}: {e}") from None
    if state.table.to_json() != setup.table.to_json():
        raise InputError(f"{state_path}: this state was not played on the table of {setup_path}")
    return state


def _write_json(path: Path | None, data: Any) -> None:
    """Write `data` as JSON to `path` ('-': standard output; None: nowhere)."""
    if path is None:
        return
    text = json.dumps(data, indent=1) + "\n"
    if str(path) == "-":
        echo(text, nl=False)
        return
    from geomsim.files import write_text

    write_text(path, text)
    echo(f"wrote {path}")


# The command, registered under the entry point group ``geomsim.commands``.
reach = Command("reach", """Can an expedition reach a pueblo, in how many markers, and how precisely must the
    marker be laid? Or, with --map, which sectors every expedition reaches.""", run, (
    Option(("--setup", "setup_path"), "read", required=True,
           help="The Anasazi setup (JSON, as `geomsim setup anasazi --json` writes it)."),
    Option(("--state", "state_path"), "read",
           help="A state played on that setup (JSON, `state.to_json()`); default: the table "
                "right after setup, no base camps, no markers."),
    Option(("--expedition", "-e"), help="Expedition base camp id (E1..E6): its end, or its "
                                        "start mark if no expedition started there."),
    Option(("--pueblo", "-p", "target"), help="Pueblo id (each of its sectors) or sector id."),
    Option(("--player",), "int", help="Who lays the markers (0-based; default: the player to move)."),
    Option(("--max-markers", "-n"), "int", default=3, show_default=True, range=(1, 6),
           help="Longest chain of markers searched."),
    Option(("--map", "map_mode"), "flag",
           help="Reach of every sector from every expedition, as a table (and a picture)."),
    Option(("-o", "--output"), "diagram", help="Draw the reach map to this PNG, SVG or PDF."),
    Option(("--json", "json_out"), "json", help="Write the result as JSON ('-': stdout)."),
    Option(("--seed",), "seed", default=0, show_default=True,
           help="Seed of the sampling (results are reproducible)."),
    Option(("--no-check-setup", "lab"), "flag",
           help="Accept a laboratory table that breaks the setup rules on purpose (mesa and "
                "camp counts, spacing); the rules of play are judged all the same."),
))
