"""The advisor's rollouts: the options of one decision played out on sampled deals (the kernels
behind ``dokosim advise``'s poverty and call advice, studies/advise_poverty.py and
studies/advise_calls.py).

A deal is a ``dokosim.Game`` row ``g`` (engine/game_state.py): every option is applied to a copy of
the same sampled deal with a copy of the same random stream (common random numbers), and the rest
of the deal is played by one strategy at every seat (``agent_action``, the deal loop's own
decisions through the strategy table) with the Game's own steps (``game_apply``, called rather
than inlined: a dozen inlined copies of the step took minutes to compile), so the rules are the
engine's. Sample ``k`` of seed ``s`` depends only on (s, k): the sampler draws from the
stream (s, k, SAMPLE_STREAM), the play from the deal's stream, so chunks of samples may run in any
order, on any thread (the kernels release the GIL), and give the same rows.

An outcome is the advised seat's score and its status: WON (its final side won), LOST (lost, or
nobody won), REDEALT (a poverty nobody took: the same dealer deals again, worth 0).
"""
from collections import namedtuple

import numpy as np

from ..engine.bits import lowest_bit_index
from ..engine.cards import C_POVERTY
from ..engine.deal import poverty_pass_error
from ..engine.game_state import (
    A_ACCEPT, A_KONTRA, A_PASS, A_RE, A_RESERVE, A_SCHWARZ, G_ATTEMPT, G_CALL_MOMENT, G_DEAL_ID, G_DEALER, G_FIXED,
    G_LEGAL, G_PHASE, G_PLAYER, G_PV_PASSED, G_PV_RETURNED, G_PV_STEP, G_SEED, O_FCLASS, O_GIVEN, O_HANDS, O_HANDS0,
    O_PLAYED, O_RES, O_RULES, O_ST, PH_CALL, PH_CARD, PH_POVERTY, PH_RESERVATION, PH_TERMINAL, PV_ACCEPT, PV_PASS,
    advance, game_apply, game_start,
)
from ..engine.jit import inline_kernel, kernel
from ..engine.layout import (
    H_RE_MASK, P_CONTRACT, P_LEVEL_RE, P_POVERTY_PARTNER, P_POVERTY_SEAT, PUBLIC_LEN, R_LEN, RES_HEALTHY,
    RES_POVERTY, RES_SCORE, RES_WINNER, ST_LEN,
)
from ..engine.play import seat_is_re
from ..engine.rng import RNG_LEN, seed_stream
from ..strategies.pimc_bids import CALL_TRIES, POVERTY_TRIES, fits_the_bids
from ..strategies.sampler import deal_with_poverty
from .agent_step import agent_action, resample_hidden

WON, LOST, REDEALT = 1, 0, -1
IMPOSSIBLE = -2  # no deal fits what is given (a poverty offer the other cards cannot complete)
SAMPLE_STREAM = 1 << 21  # the sampler's draws: a stream apart from the deal's (attempts) and the probes' (1 << 20)
PLAY_STREAM = 1 << 22  # a call position's rollouts (a poverty's deal plays on the deal's own stream)
MAX_STEPS = 2000  # decisions a rollout may take (a deal has a few hundred at most): a safety stop

Player = namedtuple("Player", ("table", "params"))  # the strategy at every seat: agent_action's table and params
Outcomes = namedtuple("Outcomes", ("scores", "status", "fits", "passed"))  # a row per sample (call_outcomes)
PovertyQuestion = namedtuple("PovertyQuestion", ("seat", "hand", "poor", "offered", "accepting", "options"))


@inline_kernel
def _mend(g, action):
    """``action`` if it is legal in ``g`` now, else the lowest legal action."""
    legal = g[G_LEGAL]
    if 0 <= action < 63 and (legal >> action) & 1:
        return action
    return lowest_bit_index(legal)


@kernel
def play_to_end(g, rng, player, cap_side, cap_level):
    """Play game ``g`` to its end with ``player`` (a ``Player``) at every seat, drawing from ``rng``;
    a call of side ``cap_side`` (0 Re, 1 Kontra; -1 none) above ``cap_level`` is passed instead.
    Returns False when the deal was redealt on the way (a poverty nobody took), True once it is
    scored."""
    attempt = g[G_ATTEMPT]
    for _ in range(MAX_STEPS):
        if g[G_PHASE] == PH_TERMINAL:
            return True
        if g[G_ATTEMPT] != attempt:
            return False
        action = agent_action(g, rng, player.table, player.params)
        if cap_side >= 0 and g[G_PHASE] == PH_CALL and A_RE <= action <= A_SCHWARZ:
            st = g[O_ST:O_ST + ST_LEN]
            side = 0 if seat_is_re(st, g[G_PLAYER]) else 1
            level = 1 if action <= A_KONTRA else action - A_RE
            if side == cap_side and level > cap_level:
                action = A_PASS
        game_apply(g, rng, _mend(g, action))
    return g[G_PHASE] == PH_TERMINAL


