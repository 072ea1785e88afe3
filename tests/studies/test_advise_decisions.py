"""The advisor's poverty and call advice (dokosim.studies.advise_poverty, advise_calls; ``dokosim
advise --poverty-from / --poverty-give / --record``): scenarios in card notation where one option
is clearly right, and properties (the options are exactly the legal ones, every interval holds
its estimate, a seed gives the same answer on any number of threads, the Game asked about is not
changed)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dokosim.run.players import STRONGEST_FAST
from dokosim.studies import StudyError

EXAMPLE_RECORDS = Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"
DECK = [r + s for s in "CSHD" for r in "ATKQJ9"] * 2
WEAK = "9D 9S 9S KS KH KH 9H 9C KC AC TC 9H"  # one trump, no ace but the clubs'
TOP = "TH TH QC QC QS QS QH QH JC JC AD AD"  # with piglets (club rules) the twelve best trumps
BEST = "TH TH QC QC QS QS QH QH QD QD JC JC"  # without piglets (ddv) the twelve best trumps
POOR = "AD 9D AC AC TC KC AS TS KS AH KH 9H"  # two trumps


def record(hand0: str, play=(), calls=(), rules="ddv") -> dict:
    """A normal deal's record: seat 0 holds ``hand0``, the rest of the pack dealt in order."""
    rest = list(DECK)
    for card in hand0.split():
        rest.remove(card)
    hands = [hand0, " ".join(rest[:12]), " ".join(rest[12:24]), " ".join(rest[24:])]
    return {"rules": rules, "dealer": 3, "hands": hands, "contract": {"type": "normal"}, "play": list(play),
            "announcements": list(calls)}


def mask(hand: str, rules="club") -> int:
    from dokosim.rules import rules_from_object
    from dokosim.studies.advise import parse_hand
    return parse_hand(hand, rules_from_object(rules))


def intervals_hold(result: dict) -> None:
    for name, e in result["options"].items():
        if e["win_chance"] is not None:
            lo, hi = e["win_ci95"]
            assert 0 <= lo <= e["win_chance"] <= hi <= 1, name
        lo, hi = e["score_ci95"]
        assert lo <= e["expected_score"] <= hi, name
        if "gain" in e:
            lo, hi = e["gain_ci95"]
            assert lo <= e["gain"] <= hi, name


def without_time(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "seconds"}


# ---------------------------------------------------------------- poverty: take it?

def test_a_hand_with_one_trump_refuses_a_poverty():
    from dokosim.studies.advise_poverty import accept_advice
    r = accept_advice(mask(WEAK), seat=1, poor=0, rules="club", deals=300, seed=3)
    assert list(r["options"]) == ["refuse", "accept"]
    assert r["recommendation"] == "refuse"
    assert r["options"]["accept"]["gain_ci95"][1] < -3  # the pair holds four trumps or fewer
    assert r["options"]["accept"]["win_chance"] < 0.05
    intervals_hold(r)


def test_the_twelve_best_trumps_take_a_poverty():
    from dokosim.studies.advise_poverty import accept_advice
    r = accept_advice(mask(TOP), seat=2, poor=1, rules="club", deals=300, seed=3)
    assert r["recommendation"] == "accept"
    assert r["options"]["accept"]["gain_ci95"][0] > 3
    assert r["options"]["accept"]["win_chance"] > 0.95
    assert r["refused_before"] == []  # seat 2 is the first asked after seat 1
    intervals_hold(r)


def test_the_offered_cards_are_passed_and_the_seats_asked_before_refuse():
    from dokosim.studies.advise_poverty import accept_advice, parse_cards
    from dokosim.rules import rules_from_object
    club = rules_from_object("club")
    hand = mask(WEAK)
    offered = parse_cards("AD 9D AH", club, hand, inside=False)
    r = accept_advice(hand, seat=3, poor=0, rules=club, offered=offered, deals=200, seed=1)
    assert r["offered"] == "AD 9D AH"
    assert r["refused_before"] == [1, 2]
    assert r["recommendation"] == "refuse"
    intervals_hold(r)


STRONG = "TH QC QS JC JD AD TD KD AS AC TC 9S"  # eight trumps


