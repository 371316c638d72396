"""geomsim under its peers' own test suites: PettingZoo's api, seed and render tests on every
game and player count, OpenSpiel's random simulation test with its copying and serialisation,
and OpenSpiel's ISMCTS against a random player (docs/ecosystem.md). Skipped without the ``rl``
extra (``pip install 'geomsim[rl]'``); CI installs it."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import geomsim  # noqa: E402
from geomsim.envs import anasazi_pose_space, pose_action  # noqa: E402
from geomsim.envs import openspiel as spiel  # noqa: E402
from geomsim.envs.pettingzoo import env  # noqa: E402

SEATS = [(g, p) for g in ("cibola", "aztekz", "anasazi") for p in (2, 3, 4)]
# Enough steps for a whole Cibola or Anasazi game and a good part of an Aztekz one.
CYCLES = 120


@pytest.fixture(autouse=True)
def _quiet(capsys):
    """PettingZoo's tests print their progress and the "human" render prints boards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize(("game", "players"), SEATS)
def test_pettingzoo_api_test(game, players):
    api_test(env(game, players), num_cycles=CYCLES)


@pytest.mark.parametrize(("game", "players"), SEATS)
def test_pettingzoo_seed_test(game, players):
    seed_test(lambda: env(game, players), num_cycles=20)


@pytest.mark.parametrize(("game", "players"), SEATS)
def test_pettingzoo_render_test(game, players):
    render_test(lambda render_mode=None: env(game, players, render_mode=render_mode))


def test_pettingzoo_game_to_the_end_gives_returns_and_scores():
    aec = env("cibola", 3)
    aec.reset(seed=3)
    rng, rewards, infos = np.random.default_rng(0), {}, {}
    for agent in aec.agent_iter():
        obs, reward, done, truncated, info = aec.last()
        assert not truncated
        if done:
            rewards[agent], infos[agent] = reward, info
            aec.step(None)
            continue
        assert reward == 0.0  # rewards come at the end
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = aec.unwrapped.state
    assert state.is_over()
    assert rewards == {f"player_{p}": r for p, r in enumerate(state.returns())}
    assert all(i == {"scores": state.scores(), "winners": state.winners()} for i in infos.values())


def test_pettingzoo_sealed_sends_stay_sealed():
    """`cibola/send/sealed`: the sends are taken one agent at a time, and the next sender's
    observation is the same whatever the earlier sender sealed."""
    seen = []
    for sent in (0, 4):
        aec = env("cibola", 3)
        aec.reset(seed=1)
        assert aec.agent_selection == "player_0"
        aec.step(geomsim.load_game("cibola").action_id(geomsim.load_game("cibola").parse_action(
            f"send {sent}")))
        assert aec.agent_selection == "player_1"
        seen.append(aec.observe("player_1"))
    assert np.array_equal(seen[0]["observation"], seen[1]["observation"])
    assert np.array_equal(seen[0]["action_mask"], seen[1]["action_mask"])


def test_pettingzoo_illegal_id_names_the_rule():
    aec = env("cibola", 2)
    aec.reset(seed=0)
    take = geomsim.load_game("cibola").action_id(geomsim.load_game("cibola").parse_action("take A"))
    with pytest.raises(geomsim.IllegalAction, match="cibola/round/stages"):
        aec.step(take)


@pytest.mark.parametrize("game", ["cibola", "aztekz", "anasazi"])
def test_pettingzoo_masked_out_ids_raise_and_change_nothing(game):
    """Every id the mask sets to 0 (Anasazi's last id, "a legal action the rules sample",
    included while a listed id is legal) raises `IllegalAction`: the game and the agent to
    move stay as they were (docs/ecosystem.md)."""
    aec = env(game, 2)
    aec.reset(seed=2)
    rng = np.random.default_rng(0)
    last = aec.action_space("player_0").n - 1
    tried_last = 0
    for step in range(30):
        agent = aec.agent_selection
        mask = aec.observe(agent)["action_mask"]
        masked = np.flatnonzero(mask == 0)
        if step % 5 == 0:
            chosen = {int(i) for i in rng.choice(masked, size=min(30, len(masked)), replace=False)}
            if mask[last] == 0:
                chosen.add(last)
                tried_last += 1
            for i in sorted(chosen):
                before = aec.unwrapped.state.to_json()
                with pytest.raises(geomsim.IllegalAction):
                    aec.step(i)
                assert aec.unwrapped.state.to_json() == before, f"id {i} changed the game"
                assert aec.agent_selection == agent
        aec.step(int(rng.choice(np.flatnonzero(mask))))
    assert tried_last > 0


@pytest.mark.parametrize(("game", "players", "sims"), [
    ("cibola", 2, 3), ("cibola", 3, 2), ("cibola", 4, 2), ("aztekz", 2, 1), ("anasazi", 2, 1)])
def test_openspiel_random_sim_test_with_serialisation(game, players, sims):
    loaded = pyspiel.load_game(spiel.short_name(game), {"players": players})
    # Anasazi's discretisation has one more id: "one legal action the rules pick"
    picked = spiel.picked_id(geomsim.load_game(game), players) is not None
    assert picked == (game == "anasazi")
    assert loaded.num_distinct_actions() == (geomsim.load_game(game).num_distinct_actions(players)
                                             + picked)
    pyspiel.random_sim_test(loaded, num_sims=sims, serialize=True, verbose=False)


