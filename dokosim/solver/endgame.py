"""The last two or three tricks by a plain minimax over the open hands (cheaper than the table
there): one minimax, written once, as ``_two_tricks`` (the last trick forced after it) and
``_three_tricks`` (``_two_tricks`` after it)."""
import types

import numpy as np

from ..engine.cards import EYES
from ..engine.bits import lowest_bit_index
from ..engine.jit import decision_kernel, inline_kernel
from ..engine.layout import R_DULLE
from ..engine.play import best_offset
from .moves import _options
from .workspace import INF, views


@inline_kernel
def _better(best, v, maxi, alpha, beta):
    """(the better of ``best`` and ``v`` for a seat that maximises when ``maxi``, else minimises;
    whether that ends the search of the seat's cards: it reaches the window (alpha, beta)'s edge)."""
    if maxi:
        if v > best:
            best = v
        return best, best >= beta
    if v < best:
        best = v
    return best, best <= alpha


@inline_kernel
def _follow(h, led):
    """The cards of hand ``h`` that may follow a trick led in the class of ``led`` (its cards of
    the class, or all when void), one copy of each card held twice."""
    legal = h & led
    if legal == 0:
        legal = h
    return _options(legal)


@inline_kernel
def _take(m, h, plays, i, tricks):
    """Play the lowest card of the options ``m`` of hand ``h`` as card index ``i``: (that card,
    the options left, with two tricks left the hand's other card (else 0))."""
    x = lowest_bit_index(m)
    plays[i] = x
    other = lowest_bit_index(h ^ (np.int64(1) << x)) if tricks == 2 else 0
    return x, m & (m - 1), other


@inline_kernel
def _no_more(ws, n, lead, re, alpha, beta):
    """What follows the last two tricks: nothing (never called; ``_two_tricks``' ``_after``)."""
    return 0


TRICKS = 2  # _minimax's globals, replaced in each compiled copy (_specialised)
_after = _no_more


def _minimax(ws, n, lead, re, alpha, beta):
    """Re's eyes in the last ``TRICKS`` (2 or 3) tricks of the workspace's position, from their first
    card (index ``n``, led by ``lead``; Re the seats of ``re``), fail-soft in (alpha, beta) as
    ``search``: the first trick by
    a plain minimax over both copies of a card as one, each seat's cards stopping at the window's
    edge; after it the last trick forced (2) or the last two by ``_after`` (3). Only once the
    parties are settled (the caller checks). Compiled twice by ``_specialised``, with its own
    ``TRICKS`` and ``_after`` each: as one function that calls itself it crashed when numba
    loaded it from its cache (like ``score_search`` before it was made iterative)."""
    tricks = TRICKS
    pos, rules = views(ws)
    hands, plays, power, fclass, cmask = pos.hands, pos.plays, pos.power, pos.fclass, pos.cmask
    dulle = rules[R_DULLE]
    h0 = hands[lead]
    h1 = hands[(lead + 1) & 3]
    h2 = hands[(lead + 2) & 3]
    h3 = hands[(lead + 3) & 3]
    # Re's seats, by their place from the leader
    r0 = (re >> lead) & 1
    r1 = (re >> ((lead + 1) & 3)) & 1
    r2 = (re >> ((lead + 2) & 3)) & 1
    r3 = (re >> ((lead + 3) & 3)) & 1
    rel = r0 | (r1 << 1) | (r2 << 2) | (r3 << 3)
    max0 = r0 == 1
    max1 = r1 == 1
    max2 = r2 == 1
    max3 = r3 == 1
    total = 0
    if tricks == 2:
        m = h0 | h1 | h2 | h3
        while m:
            total += EYES[lowest_bit_index(m)]
            m &= m - 1
    best0 = -1 if max0 else INF
    m0 = _options(h0)
    while m0:
        a, m0, o0 = _take(m0, h0, plays, n, tricks)
        led = cmask[fclass[a]]
        best1 = -1 if max1 else INF
        m1 = _follow(h1, led)
        while m1:
            b, m1, o1 = _take(m1, h1, plays, n + 1, tricks)
            best2 = -1 if max2 else INF
            m2 = _follow(h2, led)
            while m2:
                c, m2, o2 = _take(m2, h2, plays, n + 2, tricks)
                best3 = -1 if max3 else INF
                e3 = EYES[a] + EYES[b] + EYES[c]
                m3 = _follow(h3, led)
                while m3:
                    d, m3, o3 = _take(m3, h3, plays, n + 3, tricks)
                    w = best_offset(plays, n, 4, power, fclass, dulle, False)
                    e1 = e3 + EYES[d]
                    if tricks == 2:
                        # the last trick, led by the winner: each seat's other card
                        if w == 0:
                            plays[n + 4] = o0
                            plays[n + 5] = o1
                            plays[n + 6] = o2
                            plays[n + 7] = o3
                        elif w == 1:
                            plays[n + 4] = o1
                            plays[n + 5] = o2
                            plays[n + 6] = o3
                            plays[n + 7] = o0
                        elif w == 2:
                            plays[n + 4] = o2
                            plays[n + 5] = o3
                            plays[n + 6] = o0
                            plays[n + 7] = o1
                        else:
                            plays[n + 4] = o3
                            plays[n + 5] = o0
                            plays[n + 6] = o1
                            plays[n + 7] = o2
                        w2 = (w + best_offset(plays, n + 4, 4, power, fclass, dulle, True)) & 3
                        v = (e1 if (rel >> w) & 1 else 0) + (total - e1 if (rel >> w2) & 1 else 0)
                    else:
                        base = e1 if (rel >> w) & 1 else 0
                        hands[lead] = h0 ^ (np.int64(1) << a)
                        hands[(lead + 1) & 3] = h1 ^ (np.int64(1) << b)
                        hands[(lead + 2) & 3] = h2 ^ (np.int64(1) << c)
                        hands[(lead + 3) & 3] = h3 ^ (np.int64(1) << d)
                        v = base + _after(ws, n + 4, (lead + w) & 3, re, alpha - base, beta - base)
                        hands[lead] = h0
                        hands[(lead + 1) & 3] = h1
                        hands[(lead + 2) & 3] = h2
                        hands[(lead + 3) & 3] = h3
                    best3, cut = _better(best3, v, max3, alpha, beta)
                    if cut:
                        break
                best2, cut = _better(best2, best3, max2, alpha, beta)
                if cut:
                    break
            best1, cut = _better(best1, best2, max1, alpha, beta)
            if cut:
                break
        best0, cut = _better(best0, best1, max0, alpha, beta)
        if cut:
            break
    return best0


def _specialised(name, jit, tricks, after):
    """``_minimax`` compiled by ``jit`` as ``name`` for ``tricks`` tricks with ``after`` for the
    tricks after the first: a copy of the function with those globals of its own."""
    f = types.FunctionType(_minimax.__code__, {**globals(), "TRICKS": tricks, "_after": after}, name)
    f.__qualname__ = name  # numba's cache files are named by it
    f.__doc__ = _minimax.__doc__
    return jit(f)


_two_tricks = _specialised("_two_tricks", inline_kernel, 2, _no_more)
_three_tricks = _specialised("_three_tricks", decision_kernel, 3, _two_tricks)