@pytest.mark.parametrize("hand, offered, counts", [
    (WEAK, "", {1, 2, 3}),  # 11 plain cards unseen: the poor hand holds a trump at least
    (STRONG, "", {0, 1, 2, 3}),
    (WEAK, "AD 9D AH", {2}),
    (STRONG, "AH AS 9C", {0}),
])
def test_the_sampled_poor_hand_may_declare_poverty_and_holds_the_offer(hand, offered, counts):
    import numpy as np

    from dokosim.engine.deal import NORMAL_TRUMPS
    from dokosim.strategies.sampler import deal_with_poverty
    from dokosim.rules import rules_from_object
    from dokosim.studies.advise_poverty import parse_cards
    club = rules_from_object("club")
    own = mask(hand)
    offer = parse_cards(offered, club, own, inside=False) if offered else 0
    rng = np.array([1, 3], dtype=np.uint64)
    hands = np.zeros(4, dtype=np.int64)
    seen = set()
    for _ in range(300):
        assert deal_with_poverty(rng, 1, own, 3, offer, club.packed(), hands)
        assert hands[1] == own and hands[0] | hands[1] | hands[2] | hands[3] == 2**48 - 1
        assert all(bin(int(h)).count("1") == 12 for h in hands)
        poor_trumps = int(hands[3]) & int(NORMAL_TRUMPS)
        assert int(hands[3]) & offer == offer and (not offer or poor_trumps & ~offer == 0)
        seen.add(bin(poor_trumps).count("1"))
    assert seen == counts
    hands[:] = 0
    assert deal_with_poverty(rng, 0, mask(POOR), 0, 0, club.packed(), hands)  # the poor hand is the seat's own
    assert hands[0] == mask(POOR)


def test_an_offer_the_other_cards_cannot_complete_is_refused():
    from dokosim.rules import rules_from_object
    from dokosim.studies.advise_poverty import accept_advice, parse_cards
    club = rules_from_object("club")
    hand = mask(WEAK)  # eleven plain cards: with three more passed, 8 are left for the poor hand's 9
    with pytest.raises(StudyError, match="no deal fits"):
        accept_advice(hand, seat=1, poor=3, rules=club, offered=parse_cards("AH AS 9C", club, hand, inside=False),
                      deals=20)


# ---------------------------------------------------------------- poverty: what to give?

def test_the_passes_compared_are_legal_distinct_and_hold_every_trump():
    from dokosim.loop.advice import pass_error
    from dokosim.rules import rules_from_object
    from dokosim.studies.advise_poverty import give_advice, parse_cards
    club = rules_from_object("club")
    hand = mask(POOR)
    given = parse_cards("AD 9D AC", club, hand, inside=True)
    r = give_advice(hand, seat=0, rules="club", give=[given], deals=100, seed=2)
    names = list(r["options"])
    assert r["baseline"] == names[0] and f"{STRONGEST_FAST}'s choice" in r["options"][names[0]]["chosen_by"]
    assert "AD 9D AC" in names and "given" in r["options"]["AD 9D AC"]["chosen_by"]
    assert len({tuple(sorted(n.split())) for n in names}) == len(names)  # each set once
    for name in names:
        assert {"AD", "9D"} <= set(name.split())  # both trumps go
        assert not pass_error(hand, parse_cards(name, club, hand, inside=True))
    intervals_hold(r)


def test_three_trumps_leave_one_pass():
    from dokosim.studies.advise_poverty import give_advice
    r = give_advice(mask("AD QC JH AC AC TC KC AS TS KS AH KH"), rules="club", deals=50)
    assert list(r["options"]) == ["QC JH AD"]


def test_a_hand_with_four_trumps_may_not_be_poor():
    from dokosim.studies.advise_poverty import give_advice
    with pytest.raises(StudyError, match="more than 3 trumps"):
        give_advice(mask("AD QC JH TD AC TC KC AS TS KS AH KH"), rules="club", deals=50)


def test_poverty_needs_its_house_rule_and_a_poor_player_other_than_the_hand():
    from dokosim.studies.advise_poverty import accept_advice
    with pytest.raises(StudyError, match="no poverty"):
        accept_advice(mask(WEAK, "ddv"), seat=1, poor=0, rules="ddv", deals=50)
    with pytest.raises(StudyError, match="the poor player"):
        accept_advice(mask(WEAK), seat=1, poor=1, rules="club", deals=50)


# ---------------------------------------------------------------- calls

def test_the_twelve_best_trumps_call_and_deny_to_schwarz():
    from dokosim.studies.advise_calls import call_advice, record_position
    game = record_position(record(BEST))  # both queens of clubs, healthy: a silent marriage, alone
    r = call_advice(game, deals=200, seed=1, calls_after="frozen")
    assert r["seat"] == 0 and r["side"] == "re"
    assert list(r["options"]) == ["no call", "re", "re, no90", "re, no90, no60", "re, no90, no60, no30",
                                  "re, no90, no60, no30, schwarz"]
    assert r["recommendation"] == "re, no90, no60, no30, schwarz"
    assert r["options"]["re"]["gain_ci95"][0] > 0
    assert r["options"]["re, no90, no60, no30, schwarz"]["win_chance"] == 1.0
    intervals_hold(r)


