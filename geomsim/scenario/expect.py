"""The expectations a scenario checks after its steps, and their verdicts."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from geomsim.bots import split_bots
from geomsim.rules import Action, Event, State
from geomsim.scenario.model import Expectation, Scenario, as_list, contributed_kinds
from geomsim.scenario.paths import lookup, property_path
from geomsim.scenario.source import describe

if TYPE_CHECKING:
    from geomsim.scenario.claims import Claim

__all__ = ["CORE_EXPECTATIONS", "COMPARATORS", "Moment", "evaluate", "lookup", "property_path"]


@dataclass
class Moment:
    """What an expectation sees: the state after a step and the events of that step."""

    scenario: Scenario
    state: State
    events: list[Event]


Outcome = tuple[bool, str]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _same(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


def _named(exp: Expectation) -> int:
    """The player the expectation names (the loader makes every kind that needs one name one)."""
    if exp.player is None:
        raise ValueError("name the player")
    return exp.player


def _probe(moment: Moment, exp: Expectation) -> tuple[int, Action]:
    """The player and action of a legal / illegal probe (the player: the one to move when the
    file names none)."""
    if exp.action is None:
        raise ValueError("no action to probe")
    if exp.player is not None:
        return exp.player, exp.action
    movers = moment.state.to_move()
    if len(movers) != 1:
        raise ValueError("name the player: " + ("the game is over" if not movers else
                         f"players {', '.join(map(str, movers))} are to move"))
    return movers[0], exp.action


def expect_legal(moment: Moment, exp: Expectation) -> Outcome:
    player, action = _probe(moment, exp)
    verdict = moment.state.check(action, player)
    what = f"{moment.scenario.label(player)}: {exp.text}"
    if verdict.ok:
        return True, f"{what!r} is legal"
    return False, f"{what!r} is illegal, expected legal: {verdict}"


def expect_illegal(moment: Moment, exp: Expectation) -> Outcome:
    player, action = _probe(moment, exp)
    verdict = moment.state.check(action, player)
    what = f"{moment.scenario.label(player)}: {exp.text}"
    wanted = as_list(exp.spec.get("rule", []))
    by = f" by {', '.join(wanted)}" if wanted else ""
    if verdict.ok:
        return False, f"{what!r} is legal, expected illegal{by}"
    missing = [r for r in wanted if r not in verdict.rules]
    if missing:
        return False, f"{what!r} is illegal by {', '.join(verdict.rules)}, expected{by}: {verdict}"
    return True, f"{what!r} is illegal: {verdict}"


def expect_score(moment: Moment, exp: Expectation) -> Outcome:
    player = _named(exp)
    actual = moment.state.scores()[player]
    text = f"score of {moment.scenario.who(player)} is {_num(actual)}"
    wanted = exp.spec["score"]
    return (True, text) if _same(actual, wanted) else (False, f"{text}, expected {_num(wanted)}")


def expect_scores(moment: Moment, exp: Expectation) -> Outcome:
    actual, wanted = list(moment.state.scores()), exp.spec["scores"]
    text = f"scores are {', '.join(map(_num, actual))}"
    ok = len(actual) == len(wanted) and all(map(_same, actual, wanted))
    return (True, text) if ok else (False, f"{text}, expected {', '.join(map(_num, wanted))}")


def _players(scenario: Scenario, players: Sequence[int]) -> str:
    return ", ".join(scenario.who(p) for p in players) or "nobody"


def expect_winners(moment: Moment, exp: Expectation) -> Outcome:
    wanted = sorted([exp.spec["winner"]] if "winner" in exp.spec else exp.spec["winners"])
    actual = sorted(moment.state.winners())
    over = "" if moment.state.is_over() else " (the game is not over)"
    text = f"winners: {_players(moment.scenario, actual)}{over}"
    return (True, text) if actual == wanted else (False, f"{text}, expected {_players(moment.scenario, wanted)}")


def expect_over(moment: Moment, exp: Expectation) -> Outcome:
    over = moment.state.is_over()
    text = "the game is over" if over else "the game is not over"
    if over == exp.spec["over"]:
        return True, text
    return False, f"{text}, expected it {'' if exp.spec['over'] else 'not '}to be"


def expect_to_move(moment: Moment, exp: Expectation) -> Outcome:
    actual, wanted = sorted(moment.state.to_move()), sorted(exp.spec["to_move"])
    text = f"to move: {_players(moment.scenario, actual)}"
    return (True, text) if actual == wanted else (False, f"{text}, expected {_players(moment.scenario, wanted)}")


COMPARATORS = ("equals", "contains", "length", "at_least", "at_most")


def plain(value: Any) -> Any:
    """JSON-like data with tuples as lists, string keys and numpy scalars as Python numbers."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def expect_property(moment: Moment, exp: Expectation) -> Outcome:
    spec = exp.spec
    source = moment.state.observe(_named(exp)) if spec.get("of") == "observe" else moment.state.to_dict()
    of = f"observe({exp.player})" if spec.get("of") == "observe" else "state"
    try:
        value = plain(lookup(plain(source), property_path(spec["property"])))
    except LookupError as e:
        return False, f"{of} {spec['property']}: {e.args[0]}"
    text = f"{of} {spec['property']} is {_short(value)}"
    problems = [p for p in (_compare(value, k, spec[k]) for k in COMPARATORS if k in spec) if p]
    return (False, f"{text}: {'; '.join(problems)}") if problems else (True, text)


