"""Anasazi in the web app (`geomsim serve`): the table as SVG at millimetre scale, the ghost
marker and base camp tools, the shapes that show a verdict, and the reach overlay.

The engine finds these hooks through `AnasaziGame.web`; every verdict is the rules' own
``state.check`` (the engine calls it), and the shapes drawn for it are computed here with shapely
from the numbers of the violation: the part of a base camp a marker covers, the part hanging over
the play area's edge, the part of the explorer left uncovered, the part of a hidden explorer.
"""

from __future__ import annotations

from typing import Any, cast

import shapely

from games.anasazi import legality as lg
from games.anasazi import reach as rc
from games.anasazi.actions import BuildCamp, PlaceMarker
from games.anasazi.components import COLOURS, Table
from games.anasazi.rules import AnasaziState, describe_decision
from games.anasazi.draw import (
    ADOBE, ADOBE_EDGE, CAMP_TILE, CLIFF, EARTH, END_RING, EXPLORER, HIDDEN_TOWER, MARKER,
    PIECE_COLOURS, SAND, camp_colour,
)
from geomsim.rules import Action, Event, State, Verdict
from geomsim.web import svg
from geomsim.web.hooks import JSON, Board, GameWeb, WebError

DISC_SEGMENTS = 64  # quarter segments of the discs drawn for overlaps (a 256-gon)
MAX_REACH_MARKERS = 3


def _disc(x: float, y: float, r: float) -> shapely.Polygon:
    return shapely.Point(x, y).buffer(r, quad_segs=DISC_SEGMENTS)


def _table_svg(table: Table) -> str:
    """What never changes in a game: play area, mesas, pueblo sectors, expedition base camps
    and the ids (made once per table)."""
    return _TABLES.of_table(table, lambda: _make_table_svg(table))


_TABLES: lg.Recent[int, tuple[Table, str]] = lg.Recent(16)


def _make_table_svg(table: Table) -> str:
    sizes = table.sizes
    out = [svg.circle(0, 0, sizes.play_area_radius, fill=SAND, stroke="#8a7650", stroke_width=1)]
    for i, m in enumerate(table.mesas):
        out.append(svg.path(m.polygon, fill=CLIFF, stroke="#2e1608", stroke_width=0.8,
                            data_mesa=m.id))
        out.append(svg.path(m.polygon.buffer(-3.0, quad_segs=2), fill=EARTH[i % len(EARTH)],
                            pointer_events="none"))
    for s in table.sectors:
        out.append(svg.path(s.polygon, class_="sector", fill=ADOBE, stroke=ADOBE_EDGE,
                            stroke_width=0.6, data_id=s.id))
    for e in table.expedition_camps:
        out.append(svg.path(e.polygon, fill=CAMP_TILE, stroke="#2f3a24", stroke_width=0.8))
        out.append(svg.circle(*e.start, sizes.start_mark_radius, fill="white", stroke="black",
                              stroke_width=0.6))
        c = e.polygon.centroid
        out.append(svg.text(c.x, c.y - 11, e.id, class_="label exp", fill="white"))
    for m in table.mesas:
        c = m.polygon.representative_point()
        out.append(svg.text(c.x, c.y, m.id, class_="label mesa", fill="#fff3dc"))
    for p in table.pueblos:
        x0, _, x1, y1 = p.polygon.bounds
        out.append(svg.text((x0 + x1) / 2, y1 + 4.0, p.id, class_="label pueblo", fill="#1f1007"))
    return svg.group(out, id="table")


