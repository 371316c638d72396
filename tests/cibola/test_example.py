"""The rulebook's example round, replayed from an explicit setup."""

from __future__ import annotations

from tests.cibola.helpers import COMPONENTS, card_ids, deck_with_top, new, play, sends

# Seats clockwise: Czarek, Paweł (nearest his left), Karolina, Patrycja.
CZAREK, PAWEL, KAROLINA, PATRYCJA = 0, 1, 2, 3


def test_example_round():
    """Rulebook "Example Round": sends 4, 2, 0, 0; 7 in the camp -> 3 each, 1 stays; order
    Czarek, Karolina, Paweł, Patrycja; A has a totem, C a rock; Patrycja takes the torch.
    Rules: cibola/send/camp-share cibola/obtain/order cibola/obtain/zero-last cibola/round/torch."""
    a = card_ids("totem", deck=1)[0]
    b, d = card_ids(None, deck=1)[:2]
    c = card_ids("rock", deck=1)[0]
    explorers = [5, 3, 6, 3]  # Czarek, Paweł, Karolina, Patrycja
    camp = COMPONENTS.explorers - sum(explorers)
    assert camp == 7
    state = new(4, deck=deck_with_top([a, b, c, d]), torch=CZAREK, explorers=explorers, camp=camp,
                totems=[1, 2, 5, 6, 7])  # end-of-game totems: nothing to resolve now
    assert state.row == [a, b, c, d]

    sent = {CZAREK: 4, KAROLINA: 2, PAWEL: 0, PATRYCJA: 0}
    sends(state, *(sent[p] for p in range(4)))
    # Paweł and Patrycja share the 7: 3 each, 1 stays.
    assert state.explorers[PAWEL] == 3 + 3 and state.explorers[PATRYCJA] == 3 + 3
    assert state.camp == 1
    assert state.order == [CZAREK, KAROLINA, PAWEL, PATRYCJA]

    assert state.to_move() == (CZAREK,)
    play(state, "0: take A")
    assert state.camp == 1 + 4  # his sent explorers went to the camp
    assert state.decision[0] == "totem" and state.to_move() == (CZAREK,)
    totem = state.offer[0]
    play(state, f"0: totem {totem}")

    assert state.to_move() == (KAROLINA,)
    play(state, "2: take D")
    assert state.camp == 1 + 4 + 2

    assert state.to_move() == (PAWEL,)
    play(state, "1: take C")
    assert state.decision[0] == "rock" and state.to_move() == (PAWEL,)
    play(state, "1: rock statuette 1")
    assert state.covered[3][0]

    assert state.to_move() == (PATRYCJA,)
    assert [x for x in state.row if x is not None] == [b]
    play(state, "3: take B")
    assert state.torch == PATRYCJA and state.round == 2
    assert state.hands == [[a], [c], [d], [b]]
    assert state.totems[CZAREK] == [totem]
    assert sum(state.explorers) + state.camp == COMPONENTS.explorers
