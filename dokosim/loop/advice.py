"""The advisor's rollouts: the options of one decision played out on sampled deals (the kernels
behind ``dokosim advise``'s poverty and call advice, studies/advise_poverty.py and
studies/advise_calls.py).

A deal is a ``dokosim.Game`` row ``g`` (engine/game_state.py): every option is applied to a copy of
the same sampled deal with a copy of the same random stream (common random numbers), and the rest
of the deal is played by one strategy at every seat (``agent_action``, the deal loop's own
decisions through the strategy table) with the Game's own steps (``apply_action``), so the rules
are the engine's. Sample ``k`` of seed ``s`` depends only on (s, k): the sampler draws from the
stream (s, k, SAMPLE_STREAM), the play from the deal's stream, so chunks of samples may run in any
order, on any thread (the kernels release the GIL), and give the same rows.

An outcome is the advised seat's score and its status: WON (its final side won), LOST (lost, or
nobody won), REDEALT (a poverty nobody took: the same dealer deals again, worth 0).
"""
import numpy as np

from ..engine.bits import lowest_bit_index, popcount
from ..engine.cards import TRUMP
from ..engine.deal import may_declare_poverty, poverty_pass_error
from ..engine.game_state import (
    A_ACCEPT, A_KONTRA, A_PASS, A_RE, A_RESERVE, A_SCHWARZ, G_ATTEMPT, G_CALL_MOMENT, G_DEAL_ID, G_FIXED,
    G_LEGAL, G_PHASE, G_PLAYER, G_PV_PASSED, G_PV_STEP, G_SEED, O_GIVEN, O_HANDS, O_PLAYED, O_RES, O_RULES, O_ST,
    PH_CALL, PH_CARD, PH_POVERTY, PH_TERMINAL, PV_ACCEPT, PV_PASS, advance, apply_action, game_start,
)
from ..engine.jit import inline_kernel, kernel
from ..engine.layout import (
    H_RE_MASK, P_LEVEL_RE, PUBLIC_LEN, R_LEN, RES_HEALTHY, RES_POVERTY, RES_SCORE, RES_WINNER, ST_LEN,
)
from ..engine.play import seat_is_re
from ..engine.rng import RNG_LEN, seed_stream
from ..strategies.cardcount import deck_cards
from ..strategies.pimc_bids import CALL_TRIES, NORMAL_CLASSES, POVERTY_TRIES, fits_the_bids, make_poor
from ..strategies.sampler import deal_unseen
from .agent_step import agent_action, resample_hidden

WON, LOST, REDEALT = 1, 0, -1
IMPOSSIBLE = -2  # no deal fits what is given (a poverty offer the other cards cannot complete)
SAMPLE_STREAM = 1 << 21  # the sampler's draws: a stream apart from the deal's (attempts) and the probes' (1 << 20)
PLAY_STREAM = 1 << 22  # a call position's rollouts (a poverty's deal plays on the deal's own stream)
MAX_STEPS = 400  # decisions a rollout may take (a deal has under 200): a safety stop, never reached


@inline_kernel
def _mend(g, action):
    """``action`` if it is legal in ``g`` now, else the lowest legal action."""
    legal = g[G_LEGAL]
    if 0 <= action < 63 and (legal >> action) & 1:
        return action
    return lowest_bit_index(legal)


@kernel
def play_to_end(g, rng, table, params, cap_side, cap_level):
    """Play game ``g`` to its end with the strategy of ``table`` (one row) and ``params`` at every
    seat, drawing from ``rng``; a call of side ``cap_side`` (0 Re, 1 Kontra; -1 none) above
    ``cap_level`` is passed instead. Returns False when the deal was redealt on the way (a poverty
    nobody took), True once it is scored."""
    attempt = g[G_ATTEMPT]
    for _ in range(MAX_STEPS):
        if g[G_PHASE] == PH_TERMINAL:
            return True
        if g[G_ATTEMPT] != attempt:
            return False
        action = agent_action(g, rng, table, params)
        if cap_side >= 0 and g[G_PHASE] == PH_CALL and A_RE <= action <= A_SCHWARZ:
            st = g[O_ST:O_ST + ST_LEN]
            side = 0 if seat_is_re(st, g[G_PLAYER]) else 1
            level = 1 if action <= A_KONTRA else action - A_RE
            if side == cap_side and level > cap_level:
                action = A_PASS
        apply_action(g, rng, _mend(g, action))
    return g[G_PHASE] == PH_TERMINAL


