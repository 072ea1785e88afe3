"""dd_oracle (dokosim/dd/oracle.py): the double-dummy player, and the tournaments' guard against it.

A deal that dd_oracle plays at all four seats must end with exactly the eyes the solver gives
at its first solved card (both sides play the solver's best cards from there, so the value
cannot move); every card it plays must pass the independent property checker."""
import json

import pytest
from click.testing import CliRunner
from tests.engine.test_properties import check_deal
from tests.solver.test_solver import cut

import dokosim
from dokosim.game.agents import python_agent, reads_hidden
from dokosim.cli.tournament import tournament as tournament_cmd
from dokosim.engine import game_state as gs
from dokosim.engine.layout import H_RE_MASK
from dokosim.game.game import Game
from dokosim.dd.oracle import DDOracle, OracleError
from dokosim.run.tournament import TournamentError, table, tournament


def _play(game: Game, players) -> dict:
    while not game.is_terminal():
        game.apply_action(players[game.current_player].act(game))
    return game.to_record()


@pytest.fixture(scope="module")
def oracle_deals():
    """200 deals played by dd_oracle at every seat: 150 under DDV rules, 50 without nines
    (10 tricks), one oracle per seat as in a tournament."""
    deals = []
    for rules, first, count in (("ddv", 0, 150), ("sharp", 1000, 50)):
        players = [DDOracle() for _ in range(4)]
        for deal_id in range(first, first + count):
            game = Game(rules, seed=77, deal_id=deal_id)
            record = _play(game, players)
            deals.append((record, game.result()))
    return deals


def test_the_oracle_ends_with_the_eyes_the_solver_gave_at_its_first_solved_card(oracle_deals):
    contracts = set()
    for record, result in oracle_deals:
        tricks = len(record["play"]) // 4
        first = 4 * (tricks - DDOracle().exact_tricks)
        solved = dokosim.solve(cut(record, first))
        assert solved["ok"], solved
        assert solved["eyes_re"] == result["eyes"]["re"], (record, solved)
        contracts.add(result["contract"])
    assert "normal" in contracts and len(contracts) >= 3, contracts  # more than normal games


def test_every_card_the_oracle_plays_is_legal(oracle_deals):
    for record, result in oracle_deals:
        eyes, _, _ = check_deal(record, result["contract"])
        assert sum(eyes) == 240
        assert sum(eyes[s] for s in result["re_seats"]) == result["eyes"]["re"]
        scored = dokosim.score([record])[0]
        assert scored["ok"] and scored["eyes"]["re"] == result["eyes"]["re"], scored


def test_the_oracle_plays_a_best_card_at_each_solved_position():
    """At every solved card the card played has the best value for the mover's side."""
    oracle = DDOracle()
    game = Game("ddv", seed=5, deal_id=3)
    while not game.is_terminal():
        action = oracle.act(game)
        if game.phase == "card" and game.cards_played >= 24:
            out = dokosim.solve(cut(game.to_record(), game.cards_played))
            seat = game.current_player
            values = out["card_values"]
            re = int(game._g[gs.O_ST + H_RE_MASK]) >> seat & 1
            best = max(values.values()) if re else min(values.values())
            played = dokosim.action_name(action)
            assert values[played] == best, (played, values)
        game.apply_action(action)
    assert oracle.exact_cards == 24


@pytest.fixture(scope="module")
def band_oracle_deals():
    """60 deals played by dd_oracle with ``bands=1`` at every seat: 45 DDV, 15 without nines."""
    deals = []
    for rules, first, count in (("ddv", 0, 45), ("sharp", 1000, 15)):
        players = [DDOracle(bands=1) for _ in range(4)]
        for deal_id in range(first, first + count):
            game = Game(rules, seed=78, deal_id=deal_id)
            record = _play(game, players)
            deals.append((record, game.result()))
    return deals


def coarse(eyes: int) -> tuple[int, int]:
    """The band of ``eyes`` by the edges every set of calls scores (a later call can add the
    edge 120 or take it away again, so a band kept under the calls of the moment lies in one
    of these)."""
    from dokosim.dd.band import band_between, value_edges
    return band_between(eyes, value_edges(0, 0))


def test_the_band_oracle_ends_in_the_band_of_its_first_solved_card(band_oracle_deals):
    """Every seat keeps the band of best play (by the calls made), so the deal's eyes end in the
    band the band search gives at the first solved card."""
    moved = 0
    for record, result in band_oracle_deals:
        tricks = len(record["play"]) // 4
        first = 4 * (tricks - DDOracle().exact_tricks)
        value = dokosim.game_value(cut(record, first), node_limit=0)
        assert value["answered"], value
        assert coarse(value["band_lo"]) == coarse(result["eyes"]["re"]), (record, value)
        moved += dokosim.solve(cut(record, first))["eyes_re"] != result["eyes"]["re"]
    assert moved > 0  # it plays for the band, not for the eyes of best play


def test_the_band_oracle_with_a_node_limit_keeps_the_band_from_its_first_solved_card():
    """With ``node_limit`` the band oracle tries from the first card; from the first card it
    solves on (every later one of the deal without a limit), the deal's eyes end in that card's
    band. One oracle plays all four seats: an oracle's unlimited solving after its first solved
    card is its own, and another seat's oracle may still fall back to heuristic's card then."""
    oracle = DDOracle(bands=1, node_limit=300_000)
    players = [oracle] * 4
    early = 0
    for deal_id in range(10):
        game = Game("ddv", seed=79, deal_id=deal_id)
        first = None
        while not game.is_terminal():
            before = sum(p.exact_cards for p in players)
            n = game.cards_played
            game.apply_action(players[game.current_player].act(game))
            if first is None and sum(p.exact_cards for p in players) > before:
                first = n
        assert first is not None
        early += first < 24  # solved before the last six tricks
        value = dokosim.game_value(cut(game.to_record(), first), node_limit=20_000_000)
        assert value["answered"], value
        assert coarse(value["band_lo"]) == coarse(game.result()["eyes"]["re"]), (deal_id, first, value)
    assert early >= 5, early


