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
from .playing import refresh_call_masks

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




# A thread's scratch for probes: the probe's own draws, the position at the probe (with the
# legal calls and the deal's stream there) to play it on a second time, and the caller's side's
# level before the probe.
ProbeScratch = namedtuple("ProbeScratch", ("probe_rng", "pos_at", "call_masks_at", "rng_at", "level_before"))


@inline_kernel
def probe_scratch():
    """A ProbeScratch on the calling kernel's stack (it must stay inlined)."""
    return ProbeScratch(stack_zeros(RNG_LEN, np.uint64), stack_position(), stack_zeros(4, np.int64),
                        stack_zeros(RNG_LEN, np.uint64), stack_zeros(1, np.int64))


@inline_kernel
def begin_probe(deal_id, level, row):
    """Probe ``deal_id`` of ``level``'s row before its deal: no caller yet (seat and side -1)."""
    for j in range(PROBE_LEN):
        row[j] = 0
    row[PR_DEAL_ID] = deal_id
    row[PR_LEVEL] = level
    row[PR_SEAT] = -1
    row[PR_SIDE] = -1


@inline_kernel
def probe_moment(seed, deal_id, level, pos, at):
    """(segments, moment) of the probe of ``deal_id`` once dealt: a normal game is played in three
    segments (to the moment, then on with and without the call), any other contract in none; the
    moment is a card index drawn uniformly from 0 .. probe_window(level) - 1."""
    if pos.st[H_CONTRACT] != C_NORMAL:
        return np.int64(0), np.int64(0)
    seed_stream(at.probe_rng, seed, deal_id, PROBE_STREAM)
    return np.int64(3), np.int64(below(at.probe_rng, probe_window(level)))


@inline_kernel
def probe_branch(segment, level, row, pos, sc, at):
    """Before segment 1 (with the call) or 2 (without it) of a probe: the position at the probe,
    the call made (with: ``level``; without: level - 1 where the side stood lower, since a denial
    includes the calls below it, so both branches differ by the one step). Returns the cap both
    branches put on the caller's side: (side, its level from here)."""
    branch = segment - 1
    seat = row[PR_SEAT]
    side = row[PR_SIDE]
    if branch == 1:
        copy_position(pos, at.pos_at)
        copy_array(sc.call_masks, at.call_masks_at)
        copy_array(sc.rng, at.rng_at)
        if at.level_before[0] < level - 1:  # the calls below ``level`` are made in both
            make_call(pos.st, pos.hands, seat, level - 1)
            refresh_call_masks(pos, sc.call_masks)
    else:
        make_call(pos.st, pos.hands, seat, level)
        refresh_call_masks(pos, sc.call_masks)
    return np.int64(side), np.int64(level - branch)


@inline_kernel
def after_probe_segment(segment, level, row, pos, sc, at):
    """After a probe's segment: at the moment (segment 0), the caller drawn uniformly among the
    seats that may call ``level`` now, what it sees, and the position kept (False when nobody
    may: the probe ends there); after a branch, its outcome in the row. Returns whether to go on."""
    st = pos.st
    if segment == 0:
        candidates = np.int64(0)
        for s in range(4):
            if (sc.call_masks[s] >> level) & 1:
                candidates |= np.int64(1) << s
        if candidates == 0:
            return False
        seat = nth_set_bit(candidates, below(at.probe_rng, popcount(candidates)))
        side = 0 if seat_is_re(st, seat) else 1
        at.level_before[0] = st[P_LEVEL_RE + side]
        row[PR_SEAT] = seat
        row[PR_SIDE] = side
        probe_features(pos, seat, side, row)
        copy_position(at.pos_at, pos)
        copy_array(at.call_masks_at, sc.call_masks)
        copy_array(at.rng_at, sc.rng)
        return True
    branch = segment - 1
    seat = row[PR_SEAT]
    side = row[PR_SIDE]
    res = sc.res
    score_deal(st, pos.plays, pos.play_seat, pos.trick_winner, sc.items, res)
    row[PR_SCORE + branch] = res[RES_SCORE + seat]
    row[PR_SUCCESS + branch] = call_made_good(level, side, res, st[P_HAND_SIZE])
    row[PR_WIN + branch] = 1 if res[RES_WINNER] == side else 0
    row[PR_EYES_SIDE + branch] = res[RES_EYES_RE] if side == 0 else 240 - res[RES_EYES_RE]
    row[PR_LEVEL_OPP_AFTER + branch] = st[P_LEVEL_KO - side]
    row[PR_VALUE + branch] = res[RES_VALUE]
    return True