@inline_kernel
def record_outcome(g, seat, played, scores, status, i, j):
    """Row ``i``, option ``j`` of ``scores`` and ``status``: ``seat``'s score and WON / LOST in
    the game ``g`` just played, or 0 and REDEALT when it was not (``played`` False)."""
    if not played:
        scores[i, j] = 0
        status[i, j] = REDEALT
        return
    side = 0 if (g[O_ST + H_RE_MASK] >> seat) & 1 else 1
    scores[i, j] = g[O_RES + RES_SCORE + seat]
    status[i, j] = WON if g[O_RES + RES_WINNER] == side else LOST


@kernel
def ask_for_calls(g, seat):
    """Make ``seat`` the one to call in game ``g`` (in its call or card phase, between cards): a
    round of calls at this moment, asked from the player to move as the Game asks it, the seats
    before ``seat`` passing (they are asked again after the next card). Returns whether ``seat``
    is asked, i.e. may make a call now (else ``g`` is left in its card phase)."""
    if g[G_PHASE] == PH_CALL and g[G_PLAYER] == seat:
        return True
    if g[G_PHASE] != PH_CALL and g[G_PHASE] != PH_CARD:
        return False
    rng = np.zeros(RNG_LEN, dtype=np.uint64)  # a pass draws nothing
    g[G_CALL_MOMENT] = -1
    advance(g)
    for _ in range(4):
        if g[G_PHASE] != PH_CALL:
            return False
        if g[G_PLAYER] == seat:
            return True
        apply_action(g, rng, A_PASS)
    return g[G_PHASE] == PH_CALL and g[G_PLAYER] == seat


@kernel
def sample_hidden(base, g, seat, rng, screen):
    """``g`` := ``base`` with the cards ``seat`` has not seen dealt anew (Game.resample's sampler),
    redrawn up to CALL_TRIES times until the deal fits the bids and calls as ``pimc`` reads them
    (pimc_bids.fits_the_bids with its solo ``screen``; after the last try the deal is kept)."""
    for _ in range(CALL_TRIES):
        g[:] = base
        resample_hidden(g, seat, rng)
        if fits_the_bids(g[O_ST:O_ST + PUBLIC_LEN], g[O_HANDS:O_HANDS + 4], g[O_PLAYED:O_PLAYED + 4], seat,
                         screen):
            return


@kernel
def call_outcomes(base, seat, actions, frozen, first, seed, screen, table, params, scores, status):
    """Samples ``first`` .. ``first + len(scores) - 1`` of a call decision: ``base`` is a game where
    ``seat`` is to call and ``actions`` its options (pass and the calls legal now). Each sample
    deals the unseen cards anew (sample_hidden), applies each option to a copy and plays it to the
    end (play_to_end; with ``frozen``, ``seat``'s side calls nothing above the level the option
    leaves it at). Fills ``scores[i, j]`` and ``status[i, j]`` for sample i, option j."""
    g = np.empty_like(base)
    g2 = np.empty_like(base)
    sample_rng = np.zeros(RNG_LEN, dtype=np.uint64)
    play_rng = np.zeros(RNG_LEN, dtype=np.uint64)
    rng2 = np.zeros(RNG_LEN, dtype=np.uint64)
    for i in range(scores.shape[0]):
        k = first + i
        seed_stream(sample_rng, seed, k, SAMPLE_STREAM)
        sample_hidden(base, g, seat, sample_rng, screen)
        seed_stream(play_rng, seed, k, PLAY_STREAM)
        for j in range(actions.shape[0]):
            g2[:] = g
            rng2[:] = play_rng
            apply_action(g2, rng2, _mend(g2, actions[j]))
            cap_side = -1
            cap_level = 0
            if frozen:
                cap_side = 0 if seat_is_re(g2[O_ST:O_ST + ST_LEN], seat) else 1
                cap_level = g2[O_ST + P_LEVEL_RE + cap_side]
            played = play_to_end(g2, rng2, table, params, cap_side, cap_level)
            record_outcome(g2, seat, played, scores, status, i, j)


@kernel
def deal_with_poverty(rng, seat, hand, poor, offered, rules, hands):
    """Deal the cards ``seat`` (holding ``hand``) has not seen to the other seats, ``poor`` with a
    hand that may declare poverty: holding ``offered`` (when not 0, the cards it passes: all its
    trumps, so the rest of its hand has none), else drawn again up to POVERTY_TRIES times and then
    mended (pimc_bids.make_poor). Returns False when no deal fits ``offered``."""
    size = popcount(hand)
    unseen = deck_cards(rules) & ~hand & ~offered
    cap0 = np.zeros(4, dtype=np.int64)
    cap = np.zeros(4, dtype=np.int64)
    for s in range(4):
        cap0[s] = size if s != seat else 0
    voids = np.int64(0)
    if offered:
        cap0[poor] = size - popcount(offered)
        voids = np.int64(1) << (5 * poor + TRUMP)
        ok = deal_unseen(rng, seat, hand, unseen, cap0, voids, NORMAL_CLASSES, 0, 0, -1, hands, cap)
        hands[poor] |= offered
        return ok and may_declare_poverty(hands[poor]) and not poverty_pass_error(hands[poor], offered)
    for _ in range(POVERTY_TRIES):
        deal_unseen(rng, seat, hand, unseen, cap0, voids, NORMAL_CLASSES, 0, 0, -1, hands, cap)
        if may_declare_poverty(hands[poor]):
            return True
    make_poor(hands, poor, seat)
    return True