def test_each_card_of_the_band_oracle_keeps_the_exact_solvers_band():
    """At each solved card, the exact value of the card the band oracle plays (Re's final eyes
    under best play after it, the exact-eyes solver) lies in the band of the best card's value,
    by the edges of the calls made; it is the before strategy's card when that one does."""
    from dokosim.dd.band import band_between, value_edges
    from dokosim.engine.layout import P_LEVEL_KO, P_LEVEL_RE
    from dokosim.game.agents import Agent
    oracle, heuristic = DDOracle(bands=1), Agent("heuristic")
    checked = not_best = not_heuristic = 0
    for deal_id in range(8):
        game = Game("ddv", seed=5, deal_id=deal_id)
        while not game.is_terminal():
            action = oracle.act(game)
            if game.phase == "card" and game.cards_played >= 24:
                values = dokosim.solve(cut(game.to_record(), game.cards_played))["card_values"]
                st = game._g[gs.O_ST:gs.O_ST + gs.ST_LEN]
                edges = value_edges(int(st[P_LEVEL_RE]), int(st[P_LEVEL_KO]))
                re = int(st[H_RE_MASK]) >> game.current_player & 1
                best = max(values.values()) if re else min(values.values())
                played = values[dokosim.action_name(action)]
                assert band_between(played, edges) == band_between(best, edges), (values, action)
                theirs = values[dokosim.action_name(heuristic.act(game))]
                if band_between(theirs, edges) == band_between(best, edges):
                    assert action == heuristic.act(game)
                else:
                    not_heuristic += 1
                checked += 1
                not_best += played != best
            game.apply_action(action)
    assert checked == 8 * 24 and not_best > 0 and not_heuristic > 0, (checked, not_best, not_heuristic)


def test_tournaments_refuse_the_oracle_unless_cheating_is_allowed():
    assert reads_hidden("dd_oracle") and not reads_hidden("heuristic")
    assert python_agent("dd_oracle") is DDOracle
    with pytest.raises(TournamentError, match="dd_oracle.*reads the other players' cards.*allow_cheating"):
        tournament(["dd_oracle", "heuristic"], 4)
    result = tournament(["dd_oracle", "heuristic"], 4, seed=3, allow_cheating=True,
                        params={"dd_oracle": {"exact_tricks": 4}})
    assert result.reads_hidden == ["dd_oracle"]
    assert json.loads(result.to_json())["reads_hidden"] == ["dd_oracle"]
    lines = table(result).splitlines()
    assert any(line.startswith("dd_oracle ") and "(reads hidden cards)" in line for line in lines)
    assert not any(line.startswith("heuristic ") and "hidden" in line for line in lines)
    assert "not a fair comparison" in lines[-1]


def test_the_cli_names_the_cheat_and_the_flag():
    runner = CliRunner()
    out = runner.invoke(tournament_cmd, ["dd_oracle", "heuristic", "--deals", "4"])
    assert out.exit_code == 2
    error = [line for line in out.output.splitlines() if line.startswith("Error")]
    assert len(error) == 1 and "--allow-cheating" in error[0]
    out = runner.invoke(tournament_cmd, ["dd_oracle", "heuristic", "--deals", "4", "--allow-cheating",
                               "--param", "dd_oracle:exact_tricks=13"])
    assert out.exit_code == 2 and "exact_tricks" in out.output and "1 to 12" in out.output


def test_bad_parameters_are_named():
    with pytest.raises(OracleError, match="exact_tricks"):
        DDOracle(exact_tricks=0)
    with pytest.raises(OracleError, match="node_limit"):
        DDOracle(node_limit=-1)
    with pytest.raises(OracleError, match="bands"):
        DDOracle(bands=2)


def test_simulations_and_studies_refuse_the_oracle():
    from dokosim.loop.registry import StrategyError
    from dokosim.studies import StudyError, run_study
    with pytest.raises(StrategyError, match="dd_oracle.*reads the other players' cards.*tournament"):
        dokosim.simulate(10, strategy="dd_oracle")
    with pytest.raises(StudyError, match="dd_oracle.*reads the other players' cards"):
        run_study("solo_odds", deals=100, strategy="dd_oracle", quiet=True)


def test_the_oracle_s_name_is_reserved_and_its_chart_is_marked(tmp_path):
    from dokosim.game.agents import register_agent
    from dokosim.game.game import GameError
    from dokosim.loop.registry import StrategyError, register
    from dokosim.run.tournament import chart
    with pytest.raises(GameError, match="reserved"):
        register_agent("dd_oracle", DDOracle)
    with pytest.raises(StrategyError, match="reserved"):
        register("dd_oracle", "dokosim.strategies.simple")
    result = tournament(["dd_oracle", "simple"], 3, seed=2, allow_cheating=True, out=tmp_path / "t")
    from dokosim.run.driver import meta_dir
    assert json.loads((meta_dir(tmp_path / "t") / "tournament.json").read_text())["reads_hidden"] == ["dd_oracle"]
    assert chart(result, tmp_path / "c.png").stat().st_size > 0
    with pytest.raises(TournamentError, match="conditions"):
        tournament(["dd_oracle", "simple"], 3, allow_cheating=True, where="trumps(0) >= 8")
