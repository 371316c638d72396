"""One browser tab's game: the moments played (snapshots), the cursor, the bots, the
expectations the user ticked, and what is written out (scenario, setup, drawings).

The history is the session's own: a snapshot of the state after every step, so undo, step back
and step forward are exact and cost no replay. Every change bumps `version`; a request that
changes something names the version it saw, and a stale one (after an undo in the same tab, say)
is refused with nothing changed.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import yaml

from geomsim.bots import Bot, make_bot
from geomsim.notation import rounded
from geomsim.rules import Action, Event, FiniteActionSpace, Game, IllegalAction, State, Verdict
from geomsim.web.hooks import GameWeb, WebError, web_hooks

JSON = Any

ACTIONS_SHOWN = 300  # legal actions listed at most per player (a finite space may be larger)
SAMPLES_SHOWN = 8  # legal actions sampled for a continuous space
BOT_STEPS = 2000  # bot actions one request plays at most
BOT_SECONDS = 20.0  # ... and for how long
# What the page lets a seated bot think a move: a longer budget is refused when seated, so
# that a bot holds a worker of `BotRunner` for seconds, not minutes.
PAGE_BOT_SECONDS = 10.0
PAGE_BOT_ITERATIONS = 1000
DEAL_STEPS = 200  # setup decisions a deal makes at most (Anasazi's 4 players make 20)
LAST_STEPS = 12  # steps "Last events" lists at most
BOT_WORKERS = 2  # bot moves the server computes at once, whatever the number of sessions
LOG = logging.getLogger("geomsim.web")


@dataclass(frozen=True)
class Start:
    """How a session's game begins: a game, its players, a seed and/or setup data, and
    optionally steps to play first (a scenario's)."""

    game: Game
    players: int
    seed: int | None = None
    setup: JSON = None
    steps: tuple[tuple[int | None, Action], ...] = ()
    title: str = ""

    def new_state(self) -> State:
        """The state before any step."""
        return self.game.new_state(self.players, seed=self.seed, setup=self.setup)


@dataclass(frozen=True)
class Record:
    """One step played: who, the action in text form, what happened, who was to move before."""

    player: int
    text: str
    events: tuple[Event, ...]
    movers: tuple[int, ...]
    by: str = "hand"  # "hand", or the bot's spec


@dataclass
class Added:
    """An expectation the user added at a moment (a verdict on an action), as a scenario writes it."""

    id: str
    moment: int
    spec: JSON
    words: str


@dataclass
class Session:
    """The game of one browser tab."""

    start: Start
    id: str = ""
    states: list[State] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    cursor: int = 0
    version: int = 0
    seats: list[str | None] = field(default_factory=list)  # None: played by hand
    added: list[Added] = field(default_factory=list)
    ticked: set[str] = field(default_factory=set)
    viewer: int | None = None  # whose knowledge the board shows (None: the player to move)
    reveal: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Bots in the background (`BotRunner`): a job runs, the page asked for one since it read
    # the version, the session is dropped, the last bot failure.
    thinking: bool = False
    bots_asked: bool = False
    closed: bool = False
    bot_error: str | None = None

    def __post_init__(self) -> None:
        self.hooks: GameWeb = web_hooks(self.start.game)
        if not self.states:
            self.states = [self.start.new_state()]
            for player, action in self.start.steps:
                self._push(player, action, "scenario")
            self.version = 0
        if not self.seats:
            self.seats = [None] * self.start.players

    # -- the moment shown ------------------------------------------------------------------------
    @property
    def state(self) -> State:
        """The state at the cursor."""
        return self.states[self.cursor]

    @property
    def game(self) -> Game:
        """The game played."""
        return self.start.game

    def expect_version(self, version: Any) -> None:
        """Refuse a request made on another version of the game than this one."""
        if isinstance(version, bool) or not isinstance(version, int):
            raise WebError(f"version must be a whole number, not {version!r:.60}")
        if version != self.version:
            raise WebError(f"stale request: the game has changed since (version {version}, now "
                           f"{self.version}); nothing was done", status=409)

    def player_of(self, value: Any) -> int | None:
        """A player number from a request (None: the one player to move)."""
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < self.start.players:
            return value
        raise WebError(f"player must be 0 to {self.start.players - 1}, not {value!r:.60}")

    def _bump(self) -> None:
        self.version += 1

    # -- playing -----------------------------------------------------------------------------
    def parse(self, text: Any) -> Action:
        """The action written `text` in the game's notation."""
        if not isinstance(text, str) or not text.strip() or len(text) > 500:
            raise WebError(f"action must be a text of at most 500 characters, not {text!r:.80}")
        try:
            return self.game.parse_action(text.strip())
        except ValueError as e:
            raise WebError(f"cannot read {text.strip()!r}: {e}") from None

    def check(self, action: Action, player: int | None) -> tuple[int, Verdict]:
        """`state.check` of the moment shown, and the player it was for."""
        state = self.state
        who = self._resolve(state, player)
        return who, state.check(action, who)

    def _resolve(self, state: State, player: int | None) -> int:
        if player is not None:
            return player
        movers = state.to_move()
        if len(movers) != 1:
            raise WebError("name the player: " + ("the game is over" if not movers else
                           f"players {', '.join(map(str, movers))} are to move"))
        return movers[0]

    def play(self, player: int | None, action: Action, bots: bool = True) -> int:
        """Apply `action` by `player` at the cursor (the moments after it are dropped), then let
        the bots move here when `bots` (the app has a `BotRunner` move them instead); return
        the number of the step played. `IllegalAction` leaves everything as it was."""
        who = self._resolve(self.state, player)
        if self.seats[who] is not None and who in self.state.to_move():
            raise WebError(f"player {who} is played by the bot {self.seats[who]}")
        self._push(who, action, "hand")
        n = self.cursor
        self._bump()
        if bots:
            self.play_bots()
        return n

    def _push(self, player: int | None, action: Action, by: str) -> Record:
        state = self.state.clone()
        who = self._resolve(state, player)
        movers = state.to_move()
        events = state.apply(action, who)  # IllegalAction: nothing appended
        del self.states[self.cursor + 1:], self.records[self.cursor:]
        self.added = [a for a in self.added if a.moment <= self.cursor]
        record = Record(who, str(action), tuple(events), movers, by)
        self.states.append(state)
        self.records.append(record)
        self.cursor += 1
        return record

    def play_bots(self, limit: int = BOT_STEPS) -> int:
        """Let the bots of the seats to move decide until a human is to move or the game ends
        (here, in the caller's thread; the app's page uses `BotRunner`)."""
        played, clock = 0, time.monotonic()
        while played < limit and time.monotonic() - clock < BOT_SECONDS:
            turn = self.bot_turn()
            if turn is None:
                break
            p, bot, rng = turn
            self._push(p, bot.choose(self.state, p, rng), bot.spec)
            played += 1
        if played:
            self._bump()
        return played

    def bot_turn(self) -> tuple[int, Bot, np.random.Generator] | None:
        """The first seat to move that a bot plays, its bot and the generator of its move (the
        same for the same game and step); None when no bot is to move."""
        bots = [(p, spec) for p in self.state.to_move() if (spec := self.seats[p]) is not None]
        if not bots:
            return None
        p, spec = bots[0]
        return p, make_bot(spec), np.random.default_rng([self.start.seed or 0, len(self.records), p])

    def deal(self) -> int:
        """Deal the setup at random: while the game's hooks say the moment is in its setup,
        the player to move takes a legal action drawn from a generator of the game's seed (the
        same seed deals the same setup). Returns the number of steps played ("deal" steps)."""
        rng = np.random.default_rng([self.start.seed or 0, 0xDEA1])
        played = 0
        while played < DEAL_STEPS and self.hooks.in_setup(self.state):
            player = self.state.to_move()[0]
            found = self.state.legal_actions(player).sample(rng, 1)
            if not found:
                break
            self._push(player, found[0], "deal")
            played += 1
        if not played:
            raise WebError("nothing to deal: the game is past its setup")
        self._bump()
        return played

    def set_seats(self, seats: Any) -> None:
        """Seat a bot (a spec for `geomsim.bots.make_bot`) or a human (None or "") per player."""
        if not isinstance(seats, list) or len(seats) != self.start.players:
            raise WebError(f"seats must be a list of {self.start.players} bot specs or nulls")
        found: list[str | None] = []
        for p, spec in enumerate(seats):
            if spec in (None, "", "hand"):
                found.append(None)
                continue
            if not isinstance(spec, str) or len(spec) > 100:
                raise WebError(f"seat {p}: a bot spec is a short text, not {spec!r:.60}")
            try:
                bot = make_bot(spec)
            except ValueError as e:
                raise WebError(f"seat {p}: {e}") from None
            _check_page_budget(p, bot)
            found.append(spec)
        self.seats = found
        self._bump()

    def undo(self) -> None:
        """Take back the step before the cursor (and drop the moments after it)."""
        if self.cursor == 0:
            raise WebError("nothing to undo: this is the start of the game")
        self.cursor -= 1
        del self.states[self.cursor + 1:], self.records[self.cursor:]
        self.added = [a for a in self.added if a.moment <= self.cursor]
        self._bump()

    def move(self, delta: int) -> None:
        """Step back (-1) or forward (+1) through the moments played, keeping them all."""
        to = self.cursor + delta
        if not 0 <= to < len(self.states):
            raise WebError("no step " + ("before the start" if to < 0 else "after the last one"))
        self.cursor = to
        self._bump()

    # -- expectations -----------------------------------------------------------------------------
    def add_verdict(self, player: int | None, action: Action) -> Added:
        """Expect the verdict that `state.check` gives now on `action` (legal, or illegal by its
        rules) in the saved scenario."""
        who, verdict = self.check(action, player)
        text = f"{who}: {action}"
        spec: JSON
        if verdict.ok:
            spec, words = {"legal": text}, f"legal: {text}"
        else:
            rules = list(dict.fromkeys(verdict.rules))
            spec = {"illegal": text, "rule": rules}
            words = f"illegal: {text} ({', '.join(rules)})"
        added = Added(f"verdict:{len(self.added)}:{self.version}", self.cursor, spec, words)
        self.added.append(added)
        self.ticked.add(added.id)
        self._bump()
        return added

    def tick(self, id: Any, on: Any) -> None:
        """Tick (or untick) an expectation for the saved scenario."""
        if not isinstance(id, str) or not isinstance(on, bool):
            raise WebError("tick needs an expectation id and true or false")
        if id not in {c["id"] for c in self.candidates()}:
            raise WebError(f"no expectation {id!r:.60} at this moment")
        (self.ticked.add if on else self.ticked.discard)(id)
        self._bump()

    def candidates(self) -> list[JSON]:
        """Every expectation the user may tick for the steps so far: the events of each step,
        the verdicts added, and the scores, players to move and winners now."""
        found: list[tuple[str, int | None, JSON, str]] = []  # id, moment (None: at the end), spec, words
        for n, rec in enumerate(self.records[:self.cursor], 1):
            if self.sealed(n):
                continue  # its events would tell what is sealed
            for i, ev in enumerate(rec.events):
                spec: JSON = {"event": ev.kind}
                if ev.player is not None:
                    spec["player"] = ev.player
                data = {k: v for k, v in ev.data.items()
                        if isinstance(v, (str, int)) and not isinstance(v, bool)}
                if data:
                    spec["data"] = data
                found.append((f"event:{n}:{i}", n, spec, f"step {n}: {self.hooks.describe(ev)}"))
        found += [(a.id, a.moment, a.spec, f"step {a.moment}: {a.words}" if a.moment else
                   f"start: {a.words}") for a in self.added if a.moment <= self.cursor]
        state = self.state
        found.append(("final:scores", None, {"scores": [float(s) for s in state.scores()]},
                      "at the end: scores " + ", ".join(f"{s:g}" for s in state.scores())))
        found.append(("final:to_move", None, {"to_move": list(state.to_move())},
                      f"at the end: to move {list(state.to_move())}"))
        if state.is_over():
            found.append(("final:winners", None, {"winners": list(state.winners())},
                          f"at the end: winners {list(state.winners())}"))
        return [{"id": i, "moment": m, "spec": s, "words": rounded(w), "ticked": i in self.ticked}
                for i, m, s, w in found]

    # -- writing out ----------------------------------------------------------------------------
    def scenario(self) -> dict[str, Any]:
        """The steps played up to the cursor as a scenario (``geomsim run`` replays it), with
        every expectation ticked; refused while a sealed choice waits (the file would show it)."""
        if any(self.sealed(n) for n in range(1, self.cursor + 1)):
            raise WebError("a sealed choice is not revealed yet: save once the round is over "
                           "(or step back before it)", status=409)
        start = self.start
        data: dict[str, Any] = {"game": self.game.name,
                                "description": f"Saved from geomsim serve: {start.title or self.game.name}, "
                                               f"{self.cursor} step(s).",
                                "players": start.players}
        if start.seed is not None:
            data["seed"] = start.seed
        if start.setup is not None:
            data["setup"] = start.setup
        at: dict[int | None, list[JSON]] = {}
        for c in self.candidates():
            if c["ticked"]:
                at.setdefault(c["moment"], []).append(c["spec"])
        steps: list[JSON] = [{"expect": at[0]}] if at.get(0) else []
        for n, rec in enumerate(self.records[:self.cursor], 1):
            step: dict[str, Any] = {"action": f"{rec.player}: {rec.text}"}
            if rec.by != "hand":
                step["note"] = f"played by {rec.by}"
            if at.get(n):
                step["expect"] = at[n]
            steps.append(step)
        data["steps"] = steps
        if at.get(None):
            data["expect"] = at[None]
        return data

    def scenario_yaml(self) -> str:
        """`scenario` as YAML text."""
        return yaml.safe_dump(self.scenario(), sort_keys=False, allow_unicode=True, width=100)

    def setup_data(self) -> JSON:
        """The setup data this game started from (made from the seed when it was not given)."""
        if self.start.setup is not None:
            return self.start.setup
        try:
            return self.game.make_setup(self.start.players, self.start.seed or 0)
        except NotImplementedError as e:
            raise WebError(str(e)) from None

    # -- what the page shows ------------------------------------------------------------------------
    def sealed(self, n: int) -> bool:
        """Whether step `n` (1-based) is a sealed choice not yet revealed: made while several
        players were to move, and each step since (up to the cursor) was another choice of that
        round, which still waits for the players now to move."""
        rec = self.records[n - 1]
        if len(rec.movers) < 2:
            return False
        waiting = set(rec.movers) - {rec.player}
        for later in self.records[n:self.cursor]:
            if set(later.movers) != waiting:
                return False
            waiting -= {later.player}
        return bool(waiting) and set(self.state.to_move()) == waiting

    def actions(self) -> JSON:
        """The legal actions of each player to move (humans and bots alike), in text form."""
        state, out = self.state, {}
        for p in state.to_move():
            space = state.legal_actions(p)
            if isinstance(space, FiniteActionSpace):
                items = [str(a) for a in list(space)[:ACTIONS_SHOWN]]
                out[p] = {"finite": True, "count": len(space), "items": items}
            else:
                rng = np.random.default_rng([self.version, p])
                items = list(dict.fromkeys(str(a) for a in space.sample(rng, SAMPLES_SHOWN)))
                out[p] = {"finite": False, "count": None, "items": items}
            out[p]["labels"] = [rounded(a) for a in items]  # for reading; a click plays the item
        return out

    def history(self) -> list[JSON]:
        """Every step: who, the action in text form and its events in words (a sealed choice
        not yet revealed shows neither)."""
        found = []
        for n, rec in enumerate(self.records, 1):
            hidden = n <= self.cursor and self.sealed(n)
            found.append({"n": n, "player": rec.player, "by": rec.by,
                          "text": None if hidden else rec.text,
                          "label": None if hidden else rounded(rec.text),
                          "events": [] if hidden else [self.hooks.describe(e) for e in rec.events]})
        return found

    def view(self) -> dict[str, Any]:
        """Everything the page draws: the board, who is to move, the legal actions, the history,
        the expectations, the seats."""
        state = self.state
        movers = state.to_move()
        viewer = self.shown_as()
        history = self.history()
        return {
            "session": self.id, "version": self.version, "game": self.game.name,
            "title": self.start.title, "players": self.start.players,
            "to_move": list(movers), "over": state.is_over(),
            "scores": [float(s) for s in state.scores()], "winners": list(state.winners()),
            "cursor": self.cursor, "length": len(self.records), "history": history,
            "actions": {str(p): a for p, a in self.actions().items()},
            "board": self.hooks.board(state, viewer, self.reveal).to_json(),
            "viewer": self.viewer, "shown_as": viewer, "reveal": self.reveal,
            "seats": self.seats, "expectations": self.candidates(),
            "thinking": self.thinking, "bot_error": self.bot_error,
            "offers": self.hooks.offers(state) if movers else [],
            "last": history[self.last_from():self.cursor], "can_deal": self.hooks.in_setup(state),
        }

    def shown_as(self) -> int | None:
        """Whose knowledge the board shows: the viewer chosen, else the one player to move if
        played by hand, else the one seat played by hand (a bot's secrets, its objective or the
        towers it saw, are never shown by default), else nobody's."""
        if self.viewer is not None:
            return self.viewer
        movers = self.state.to_move()
        if len(movers) == 1 and self.seats[movers[0]] is None:
            return movers[0]
        hands = [p for p, seat in enumerate(self.seats) if seat is None]
        return hands[0] if len(hands) == 1 else None

    def last_from(self) -> int:
        """Where "Last events" begins: the steps up to the cursor since the last one played by
        hand (that one included: the bots' answers and a deal come after it), at most
        `LAST_STEPS` (0-based index of the first)."""
        first = self.cursor
        while first > 0 and self.cursor - first < LAST_STEPS:
            first -= 1
            if self.records[first].by == "hand":
                break
        return first

    def applied(self, n: int) -> str:
        """Step `n` (1-based) as the page lists it after playing it: who, and what unless it is a
        sealed choice not yet revealed."""
        record = self.records[n - 1]
        return f"{record.player}: {'(a sealed choice)' if self.sealed(n) else record.text}"


def _check_page_budget(seat: int, bot: Bot) -> None:
    """Refuse a bot whose budget a move exceeds what the page lets a bot think."""
    seconds, iterations = getattr(bot, "seconds", None), getattr(bot, "iterations", None)
    if isinstance(seconds, (int, float)) and seconds > PAGE_BOT_SECONDS:
        raise WebError(f"seat {seat}: in the page a bot thinks at most {PAGE_BOT_SECONDS:g} s a "
                       f"move, not {seconds:g} s (`geomsim run` takes longer budgets)")
    if seconds is None and isinstance(iterations, int) and iterations > PAGE_BOT_ITERATIONS:
        raise WebError(f"seat {seat}: in the page a bot searches at most {PAGE_BOT_ITERATIONS} "
                       f"iterations a move, not {iterations} (`geomsim run` takes more)")


class BotRunner:
    """Plays the seated bots of sessions off the request threads: `workers` threads of its own
    compute the bot moves of every session, one job at a time per session. A bot thinks on a
    copy of the state without the session's lock, so the page's requests never wait for it;
    its move is played only if nothing changed meanwhile."""

    def __init__(self, workers: int = BOT_WORKERS):
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="geomsim-bots")
        self.stopping = False

    def start(self, session: Session) -> None:
        """Ask the bots of `session` to move (the caller holds its lock): a job starts, or the
        one running goes on from the version now."""
        if session.bot_turn() is None:
            return
        session.bots_asked, session.bot_error = True, None
        if not session.thinking:
            session.thinking = True
            self._pool.submit(self._run, session)

    def close(self) -> None:
        """Stop every job after the move it is thinking (the server is stopping)."""
        self.stopping = True
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, session: Session) -> None:
        try:
            self._play(session)
        except Exception as e:  # a broken bot: the page says so, the server goes on
            LOG.error("bot failed in session %s", session.id, exc_info=e)
            with session.lock:
                session.thinking, session.bot_error = False, f"a bot failed: {type(e).__name__}: {e}"

    def _play(self, session: Session) -> None:
        played, clock, version = 0, time.monotonic(), session.version
        while True:
            with session.lock:
                if session.bots_asked:  # asked again: from this version, a fresh budget
                    session.bots_asked, played, clock = False, 0, time.monotonic()
                    version = session.version
                turn = session.bot_turn()
                if (turn is None or session.version != version or session.closed or self.stopping
                        or played >= BOT_STEPS or time.monotonic() - clock > BOT_SECONDS):
                    session.thinking = False
                    return
                p, bot, rng = turn
                state = session.state.clone()
            action = bot.choose(state, p, rng)
            with session.lock:
                if session.version == version and not session.closed:
                    session._push(p, action, bot.spec)
                    session._bump()
                    version, played = session.version, played + 1

def illegal(e: IllegalAction) -> WebError:
    """An illegal action as the page shows it: the rules broken, with words and numbers."""
    return WebError(f"illegal: {e.verdict}", status=422, violations=verdict_json(e.verdict))


def verdict_json(verdict: Verdict) -> list[JSON]:
    """The violations of a verdict as JSON: rule id, words, numbers."""
    return [{"rule": v.rule, "message": v.message, "details": dict(v.details)}
            for v in verdict.violations]