def _anasazi_in_play(players: int = 3, deal: int = 5, steps: int = 20):
    loaded = pyspiel.load_game(spiel.short_name("anasazi"), {"players": players})
    state = loaded.new_initial_state()
    state.apply_action(deal)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return loaded, state


def test_openspiel_anasazi_offers_the_rules_pick_only_where_no_listed_id_is_legal(monkeypatch):
    """Where the fixed ids list no legal action (rare: a table whose legal placements all lie
    off the grid), the last id is the only legal one and stands for a legal action drawn from
    the state itself: the same state picks the same action, so id histories replay."""
    loaded, state = _anasazi_in_play()
    picked = loaded.num_distinct_actions() - 1
    assert state.legal_actions() and picked not in state.legal_actions()
    with pytest.raises(Exception, match="not legal: listed ids are"):
        state.clone().apply_action(picked)
    player = state.current_player()
    inner = type(state.inner)
    monkeypatch.setattr(inner, "legal_action_ids", lambda self, p=None: [])
    fresh = [s.clone() for s in (state, state)]
    for s in fresh:
        s._held.legal.clear()  # what a state asked before the ids were taken away had cached
    assert [s.legal_actions() for s in fresh] == [[picked], [picked]]
    assert fresh[0].action_to_string(player, picked) == spiel.PICKED
    for s in fresh:
        s.apply_action(picked)
    assert fresh[0].inner.to_json() == fresh[1].inner.to_json() != state.inner.to_json()
    (_, action, _), = fresh[0].inner.history[len(state.inner.history):]
    assert action == spiel.picked_action(state.inner, player)


@pytest.mark.parametrize("game", ["cibola", "aztekz"])
def test_openspiel_deepcopy_and_pickle_keep_the_game(game):
    loaded = pyspiel.load_game(spiel.short_name(game), {"players": 3})
    state = loaded.new_initial_state()
    rng = np.random.default_rng(0)
    state.apply_action(17)  # the deal
    for _ in range(25):
        state.apply_action(int(rng.choice(state.legal_actions())))
    for other in (copy.deepcopy(state), pickle.loads(pickle.dumps(state)), state.clone()):
        assert other.history() == state.history()
        assert other.inner.to_json() == state.inner.to_json()
        for p in range(3):
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
    assert pickle.loads(pickle.dumps(loaded)) == loaded


def test_openspiel_information_state_hides_sealed_numbers():
    """A later sender's information state and observation are the same whatever the earlier
    sender sealed; the earlier sender's own differ."""
    loaded = pyspiel.load_game(spiel.short_name("cibola"), {"players": 2})
    views = []
    for sent in (1, 3):
        state = loaded.new_initial_state()
        state.apply_action(5)
        state.apply_action(sent)  # send ids are the numbers sent
        views.append((state.information_state_string(1), state.observation_string(1),
                      state.information_state_tensor(1), state.information_state_string(0)))
    assert views[0][:3] == views[1][:3]
    assert views[0][3] != views[1][3]


def test_openspiel_ismcts_plays_a_game_against_random():
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots import uniform_random

    loaded = pyspiel.load_game(spiel.short_name("cibola"), {"players": 2})
    search = ismcts.ISMCTSBot(
        game=loaded, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(1),
        evaluator=mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(0)))
    rand = uniform_random.UniformRandomBot(1, np.random.RandomState(2))
    state = loaded.new_initial_state()
    state.apply_action(11)
    while not state.is_terminal():
        bot = search if state.current_player() == 0 else rand
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert sorted(state.returns()) in ([0.0, 1.0], [0.5, 0.5])


def test_openspiel_resample_keeps_what_the_player_knows():
    loaded = pyspiel.load_game(spiel.short_name("aztekz"), {"players": 2})
    state = loaded.new_initial_state()
    state.apply_action(3)
    rng = np.random.default_rng(1)
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    drawn = [state.resample_from_infostate(player, sampler) for _ in range(3)]
    for other in drawn:
        assert other.information_state_string(player) == state.information_state_string(player)
    decks = {tuple(d.inner.deck.cards) for d in drawn}
    assert len(decks) > 1  # the hidden deck order is drawn anew


def test_anasazi_pose_box_with_the_rules_verdict():
    state = geomsim.load_game("anasazi").new_state(2, seed=1)
    box = anasazi_pose_space(state)
    assert box.shape == (3,) and box.high[0] == 400.0
    box.seed(0)
    verdicts = [pose_action(state, box.sample())[1] for _ in range(40)]
    legal = [v for v in verdicts if v.ok]
    illegal = [v for v in verdicts if not v.ok]
    assert legal and illegal  # some poses land in valleys, some on mesas or off the table
    assert all(r.startswith("anasazi/") for v in illegal for r in v.rules)
    action, verdict = pose_action(state, (10.0, 0.0, 0.0), expedition="E1")
    assert str(action) == "marker E1 at 10.0,0.0 heading 0.0" and "anasazi/3.0/setup-camps" in verdict.rules


def test_the_pose_space_of_a_game_without_poses_says_so():
    state = geomsim.load_game("cibola").new_state(2, seed=1)
    with pytest.raises(ValueError, match="^cibola has no continuous poses: the pose space is Anasazi's$"):
        anasazi_pose_space(state)
