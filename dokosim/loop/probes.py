"""Call probes in the deal loop (the announcements study): a normal deal is played to a random
call opportunity of one level, then played on twice from that position with the same random
stream (common random numbers): once with the call made there, once with the calls below it
only. One row per deal (PROBE_COLUMNS); seat -1 when the deal had no such opportunity (not a
normal game, or nobody could make the call at the drawn moment). What the caller could see at
that moment is in the feature columns; the outcome of both branches in the *_with / *_without
columns.
"""
from collections import namedtuple

import numpy as np

from ..engine.bits import nth_set_bit, popcount
from ..engine.cards import C_NORMAL, CLASS_MASK, EYES, SCHEME_NORMAL, TRUMP, card_type
from ..engine.jit import inline_kernel
from ..engine.layout import (
    H_CONTRACT, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED, RES_EYES_RE, RES_SCORE,
    RES_TRICKS_RE, RES_VALUE, RES_WINNER,
)
from ..engine.play import make_call, seat_is_re
from ..engine.position import copy_array, copy_position, stack_position
from ..engine.rng import RNG_LEN, below, seed_stream
from ..engine.scoring import score_deal
from ..engine.stack import stack_zeros
from .control import CTL_DEALER
from .dealing import start_deal
from .playing import play_cards, refresh_call_masks

PROBE_COLUMNS = (
    "deal_id", "level", "seat", "side", "cards_played", "cards_held", "trumps", "top_trumps",
    "plain_aces", "plain_tens", "voids", "eyes_own", "eyes_opp", "partner_known", "level_own",
    "level_opp", "score_with", "score_without", "success_with", "success_without", "win_with",
    "win_without", "eyes_side_with", "eyes_side_without", "level_opp_with", "level_opp_without",
    "value_with", "value_without",
)
(PR_DEAL_ID, PR_LEVEL, PR_SEAT, PR_SIDE, PR_CARDS_PLAYED, PR_CARDS_HELD, PR_TRUMPS, PR_TOP_TRUMPS,
 PR_PLAIN_ACES, PR_PLAIN_TENS, PR_VOIDS, PR_EYES_OWN, PR_EYES_OPP, PR_PARTNER_KNOWN, PR_LEVEL_OWN,
 PR_LEVEL_OPP, PR_SCORE, PR_SUCCESS, PR_WIN, PR_EYES_SIDE, PR_LEVEL_OPP_AFTER,
 PR_VALUE) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 26)
PROBE_LEN = 28  # PR_SCORE etc. are pairs: +0 with the call, +1 without
# the probe's own draws (moment, seat) come from a stream apart from the deal's
PROBE_STREAM = 1 << 20


def _type_mask(*names):
    mask = 0
    for name in names:
        t = card_type(name)
        mask |= 3 << (2 * t)
    return np.int64(mask)


TOP_TRUMPS_NORMAL = _type_mask("TH", "QC", "QS")
PLAIN_ACES_NORMAL = _type_mask("AC", "AS", "AH")
PLAIN_TENS_NORMAL = _type_mask("TC", "TS")


@inline_kernel
def probe_window(level):
    """How many moments (card indices from 0) a probe of ``level`` draws from: a first call of
    that level must come while the caller holds at least 12 - level cards (card 4 * level + 3
    at the latest); a Kontra answering Re may still say it holding 10 cards (card 11)."""
    return 12 if level == 1 else 4 * level + 4


@inline_kernel
def call_made_good(level, side, res, n_tricks):
    """1 when ``side`` (0 Re, 1 Kontra) reached what a call of ``level`` promises: the win
    (Re/Kontra), the opponents under 90 / 60 / 30 eyes, or without a trick (schwarz)."""
    eyes_side = res[RES_EYES_RE] if side == 0 else 240 - res[RES_EYES_RE]
    tricks_opp = n_tricks - res[RES_TRICKS_RE] if side == 0 else res[RES_TRICKS_RE]
    if level == 1:
        return 1 if res[RES_WINNER] == side else 0
    if level == 5:
        return 1 if tricks_opp == 0 else 0
    return 1 if 240 - eyes_side < 120 - 30 * (level - 1) else 0


@inline_kernel
def probe_features(pos, seat, side, row):
    """What ``seat`` sees at the probe: its hand's make-up, the eyes its side and the other side
    have taken so far as far as it knows the parties, and the calls so far."""
    st, plays, trick_winner = pos.st, pos.plays, pos.trick_winner
    hand = pos.hands[seat]
    row[PR_CARDS_PLAYED] = st[P_NPLAYED]
    row[PR_CARDS_HELD] = popcount(hand)
    row[PR_TRUMPS] = popcount(hand & CLASS_MASK[SCHEME_NORMAL, TRUMP])
    row[PR_TOP_TRUMPS] = popcount(hand & TOP_TRUMPS_NORMAL)
    row[PR_PLAIN_ACES] = popcount(hand & PLAIN_ACES_NORMAL)
    row[PR_PLAIN_TENS] = popcount(hand & PLAIN_TENS_NORMAL)
    voids = 0
    for suit in range(3):
        if hand & CLASS_MASK[SCHEME_NORMAL, suit] == 0:
            voids += 1
    row[PR_VOIDS] = voids
    own = (np.int64(1) << seat) | (st[P_KNOWN_RE] if side == 0 else st[P_KNOWN_KO])
    opp = st[P_KNOWN_KO] if side == 0 else st[P_KNOWN_RE]
    if popcount(own) == 2:
        opp = 15 & ~own
    elif popcount(opp) == 2:
        own = 15 & ~opp
    eyes_own = 0
    eyes_opp = 0
    for t in range(st[P_NPLAYED] >> 2):
        eyes = EYES[plays[4 * t]] + EYES[plays[4 * t + 1]] + EYES[plays[4 * t + 2]] + EYES[plays[4 * t + 3]]
        if (own >> trick_winner[t]) & 1:
            eyes_own += eyes
        elif (opp >> trick_winner[t]) & 1:
            eyes_opp += eyes
    row[PR_EYES_OWN] = eyes_own
    row[PR_EYES_OPP] = eyes_opp
    row[PR_PARTNER_KNOWN] = 1 if popcount(own) == 2 else 0
    row[PR_LEVEL_OWN] = st[P_LEVEL_RE + side]
    row[PR_LEVEL_OPP] = st[P_LEVEL_KO - side]