@pytest.mark.parametrize("calls_after", ["strategy", "frozen"])
def test_kontra_on_a_hand_of_nines_and_kings_loses(calls_after):
    from dokosim.studies.advise_calls import call_advice, record_position
    r = call_advice(record_position(record("9C 9C KC KC 9S 9S KS KS 9H 9H KH KH")), deals=300, seed=1,
                    calls_after=calls_after)
    assert r["side"] == "kontra" and "kontra" in r["options"]
    assert r["recommendation"] == "no call"
    assert r["options"]["kontra"]["gain_ci95"][1] < 0
    intervals_hold(r)


def random_call_positions(count: int):
    """Games at a call decision: deals of seed 7 played by ``random`` (which calls often) until a
    seat is asked for a call after a random number of cards."""
    import numpy as np

    from dokosim.game.agents import Agent
    from dokosim.game.game import Game
    rng = np.random.default_rng(5)
    agent = Agent("random", p_call=0.3)
    found, deal_id = [], 0
    while len(found) < count:
        game = Game(seed=7, deal_id=deal_id)
        deal_id += 1
        stop = int(rng.integers(0, 24))
        while not game.is_terminal():
            if game.phase == "call" and game.cards_played >= stop:
                found.append(game)
                break
            game.apply_action(agent.act(game))
    return found


def test_the_options_are_exactly_the_calls_legal_for_the_seat():
    from dokosim.game.game import ACTION_NAMES
    from dokosim.studies.advise_calls import call_advice
    for game in random_call_positions(4):
        legal = {ACTION_NAMES[a] for a in game.legal_actions()}
        before = (game._g.copy(), game._rng.copy())
        r = call_advice(game, deals=20, seed=0)
        assert {e["action"] for e in r["options"].values()} == legal
        assert list(r["options"])[0] == "no call"
        assert (game._g == before[0]).all() and (game._rng == before[1]).all()  # the game is not changed
        intervals_hold(r)


def test_another_seat_is_asked_in_a_round_of_its_own():
    from dokosim.studies.advise_calls import call_advice, record_position
    game = record_position(record(TOP))
    r = call_advice(game, seat=2, deals=20)
    assert r["seat"] == 2 and r["side"] == "kontra" and "kontra" in r["options"]


def test_a_seat_too_late_for_any_call_is_told_so():
    from dokosim.engine.game_state import A_PASS
    from dokosim.game.agents import Agent
    from dokosim.studies.advise_calls import call_advice, record_position
    game = record_position(record(TOP))
    agent = Agent("simple")
    while game.cards_played < 24:  # half the deal without a call: too late for any first call
        game.apply_action(A_PASS if game.phase == "call" else agent.act(game))
    with pytest.raises(StudyError, match="may make no call"):
        call_advice(game, seat=1, deals=20)


def test_a_cut_past_the_record_and_a_finished_deal_are_refused():
    from dokosim.studies.advise_calls import call_advice, record_position
    with pytest.raises(StudyError, match="at=5 is not valid"):
        record_position(record(TOP), at=5)
    with pytest.raises(StudyError, match="the deal is over"):
        call_advice(record_position(EXAMPLE_RECORDS.read_text().splitlines()[0]), deals=20)


def test_the_same_seed_gives_the_same_answer_on_any_number_of_threads():
    from dokosim.studies.advise_calls import call_advice, record_position
    from dokosim.studies.advise_poverty import accept_advice
    game = record_position(record("QC TH JC JD AD TD KD AC TC AS 9S KH"))
    one = call_advice(game, deals=600, seed=4, threads=1)
    two = call_advice(game, deals=600, seed=4, threads=2)
    assert without_time(one) == without_time(two)
    assert without_time(call_advice(game, deals=600, seed=5)) != without_time(one)
    a = accept_advice(mask(POOR), seat=1, poor=3, rules="club", deals=600, seed=4, threads=1)
    b = accept_advice(mask(POOR), seat=1, poor=3, rules="club", deals=600, seed=4, threads=2)
    assert without_time(a) == without_time(b)


@pytest.mark.parametrize("call, kwargs", [
    ("accept", {"seat": "1"}), ("accept", {"poor": 9}), ("accept", {"mask": -1}), ("accept", {"deals": 0}),
    ("accept", {"threads": 0}), ("accept", {"progress": 3}), ("accept", {"strategy": "nobody"}),
    ("accept", {"offered": 7}), ("give", {"give": "AD"}), ("give", {"give": [1.5]}), ("give", {"seed": -1}),
    ("calls", {"game": "a game"}), ("calls", {"seat": 4}), ("calls", {"calls_after": "never"}),
    ("calls", {"strategy": 3}),
])
def test_bad_arguments_are_refused_as_study_errors(call, kwargs):
    from dokosim.studies.advise_calls import call_advice, record_position
    from dokosim.studies.advise_poverty import accept_advice, give_advice
    if call == "calls":
        args = {"game": record_position(record(BEST)), "deals": 10, **kwargs}
        with pytest.raises(StudyError):
            call_advice(**args)
        return
    args = {"mask": mask(WEAK if call == "accept" else POOR), "seat": 1, "rules": "club", "deals": 10, **kwargs}
    if call == "accept":
        args.setdefault("poor", 0)
    with pytest.raises(StudyError):
        (accept_advice if call == "accept" else give_advice)(**args)