@inline_kernel
def record_outcome(g, seat, played, out, i, j):
    """Row ``i``, option ``j`` of ``out.scores`` and ``out.status``: ``seat``'s score and WON / LOST in
    the game ``g`` just played, or 0 and REDEALT when it was not (``played`` False)."""
    scores, status = out.scores, out.status
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
        game_apply(g, rng, A_PASS)
    return g[G_PHASE] == PH_CALL and g[G_PLAYER] == seat


@kernel
def place_exchanged(g, seat):
    """In a poverty, the poor player knows that the cards it passed and did not get back are with
    its partner, and the partner that the cards it returned (but the ones passed to it) are with
    the poor player: move each such card of a sampled deal ``g`` to its holder, in exchange for a
    card of the same class there (so no void shown is broken) that is not itself known, or for
    any such card when the holder has none of that class."""
    st = g[O_ST:O_ST + ST_LEN]
    if st[P_CONTRACT] != C_POVERTY:
        return
    poor = st[P_POVERTY_SEAT]
    partner = st[P_POVERTY_PARTNER]
    if seat == poor:
        holder = partner
        known = g[G_PV_PASSED] & ~g[G_PV_RETURNED]
    elif seat == partner:
        holder = poor
        known = g[G_PV_RETURNED] & ~g[G_PV_PASSED]
    else:
        return
    hands = g[O_HANDS:O_HANDS + 4]
    fclass = g[O_FCLASS:O_FCLASS + 48]
    m = known & ~hands[holder] & ~hands[seat]
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        for other in range(4):
            if other == holder or other == seat or not (hands[other] >> c) & 1:
                continue
            free = hands[holder] & ~known
            same = np.int64(0)
            f = free
            while f:
                d = lowest_bit_index(f)
                f &= f - 1
                if fclass[d] == fclass[c]:
                    same |= np.int64(1) << d
            pick = same if same else free
            if pick == 0:
                break
            d = lowest_bit_index(pick)
            swap = (np.int64(1) << c) | (np.int64(1) << d)
            hands[holder] ^= swap
            hands[other] ^= swap
            g[O_HANDS0 + holder] ^= swap
            g[O_HANDS0 + other] ^= swap


@kernel
def sample_hidden(base, g, seat, rng, screen):
    """``g`` := ``base`` with the cards ``seat`` has not seen dealt anew (Game.resample's sampler),
    redrawn up to CALL_TRIES times until the deal fits the bids and calls as ``pimc`` reads them
    (pimc_bids.fits_the_bids with its solo ``screen``; after the last try the deal is kept), and
    in a poverty the exchanged cards ``seat`` knows of placed where it knows them (place_exchanged).
    Returns whether the deal fits."""
    fits = False
    for _ in range(CALL_TRIES):
        g[:] = base
        resample_hidden(g, seat, rng)
        place_exchanged(g, seat)
        fits = fits_the_bids(g[O_ST:O_ST + PUBLIC_LEN], g[O_HANDS:O_HANDS + 4], g[O_PLAYED:O_PLAYED + 4], seat,
                             screen)
        if fits:
            break
    return fits


@kernel
def call_outcomes(base, seat, actions, frozen, first, seed, screen, player, out):
    """Samples ``first`` .. ``first + len(out.scores) - 1`` of a call decision: ``base`` is a game where
    ``seat`` is to call and ``actions`` its options (pass and the calls legal now). Each sample
    deals the unseen cards anew (sample_hidden), applies each option to a copy and plays it to the
    end (play_to_end, ``player`` at every seat; with ``frozen``, ``seat``'s side calls nothing above
    the level the option leaves it at). Fills ``out.scores[i, j]`` and ``out.status[i, j]`` for
    sample i, option j, and ``out.fits[i]`` with whether the sample fits the bids (sample_hidden)."""
    scores, fits = out.scores, out.fits
    g = np.empty_like(base)
    g2 = np.empty_like(base)
    sample_rng = np.zeros(RNG_LEN, dtype=np.uint64)
    play_rng = np.zeros(RNG_LEN, dtype=np.uint64)
    rng2 = np.zeros(RNG_LEN, dtype=np.uint64)
    for i in range(scores.shape[0]):
        k = first + i
        seed_stream(sample_rng, seed, k, SAMPLE_STREAM)
        fits[i] = 1 if sample_hidden(base, g, seat, sample_rng, screen) else 0
        seed_stream(play_rng, seed, k, PLAY_STREAM)
        for j in range(actions.shape[0]):
            g2[:] = g
            rng2[:] = play_rng
            game_apply(g2, rng2, _mend(g2, actions[j]))
            cap_side = -1
            cap_level = 0
            if frozen:
                cap_side = 0 if seat_is_re(g2[O_ST:O_ST + ST_LEN], seat) else 1
                cap_level = g2[O_ST + P_LEVEL_RE + cap_side]
            played = play_to_end(g2, rng2, player, cap_side, cap_level)
            record_outcome(g2, seat, played, out, i, j)