def _pieces_svg(state: Any, known: dict[str, str], reveal: bool) -> str:
    """What lies on the table now: towers (hidden unless known or revealed), treasures, base
    camps, markers with their explorers."""
    table, sizes = state.table, state.sizes
    out = []
    half = sizes.treasure_size / 2
    for sid, (kind, colour) in state.contents.items():
        c = table.sector(sid).polygon.representative_point()
        if kind == "treasure":
            out.append(svg.path(shapely.box(c.x - half, c.y - half, c.x + half, c.y + half),
                                fill=PIECE_COLOURS[colour], stroke="black", stroke_width=0.5,
                                pointer_events="none"))
            continue
        shown = reveal or sid in known
        out.append(svg.circle(c.x, c.y, sizes.tower_radius,
                              fill=PIECE_COLOURS[colour] if shown else HIDDEN_TOWER,
                              stroke="black", stroke_width=0.6, pointer_events="none",
                              data_tower=sid))
        if not shown:
            out.append(svg.text(c.x, c.y - 2.2, "?", class_="label tower", fill="white"))
    for i, camp in enumerate(state.camps):
        out.append(svg.circle(camp.x, camp.y, sizes.base_camp_radius, class_="camp",
                              fill=camp_colour(camp.owner),
                              stroke="black", stroke_width=0.8, data_camp=i, data_owner=camp.owner))
        out.append(svg.circle(camp.x, camp.y, sizes.base_camp_radius * 0.35, fill="white",
                              stroke="black", stroke_width=0.4, pointer_events="none"))
    for e, poses in state.expeditions.items():
        for k, pose in enumerate(poses):
            out.append(svg.path(lg.marker_polygon(pose, sizes), class_="marker", fill=MARKER,
                                stroke="#6b4a1f", stroke_width=0.6, fill_opacity=0.92,
                                data_expedition=e, data_index=k))
            out.append(svg.circle(*lg.explorer_centre(pose, sizes), sizes.explorer_radius,
                                  fill=EXPLORER, pointer_events="none"))
    return svg.group(out, id="pieces")