def _compare(value: Any, how: str, wanted: Any) -> str | None:
    """Why `value` fails the comparison `how` with `wanted`, or None when it holds."""
    try:
        if how == "equals":
            ok = value == plain(wanted) or (_is_number(value) and _is_number(wanted) and _same(value, wanted))
            return None if ok else f"expected {_short(plain(wanted))}"
        if how == "contains":
            return None if plain(wanted) in value else f"expected it to contain {_short(plain(wanted))}"
        if how == "length":
            return None if len(value) == wanted else f"length {len(value)}, expected {wanted}"
        if how == "at_least":
            return None if value >= wanted else f"expected at least {_num(wanted)}"
        return None if value <= wanted else f"expected at most {_num(wanted)}"
    except TypeError:
        return f"cannot compare {describe(value)} ({how} {_short(wanted)})"


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def expect_event(moment: Moment, exp: Expectation) -> Outcome:
    spec = exp.spec
    data = plain(spec.get("data", {}))

    def matches(e: Event) -> bool:
        if e.kind != spec["event"] or ("player" in spec and e.player != spec["player"]):
            return False
        got = plain(e.data)
        return all(k in got and got[k] == v for k, v in data.items())

    found = [e for e in moment.events if matches(e)]
    what = f"event {spec['event']!r}" + (f" of {moment.scenario.who(spec['player'])}" if "player" in spec else "") \
        + (f" with {_short(data)}" if data else "")
    count = spec.get("count")
    ok = len(found) == count if count is not None else bool(found)
    text = f"{len(found)} x {what}"
    if ok:
        return True, text
    kinds = ", ".join(sorted({e.kind for e in moment.events})) or "none"
    expected = f"exactly {count}" if count is not None else "at least 1"
    return False, f"{text}, expected {expected} (events of this step: {kinds})"


def analysis_batch(moment: Moment, spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of the batch an ``analysis`` expectation asks for, played in this process:
    `games` games from seed `seed` on (new setups, or the scenario's state at this step with
    `from_scenario`), the line-up rotated by a seat a game unless `fixed_seats`."""
    from geomsim.batch import Batch, lineup_of
    from geomsim.bots import play_game

    key = (id(moment.state), len(moment.state.history), json.dumps(plain(spec), sort_keys=True))
    if key in _BATCHES and _BATCHES[key][0] is moment.state:
        return _BATCHES[key][1]
    game, players = moment.scenario.game, moment.state.num_players
    # The scenario's options rule its batches; the mapping's own `options` go over them.
    options = {**moment.scenario.options, **(spec.get("options") or {})}
    batch = Batch(game.name, players, lineup_of(analysis_bots(spec), players),
                  spec.get("seed", 0), spec["games"], not spec.get("fixed_seats", False),
                  options=options)
    start = moment.state if spec.get("from_scenario") else None
    rows = [play_game(game, players, batch.lineup(s), s, start, spec.get("max_steps", 100_000),
                      by_turn=batch.rotate, options=options or None).to_row()
            for s in batch.seeds()]
    while len(_BATCHES) >= 4:
        _BATCHES.pop(next(iter(_BATCHES)))
    _BATCHES[key] = (moment.state, rows)
    return rows


# The batches asked last, by the moment's state (object and actions applied: steps go on on the
# same object) and the mapping: expectations of one moment that ask the same batch share its
# games (the state is kept, so its id stays its own).
_BATCHES: dict[tuple[int, int, str], tuple[State, list[dict[str, Any]]]] = {}


def analysis_bots(spec: Mapping[str, Any]) -> list[str]:
    """The bot specs of an ``analysis`` mapping (a list, or one comma-separated string)."""
    bots = spec["bots"]
    return split_bots(bots) if isinstance(bots, str) else [b.strip() for b in bots if b.strip()]


def expect_analysis(moment: Moment, exp: Expectation) -> Claim:
    """A batch question: play the games asked for and measure the claim on them (decided with
    the scenario's other claims: `geomsim.scenario.claims.settle`)."""
    from geomsim.scenario.claims import VERSUS, claim

    spec, asked = exp.spec, exp.spec["analysis"]
    rows = analysis_batch(moment, asked)
    other = next((spec[k] for k in VERSUS if k in spec), None)
    other_rows = (analysis_batch(moment, other["analysis"])
                  if isinstance(other, Mapping) and "analysis" in other else None)
    seeds = f"seeds {rows[0]['seed']}-{rows[-1]['seed']}" if rows else "no seeds"
    where = f"in {len(rows)} games of {', '.join(analysis_bots(asked))} from {seeds}"
    return claim(rows, spec, other_rows, where)


CORE_EXPECTATIONS: dict[str, Callable[[Moment, Expectation], Outcome | Claim]] = {
    "legal": expect_legal, "illegal": expect_illegal, "score": expect_score, "scores": expect_scores,
    "winner": expect_winners, "winners": expect_winners, "over": expect_over, "to_move": expect_to_move,
    "property": expect_property, "event": expect_event, "analysis": expect_analysis,
}


def evaluate(moment: Moment, exp: Expectation) -> Outcome | Claim:
    """Check one expectation at a moment: (passes, what was found), or for a batch question
    the `Claim` that the scenario's claims decide together."""
    core = CORE_EXPECTATIONS.get(exp.kind)
    if core is not None:
        return core(moment, exp)
    fn = contributed_kinds(moment.scenario.game, "expectations")[exp.kind]
    spec = {k: v for k, v in exp.spec.items() if k != "note"}
    ok, message = fn(moment.state, spec)
    return bool(ok), str(message)
