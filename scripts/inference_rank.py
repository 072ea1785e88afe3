"""How much the learned inference knows (docs/strategies.md, "Learned inference"): at positions of
deals played by each player, where the true deal ranks among deals drawn by the search's sampler,
by the likelihood of the other seats' cards so far (strategies/inference.py). 0.5: the
likelihood tells nothing; 1: the true deal always looks likeliest.

    python scripts/inference_rank.py --players net3,pimc,heuristic --deals 12 --seed 40
"""
import argparse

import numpy as np

from dokosim import Agent, Game
from dokosim.engine import game_state as gs
from dokosim.engine.layout import P_NPLAYED, PUBLIC_LEN, R_LEN
from dokosim.engine.position import View
from dokosim.engine.rng import seed_stream
from dokosim.strategies import inference
from dokosim.strategies.sampler import deal_unseen, sampling_setup


def positions(player, seed, deals, stops):
    """(deal id, game row) of ``deals`` deals played by ``player`` when ``stops`` cards are on the
    table."""
    agent = Agent(player)
    for deal_id in range(deals):
        game = Game("ddv", seed=seed, deal_id=deal_id)
        g = game._g
        while g[gs.G_PHASE] != gs.PH_TERMINAL:
            if g[gs.G_PHASE] == gs.PH_CARD and gs.game_position(g).st[P_NPLAYED] in stops:
                yield deal_id, g.copy()
            game.apply_action(agent.act(game))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="net3,pimc,heuristic")
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--draws", type=int, default=200, help="deals drawn by the sampler per position")
    parser.add_argument("--temperature", type=float, default=1.0)
    args = parser.parse_args()
    if args.deals < 2:
        parser.error(f"--deals {args.deals}: at least 2 (the interval is over deals)")
    if args.draws < 1:
        parser.error(f"--draws {args.draws}: at least 1")
    if not args.temperature > 0:
        parser.error(f"--temperature {args.temperature}: must be above 0")
    from dokosim.loop.registry import StrategyError
    for player in args.players.split(","):
        try:
            Agent(player)
        except StrategyError as exc:
            parser.error(f"--players: {exc}")
    stops = (8, 16, 24, 32, 40)
    scratch = np.zeros(PUBLIC_LEN, dtype=np.int64)
    rng = np.zeros(2, dtype=np.uint64)
    seed_stream(rng, args.seed, 0, 1)
    print(f"true deal's rank among {args.draws} sampled deals by likelihood (temperature {args.temperature}), "
          f"{args.deals} deals, seed {args.seed}")
    for player in args.players.split(","):
        ranks = []  # per deal: the ranks at its positions (the interval is over deals, not positions)
        for deal_id, g in positions(player, args.seed, args.deals, stops):
            pos = gs.game_position(g)
            seat = int(g[gs.G_PLAYER])
            rules = g[gs.O_RULES:gs.O_RULES + R_LEN]
            view = View(pos.st[:PUBLIC_LEN], pos.plays, pos.play_seat, pos.trick_winner, pos.power, pos.fclass,
                        pos.cmask)
            sampling, _ = sampling_setup(seat, pos.hands[seat], view, rules, True)
            hands = np.zeros((args.draws, 4), dtype=np.int64)
            for j in range(args.draws):
                deal_unseen(rng, seat, pos.hands[seat], sampling, view.cmask, hands[j])
            drawn = np.array([inference.play_log_likelihood(seat, h, view, rules, args.temperature, scratch)
                              for h in hands])
            true = inference.play_log_likelihood(seat, pos.hands, view, rules, args.temperature, scratch)
            ranks.append((deal_id, (drawn < true).mean() + 0.5 * (drawn == true).mean()))
        by_deal = {}
        for deal, rank in ranks:
            by_deal.setdefault(deal, []).append(rank)
        per_deal = np.array([np.mean(v) for v in by_deal.values()])
        mean = np.mean([rank for _, rank in ranks])
        half = 1.96 * per_deal.std(ddof=1) / np.sqrt(len(per_deal))
        print(f"{player:10s} {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] over {len(ranks)} positions "
              f"of {len(per_deal)} deals")


if __name__ == "__main__":
    main()