# ---------------------------------------------------------------- the command

def run(*args):
    from dokosim.cli import main
    return CliRunner().invoke(main, ["advise", *args])


def test_the_command_answers_each_question_in_json(tmp_path):
    path = tmp_path / "deal.jsonl"
    path.write_text(json.dumps(record("9C 9C KC KC 9S 9S KS KS 9H 9H KH KH")) + "\n")
    r = run("--record", str(path), "--deals", "40", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["kind"] == "calls" and out["strategy"] == STRONGEST_FAST  # the default answerer
    assert list(out["options"]) == ["no call", "kontra", "kontra, no90", "kontra, no90, no60", "kontra, no90, no60, no30",
                                    "kontra, no90, no60, no30, schwarz"]  # card 0: every level in time
    r = run("--rules", "club", "--hand", WEAK, "--seat", "1", "--poverty-from", "0", "--deals", "40", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["kind"] == "poverty_accept"
    r = run("--rules", "club", "--hand", POOR, "--poverty-give", "--give", "AD 9D KC", "--deals", "40")
    assert r.exit_code == 0, r.output
    assert f"answered by {STRONGEST_FAST}" in r.output and "AD 9D KC: given" in r.output


@pytest.mark.parametrize("args, message", [
    (["--hand", WEAK, "--poverty-from", "0"], "no poverty"),
    (["--rules", "club", "--hand", WEAK, "--poverty-offer", "AD 9D AH"], "--poverty-offer does not go with"),
    (["--rules", "club", "--hand", WEAK, "--poverty-from", "0", "--poverty-offer", "9H 9D AH"], "no more copies"),
    (["--rules", "club", "--hand", POOR, "--poverty-give", "--give", "AD AC AC"], "all its trumps"),
    (["--rules", "club", "--hand", POOR, "--give", "AD 9D"], "give 3 cards"),
    (["--record", str(EXAMPLE_RECORDS), "--rules", "club"], "--rules does not go with --record"),
    (["--record", str(EXAMPLE_RECORDS)], "the deal is over"),
    (["--record", str(EXAMPLE_RECORDS), "--at", "49"], "at=49 is not valid"),
    (["--hand", WEAK, "--at", "3"], "--at does not go with"),
    (["--hand", WEAK, "--threads", "2"], "--threads does not go with --hand alone"),
    ([], "give your hand"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def poverty_game():
    """A club-rules deal played by heuristic into a poverty, stopped at its first call decision."""
    from dokosim.game.agents import Agent
    from dokosim.game.game import Game
    agent = Agent("heuristic")
    for deal_id in range(2000):
        game = Game("club", seed=11, deal_id=deal_id)
        while game.phase in ("reservation", "poverty"):
            game.apply_action(agent.act(game))
        if game.observation(0)["contract"] == "poverty" and game.phase == "call":
            return game
    raise AssertionError("no poverty in 2000 deals")


def test_in_a_poverty_the_exchanged_cards_stay_where_the_poor_player_and_its_partner_know_them():
    import numpy as np

    from dokosim.engine import game_state as gs
    from dokosim.engine.layout import P_POVERTY_PARTNER, P_POVERTY_SEAT
    from dokosim.loop.advice import sample_hidden
    from dokosim.studies.advise_calls import call_advice
    game = poverty_game()
    g = game._g
    poor, partner = (int(g[gs.O_ST + k]) for k in (P_POVERTY_SEAT, P_POVERTY_PARTNER))
    passed, returned = int(g[gs.G_PV_PASSED]), int(g[gs.G_PV_RETURNED])
    rng = np.array([5, 7], dtype=np.uint64)
    out = np.empty_like(g)
    for seat, holder, known in ((poor, partner, passed & ~returned), (partner, poor, returned & ~passed)):
        for _ in range(50):
            sample_hidden(g, out, seat, rng, 0.05)
            hands = out[gs.O_HANDS:gs.O_HANDS + 4]
            assert int(hands[holder]) & known == known
            assert int(hands[seat]) == int(g[gs.O_HANDS + seat])  # the seat's own hand is kept
            assert sorted(bin(int(h)).count("1") for h in hands) == sorted(
                bin(int(g[gs.O_HANDS + s])).count("1") for s in range(4))
        if game.current_player == seat:
            r = call_advice(game, deals=40)
            assert r["contract"] == "poverty"
            intervals_hold(r)