@inline_kernel
def pass_cards(g, rng, cards):
    """The poor player passes ``cards`` (physical cards) in ``g``'s exchange, one kind at a time."""
    m = cards
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        apply_action(g, rng, _mend(g, c >> 1))


@inline_kernel
def let_strategy_pass(g, rng, table, params):
    """The poor player passes the cards the strategy chooses."""
    while g[G_PHASE] == PH_POVERTY and g[G_PV_STEP] == PV_PASS:
        apply_action(g, rng, _mend(g, agent_action(g, rng, table, params)))


@kernel
def poverty_outcomes(template, seat, hand, poor, offered, accepting, options, first, seed, table, params, scores,
                     status, passed):
    """Samples ``first`` .. ``first + len(scores) - 1`` of a poverty decision of ``seat`` (holding
    ``hand``; the dealer, the rules and the calls are ``template``'s, a game row). Each sample
    deals the other cards (deal_with_poverty) and starts the game with ``poor`` declaring poverty
    and the others healthy; then for each option, on a copy:

    * ``accepting`` (``seat`` is asked to take the poverty of ``poor``): the poor player passes
      ``offered`` (0: what the strategy chooses), the seats asked before ``seat`` refuse, and
      ``seat`` refuses (option 0) or accepts (option 1);
    * else (``seat`` is the poor player): it passes the cards ``options[j]`` (0: what the strategy
      chooses, kept in ``passed[i]``).

    The rest (the later seats' answers, the cards returned, the play) is the strategy's. Fills
    ``scores[i, j]`` and ``status[i, j]`` (IMPOSSIBLE in every column when no deal fits)."""
    g = np.empty_like(template)
    g2 = np.empty_like(template)
    hands = np.zeros(4, dtype=np.int64)
    sample_rng = np.zeros(RNG_LEN, dtype=np.uint64)
    play_rng = np.zeros(RNG_LEN, dtype=np.uint64)
    rng2 = np.zeros(RNG_LEN, dtype=np.uint64)
    rules = template[O_RULES:O_RULES + R_LEN]
    for i in range(scores.shape[0]):
        k = first + i
        seed_stream(sample_rng, seed, k, SAMPLE_STREAM)
        if not deal_with_poverty(sample_rng, seat, hand, poor, offered, rules, hands):
            for j in range(options.shape[0]):
                scores[i, j] = 0
                status[i, j] = IMPOSSIBLE
            continue
        g[:] = template
        for s in range(4):
            g[O_GIVEN + s] = hands[s]
        g[G_FIXED] = 1
        g[G_SEED] = seed
        g[G_DEAL_ID] = k
        game_start(g, play_rng)
        for _ in range(4):
            choice = RES_POVERTY if g[G_PLAYER] == poor else RES_HEALTHY
            apply_action(g, play_rng, _mend(g, A_RESERVE + choice))
        for j in range(options.shape[0]):
            g2[:] = g
            rng2[:] = play_rng
            if accepting:
                if offered:
                    pass_cards(g2, rng2, offered)
                else:
                    let_strategy_pass(g2, rng2, table, params)
                while g2[G_PHASE] == PH_POVERTY and g2[G_PV_STEP] == PV_ACCEPT and g2[G_PLAYER] != seat:
                    apply_action(g2, rng2, A_PASS)
                apply_action(g2, rng2, _mend(g2, A_ACCEPT if options[j] else A_PASS))
            elif options[j]:
                pass_cards(g2, rng2, options[j])
            else:
                let_strategy_pass(g2, rng2, table, params)
                passed[i] = g2[G_PV_PASSED]
            played = play_to_end(g2, rng2, table, params, -1, 0)
            record_outcome(g2, seat, played, scores, status, i, j)


@kernel
def pass_error(hand, cards):
    """True unless ``cards`` may be passed by a poor player holding ``hand`` (engine/deal.py's
    check: 3 cards of the hand holding all its trumps)."""
    return poverty_pass_error(hand, cards)