# A thread's scratch for probes: the probe's own draws, and the position at the probe (with the
# legal calls and the deal's stream there), to play it on a second time.
ProbeScratch = namedtuple("ProbeScratch", ("probe_rng", "pos_at", "call_masks_at", "rng_at"))


@inline_kernel
def probe_scratch():
    """A ProbeScratch on the calling kernel's stack (it must stay inlined)."""
    return ProbeScratch(stack_zeros(RNG_LEN, np.uint64), stack_position(), stack_zeros(4, np.int64),
                        stack_zeros(RNG_LEN, np.uint64))


@inline_kernel
def keep_probe_position(at, pos, sc):
    """The position at the probe (with the legal calls and the stream) into ``at``."""
    copy_position(at.pos_at, pos)
    copy_array(at.call_masks_at, sc.call_masks)
    copy_array(at.rng_at, sc.rng)


@inline_kernel
def back_to_probe_position(at, pos, sc):
    """The position kept at the probe back into ``pos`` (and the legal calls and the stream)."""
    copy_position(pos, at.pos_at)
    copy_array(sc.call_masks, at.call_masks_at)
    copy_array(sc.rng, at.rng_at)


@inline_kernel
def play_probe(run, deal_id, level, row, pos, sc, at):
    """Call probe ``deal_id`` of ``level`` (1 Re/Kontra, 2 no 90, 3 no 60, 4 no 30, 5 schwarz) of
    ``run`` = (seed, control, rules, seats) into ``row`` (PROBE_LEN).

    The moment is a card index drawn uniformly from 0 .. probe_window(level) - 1, the caller a
    seat drawn uniformly among those who may call ``level`` then. With the call, the caller's
    side goes to ``level``; without it, to level - 1 (if it stood lower: a denial includes the
    calls below it, so both branches differ by the one step). From there both branches freeze
    the caller's side at that level; the other side calls as its strategies decide. Rows depend
    only on (seed, deal_id)."""
    seed, control, rules, seats = run
    for j in range(PROBE_LEN):
        row[j] = 0
    row[PR_DEAL_ID] = deal_id
    row[PR_LEVEL] = level
    row[PR_SEAT] = -1
    row[PR_SIDE] = -1
    dealer = control[CTL_DEALER]
    if dealer < 0:
        dealer = deal_id % 4
    start_deal(seed, (deal_id, dealer, np.int64(0), np.int64(-1)), control, rules, seats, pos, sc.hands0, sc.rng,
               sc.poverty)
    if pos.st[H_CONTRACT] != C_NORMAL:
        return
    seed_stream(at.probe_rng, seed, deal_id, PROBE_STREAM)
    moment = below(at.probe_rng, probe_window(level))
    refresh_call_masks(pos, sc.call_masks)
    # to the moment of the probe, then who may make the call now
    play_cards(np.int64(0), moment, np.int64(0), (np.int64(-1), np.int64(0)), control, rules, seats, pos, sc.rng, sc.call_masks, sc.call_log)
    candidates = np.int64(0)
    for s in range(4):
        if (sc.call_masks[s] >> level) & 1:
            candidates |= np.int64(1) << s
    if candidates == 0:
        return
    seat = nth_set_bit(candidates, below(at.probe_rng, popcount(candidates)))
    side = 0 if seat_is_re(pos.st, seat) else 1
    level_before = pos.st[P_LEVEL_RE + side]
    row[PR_SEAT] = seat
    row[PR_SIDE] = side
    probe_features(pos, seat, side, row)
    keep_probe_position(at, pos, sc)
    n_cards = 4 * pos.st[P_HAND_SIZE]
    for branch in range(2):  # 0 with the call, 1 without
        if branch == 1:
            back_to_probe_position(at, pos, sc)
            if level_before < level - 1:  # the calls below ``level`` are made in both
                make_call(pos.st, pos.hands, seat, level - 1)
                refresh_call_masks(pos, sc.call_masks)
        else:
            make_call(pos.st, pos.hands, seat, level)
            refresh_call_masks(pos, sc.call_masks)
        play_cards(moment, n_cards, np.int64(0), (np.int64(side), np.int64(level - branch)), control, rules, seats, pos, sc.rng,
                     sc.call_masks, sc.call_log)
        score_deal(pos.st, pos.plays, pos.play_seat, pos.trick_winner, sc.items, sc.res)
        res = sc.res
        row[PR_SCORE + branch] = res[RES_SCORE + seat]
        row[PR_SUCCESS + branch] = call_made_good(level, side, res, pos.st[P_HAND_SIZE])
        row[PR_WIN + branch] = 1 if res[RES_WINNER] == side else 0
        row[PR_EYES_SIDE + branch] = res[RES_EYES_RE] if side == 0 else 240 - res[RES_EYES_RE]
        row[PR_LEVEL_OPP_AFTER + branch] = pos.st[P_LEVEL_KO - side]
        row[PR_VALUE + branch] = res[RES_VALUE]