class AnasaziWeb(GameWeb):
    """The web hooks of Anasazi."""

    def board(self, state: State, viewer: int | None, reveal: bool) -> Board:
        s = cast(AnasaziState, state)  # the hooks of Anasazi see Anasazi states
        table, sizes = s.table, s.sizes
        known = {} if viewer is None else {t: s.towers[t] for t in s.seen[viewer]}
        r = sizes.play_area_radius + 10
        body = _table_svg(table) + _pieces_svg(s, known, reveal)
        board = s.board()
        # Where each expedition ends (the disc its next marker covers), ringed for the one chosen,
        # and how far the centre of a marker on its axis may lie from it and still cover it.
        ends = {}
        for e in table.expedition_camps:
            x, y, radius = lg.expedition_end(board, e.id)
            ends[e.id] = [x, y, radius, lg.cover_room(sizes, radius)[0]]
        return Board(body, (-r, -r, 2 * r, 2 * r), mm=True, tools=self._tools(state),
                     analyses=self._analyses(state), summary=self.summary(state, viewer),
                     data={"anchors": ends}, legend=_legend(s.num_players))

    def in_setup(self, state: State) -> bool:
        return cast(AnasaziState, state).phase in ("camps", "looks")

    def _tools(self, state: Any) -> list[dict[str, Any]]:
        """The ghost pieces that can stand for a legal action now."""
        if state.phase not in ("camps", "play") or state.pending:
            return []
        sizes = state.sizes
        camp = {"name": "camp", "label": "base camp", "shape": {"disc": sizes.base_camp_radius},
                "turns": False, "params": []}
        if state.phase == "camps":
            return [camp]
        marker = {"name": "marker", "label": "expedition marker", "turns": True,
                  "shape": {"rect": [sizes.marker_length, sizes.marker_width],
                            "dot": [sizes.marker_length / 2 - sizes.explorer_offset,
                                    sizes.explorer_radius]},
                  "params": [self._expedition_param(state)]}
        return [marker, camp]

    @staticmethod
    def _expedition_param(state: Any) -> dict[str, Any]:
        return {"name": "expedition", "label": "expedition",
                "choices": [e.id for e in state.table.expedition_camps]}

    def _analyses(self, state: Any) -> list[dict[str, Any]]:
        return [{"name": "reach", "label": "reach", "params": [
            self._expedition_param(state),
            {"name": "markers", "label": "markers",
             "choices": [str(k) for k in range(1, MAX_REACH_MARKERS + 1)]}]}]

    def summary(self, state: State, viewer: int | None) -> list[str]:
        s: Any = state
        values = s.treasure_values()
        lines = [f"phase {s.phase}; player {s.current} to move"
                 + (f", {s.actions_left} action(s) left" if s.phase == "play" else ""),
                 f"markers left {s.markers_left()}; treasure values "
                 + ", ".join(f"{c} {values[c]}" for c in COLOURS)]
        if s.pending:
            lines.append("decision open: " + ", ".join(describe_decision(d) for d in s.pending))
        for p in range(s.num_players):
            held = ", ".join(f"{n} {c}" for c, n in s.hands[p].items() if n) or "no treasure"
            lines.append(f"player {p}: {held}; {s.camps_left(p)} base camp(s) left; "
                         f"score {s.scores()[p]:g}")
        if viewer is not None:
            seen = ", ".join(f"{t} {s.towers[t]}" for t in sorted(s.seen[viewer])) or "none"
            lines.append(f"player {viewer} knows: objective {s.objectives[viewer]}; towers {seen}")
        if s.is_over():
            lines.append(f"game over ({s.ended}); winners {s.winners()}")
        return lines

    # -- tools -------------------------------------------------------------------------------
    def tool_action(self, state: State, tool: str, params: Any, x: float, y: float,
                    heading: float) -> Action:
        if tool not in ("marker", "camp"):
            raise WebError(f"unknown Anasazi tool {tool!r} (marker, camp)")
        expedition = params.get("expedition") if isinstance(params, dict) else None
        ids = [e.id for e in cast(AnasaziState, state).table.expedition_camps]
        if tool == "marker" and (not isinstance(expedition, str) or expedition not in ids):
            raise WebError(f"choose an expedition ({', '.join(ids)}), not {expedition!r:.60}")
        try:  # the actions bound their numbers (a pose beyond any table is refused)
            if tool == "camp":
                return BuildCamp(x, y)
            return PlaceMarker(cast(str, expedition), x, y, heading % 360.0)
        except ValueError as e:
            raise WebError(str(e)) from None

    def overlays(self, state: State, action: Action, player: int, verdict: Verdict
                 ) -> list[JSON]:
        s: Any = state
        out = [shape for v in verdict.violations for shape in _violation_shapes(s, action, v)]
        if isinstance(action, PlaceMarker):
            for sid in lg.touched(s.table, action.pose)[0]:
                item = s.contents.get(sid)
                what = ("empty" if item is None else f"{item[1]} treasure"
                        if item[0] == "treasure" else "tower")  # a tower's colour stays hidden
                out.append({"d": svg.path_d(s.table.sector(sid).polygon), "kind": "touch",
                            "rule": "", "label": f"touches {sid} ({what})"})
        return out

    # -- analyses ----------------------------------------------------------------------------
    def _reach_params(self, state: Any, params: Any) -> tuple[str, int]:
        expedition = params.get("expedition")
        if expedition not in [e.id for e in state.table.expedition_camps]:
            raise WebError(f"choose an expedition, not {expedition!r:.60}")
        try:
            markers = int(params.get("markers", 1))
        except (TypeError, ValueError, OverflowError):
            raise WebError(f"markers must be 1 to {MAX_REACH_MARKERS}") from None
        if not 1 <= markers <= MAX_REACH_MARKERS:
            raise WebError(f"markers must be 1 to {MAX_REACH_MARKERS}, not {markers}")
        return expedition, markers

    def analysis(self, state: State, name: str, params: Any, viewer: int | None) -> JSON:
        if name != "reach":
            return super().analysis(state, name, params, viewer)
        s: Any = state
        expedition, markers = self._reach_params(s, params)
        rmap = rc.reach_map(s, markers, player=viewer, expeditions=[expedition])
        fills: dict[str, str] = {}
        titles: dict[str, str] = {}
        counts: dict[int, int] = {}
        for sid, r in rmap.results[expedition].items():
            titles[sid] = f"{sid}: {r.status}" + (f" with {r.markers}" if r.reachable else "")
            if r.reachable:
                fills[sid] = rc.REACH_COLOURS.get(r.markers, rc.FAR_COLOUR)
                counts[r.markers] = counts.get(r.markers, 0) + 1
            elif r.status == "unreachable":
                fills[sid] = "#bdbdbd"
        x, y = rmap.ends[expedition]
        r0 = s.sizes.explorer_radius * 2.2
        legend = [[rc.REACH_COLOURS.get(k, rc.FAR_COLOUR), f"{k} marker{'s' * (k > 1)}"]
                  for k in range(1, markers + 1)] + [["#bdbdbd", "proved unreachable"],
                                                     [ADOBE, "undecided (not found)"]]
        found = ", ".join(f"{n} sector(s) in {k}" for k, n in sorted(counts.items())) or "none"
        return {"fills": fills, "titles": titles, "legend": legend,
                "paths": [{"d": svg.path_d(_disc(x, y, r0).exterior), "kind": "mark",
                           "label": f"end of {expedition}"}],
                "text": f"reach of {expedition} for player {rmap.player}, up to {markers} "
                        f"marker(s): {found}. Click a pueblo for its answer."}

    def pick(self, state: State, name: str, params: Any, target: str, viewer: int | None
             ) -> JSON:
        if name != "reach":
            return super().pick(state, name, params, target, viewer)
        s: Any = state
        expedition, markers = self._reach_params(s, params)
        try:
            s.table.sector(target)
        except KeyError:
            raise WebError(f"no pueblo sector {target!r} on this table") from None
        result = rc.reach(s, expedition, target, markers, player=viewer)
        paths = [{"d": svg.path_d(lg.marker_polygon(p, s.sizes)),
                  "kind": "witness" if k == len(result.chain) - 1 else "chain",
                  "label": f"marker {k + 1}: {a}"}
                 for k, (p, a) in enumerate(zip(result.chain, result.actions))]
        paths.append({"d": svg.path_d(s.table.sector(target).polygon), "kind": "target",
                      "label": target})
        return {"paths": paths, "text": str(result), "result": result.to_json()}

    def offers(self, state: State) -> list[str]:
        s: Any = state
        return [f"player {s.current} may choose the {describe_decision(d)} (or pass)"
                for d in s.pending[:1]]

    def describe(self, event: Event) -> str:
        d, p = event.data, event.player
        words = {
            "marker-laid": lambda: f"player {p} laid a marker of {d['expedition']} "
                                   f"({d['markers_left']} left)",
            "treasure-found": lambda: f"player {p} took the {d['colour']} treasure of {d['sector']}",
            "tower-moved": lambda: f"player {p} moved the {d['colour']} tower of {d['sector']} to "
                                   f"the score tile (space {d['space']})",
            "camp-covered": lambda: f"player {p} covered player {d['owner']}'s base camp "
                                    f"{d['camp']} for the first time"
                                    + (": a treasure to take" if d["owner"] == p else ""),
            "camp-built": lambda: f"player {p} built base camp {d['camp']} "
                                  f"at ({d['at'][0]:.2f}, {d['at'][1]:.2f})",
            "tower-seen": lambda: f"player {p} looked at the tower on {d['sector']}",
            "treasure-taken": lambda: f"player {p} took a {d['colour']} treasure from player "
                                      f"{d['from']}",
            "passed": lambda: f"player {p} passed",
            "objectives-dealt": lambda: "objectives dealt (each player knows only their own)",
            "game-over": lambda: f"game over ({d['reason']}): scores {d['scores']}",
        }.get(event.kind)
        return words() if words else super().describe(event)