@inline_kernel
def pass_cards(g, rng, cards):
    """The poor player passes ``cards`` (physical cards) in ``g``'s exchange, one kind at a time."""
    m = cards
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        game_apply(g, rng, _mend(g, c >> 1))


@inline_kernel
def let_strategy_pass(g, rng, player):
    """The poor player passes the cards ``player`` chooses."""
    while g[G_PHASE] == PH_POVERTY and g[G_PV_STEP] == PV_PASS:
        game_apply(g, rng, _mend(g, agent_action(g, rng, player.table, player.params)))


@inline_kernel
def reserve_as_seen(g, rng, seat, poor, player):
    """The reservations of a sampled poverty deal: ``poor`` declares poverty, the others say
    healthy. Returns False when the strategy would have declared at another seat a solo (which
    outranks a poverty) or a poverty of its own before ``poor`` (the earlier speaker's wins): the
    table would not have played this one."""
    fits = True
    dealer = g[G_DEALER]
    while g[G_PHASE] == PH_RESERVATION:
        s = g[G_PLAYER]
        choice = RES_HEALTHY
        if s == poor:
            choice = RES_POVERTY
        elif s != seat:
            wanted = agent_action(g, rng, player.table, player.params) - A_RESERVE
            if 1 <= wanted <= 7 or (wanted == RES_POVERTY and (s - dealer - 1) & 3 < (poor - dealer - 1) & 3):
                fits = False
        game_apply(g, rng, _mend(g, A_RESERVE + choice))
    return fits


@inline_kernel
def ask_until(g, rng, seat, player):
    """The seats asked to take the poverty before ``seat`` refuse. Returns False when the strategy
    would have taken it at one of them."""
    fits = True
    while g[G_PHASE] == PH_POVERTY and g[G_PV_STEP] == PV_ACCEPT and g[G_PLAYER] != seat:
        if agent_action(g, rng, player.table, player.params) == A_ACCEPT:
            fits = False
        game_apply(g, rng, A_PASS)
    return fits


@kernel
def poverty_outcomes(template, question, first, seed, player, out):
    """Samples ``first`` .. ``first + len(out.scores) - 1`` of a poverty decision (``question``) of
    ``seat`` (holding ``hand``; the dealer, the rules and the calls are ``template``'s, a game
    row). Each sample deals the other cards (sampler.deal_with_poverty) and starts the game with
    ``poor`` declaring poverty and the others healthy, drawn again (up to POVERTY_TRIES times, then kept: ``fits[i]`` 0) while
    it contradicts what the table saw: the strategy would have declared a solo at another seat,
    or (``accepting``) taken the poverty at a seat asked before ``seat``. Then for each option, on
    a copy:

    * ``accepting`` (``seat`` is asked to take the poverty of ``poor``, which passed ``offered``,
      or when 0 what the strategy chooses): ``seat`` refuses (option 0) or accepts (option 1);
    * else (``seat`` is the poor player): it passes the cards ``options[j]`` (0: what the strategy
      chooses, kept in ``passed[i]``).

    The rest (the later seats' answers, the cards returned, the play) is ``player``'s. Fills
    ``out.scores[i, j]`` and ``out.status[i, j]`` (IMPOSSIBLE in every column when no deal fits ``offered``)."""
    seat, hand, poor, offered, accepting, options = question
    scores, status, fits, passed = out
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
        possible = True
        fit = False
        for _ in range(POVERTY_TRIES):
            if not deal_with_poverty(sample_rng, seat, hand, poor, offered, rules, hands):
                possible = False
                break
            g[:] = template
            for s in range(4):
                g[O_GIVEN + s] = hands[s]
            g[G_FIXED] = 1
            g[G_SEED] = seed
            g[G_DEAL_ID] = k
            game_start(g, play_rng)
            fit = reserve_as_seen(g, play_rng, seat, poor, player)
            if accepting:
                if offered:
                    pass_cards(g, play_rng, offered)
                else:
                    let_strategy_pass(g, play_rng, player)
                fit = ask_until(g, play_rng, seat, player) and fit
            if fit:
                break
        fits[i] = 1 if fit else 0
        for j in range(options.shape[0]):
            if not possible:
                scores[i, j] = 0
                status[i, j] = IMPOSSIBLE
                continue
            g2[:] = g
            rng2[:] = play_rng
            if accepting:
                game_apply(g2, rng2, _mend(g2, A_ACCEPT if options[j] else A_PASS))
            elif options[j]:
                pass_cards(g2, rng2, options[j])
            else:
                let_strategy_pass(g2, rng2, player)
                passed[i] = g2[G_PV_PASSED]
            played = play_to_end(g2, rng2, player, -1, 0)
            record_outcome(g2, seat, played, out, i, j)


@kernel
def pass_error(hand, cards):
    """True unless ``cards`` may be passed by a poor player holding ``hand`` (engine/deal.py's
    check: 3 cards of the hand holding all its trumps)."""
    return poverty_pass_error(hand, cards)