def _legend(players: int) -> list[JSON]:
    """The key of the table as the page draws it: pieces, then what the ghost and its verdict
    draw (colours of `games.anasazi.draw` and the page's style sheet)."""
    camps = [[camp_colour(p), f"player {p}'s base camp", "disc"] for p in range(players)]
    return camps + [
        [MARKER, "expedition marker (dark dot: its explorer)", "square"],
        [CAMP_TILE, "expedition base camp E1...; white: its start mark", "square"],
        [CLIFF, "mesa M1... (cliff edge, top inside)", "square"],
        [ADOBE, "pueblo sector P1..., small ones P1s...", "square"],
        [HIDDEN_TOWER, "tower not known (?); known: its colour", "disc"],
        [PIECE_COLOURS["red"], "treasure (its colour)", "square"],
        [END_RING, "end of the chosen expedition (the next marker covers it)", "ring"],
        ["#1b7f2a", "ghost: legal", "line"],
        ["#b71c1c", "ghost: illegal", "line"],
        ["#ff00dc", "the part that breaks a rule", "square"],
        ["#28a03c", "pueblo sectors the ghost touches", "square"],
    ]


def _violation_shapes(state: Any, action: Action, v: Any) -> list[dict[str, Any]]:
    """The shapes that show one violation: what overlaps what, by how much."""
    sizes, table, d = state.sizes, state.table, v.details
    if isinstance(action, PlaceMarker):
        piece = lg.marker_polygon(action.pose, sizes)
    elif isinstance(action, BuildCamp):
        piece = _disc(action.x, action.y, sizes.base_camp_radius)
    else:
        return []
    shape, label = None, ""
    if v.rule in (lg.OTHER_CAMP, lg.NEW_CAMP):
        x, y = d["at"]
        shape = piece.intersection(_disc(x, y, sizes.base_camp_radius))
        label = f"covers {d['area_mm2']:.2f} mm² of player {d['owner']}'s base camp"
    elif v.rule in (lg.MARKER_PLAY_AREA, lg.CAMP_PLAY_AREA):
        shape = piece.difference(_disc(0.0, 0.0, sizes.play_area_radius))
        label = f"hangs {d['overhang_mm']:.3f} mm over the edge"
    elif v.rule == lg.COVER_EXPLORER and isinstance(action, PlaceMarker):
        x, y, r = lg.expedition_end(state.board(), action.expedition)
        shape = _disc(x, y, r).difference(piece)
        label = f"explorer uncovered by {d['uncovered_mm']:.3f} mm"
    elif v.rule == lg.ONE_PER_CAMP and isinstance(action, PlaceMarker):
        x, y = table.expedition_camp(action.expedition).start
        shape = _disc(x, y, sizes.start_mark_radius).intersection(piece)
        label = "covers the start mark of a started expedition"
    elif v.rule == lg.EXPLORER_VISIBLE:
        x, y = d["explorer"]
        shape = piece.intersection(_disc(x, y, sizes.explorer_radius))
        label = f"hides the explorer of {d['expedition']} by {d['depth_mm']:.3f} mm"
    elif v.rule == lg.CAMP_VALLEY:
        shape = piece.intersection(table.mesa(d["mesa"]).polygon)
        label = f"lies {d['depth_mm']:.3f} mm on mesa {d['mesa']}"
    elif v.rule == lg.CAMP_ON_CAMP:
        other = state.camps[d["camp"]]
        shape = piece.intersection(_disc(other.x, other.y, sizes.base_camp_radius))
        label = f"lies {d['depth_mm']:.3f} mm on player {d['owner']}'s base camp"
    elif v.rule == lg.CAMP_DIRECTLY:
        under = (table.expedition_camp(d["expedition_camp"]).polygon if "expedition_camp" in d
                 else lg.marker_polygon(state.expeditions[d["expedition"]][d["marker"]], sizes))
        shape = piece.intersection(under)
        label = f"lies {d['depth_mm']:.3f} mm on a piece"
    if shape is None or shape.is_empty:
        return []
    return [{"d": svg.path_d(shape), "kind": "overlap", "rule": v.rule, "label": label,
             "area_mm2": round(float(shape.area), 3)}]


WEB = AnasaziWeb()
