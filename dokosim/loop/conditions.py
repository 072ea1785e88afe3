"""Conditional dealing: deal only the deals a condition holds for (docs/conditions.md).

The condition of a run is a block of int64 words at the end of sim_loop's ``control`` vector
(``control[COND_BASE:]``), built by ``dokosim.conditions``: so every condition runs through the
one compiled deal loop, and no condition is a new specialisation of it.

The block: the cards placed first (``--hand``), the open places of each seat, a count class
dealt directly (a seat's number of cards of a class, drawn from its exact truncated
hypergeometric distribution), the expression compiled to a small bytecode that
``condition_holds`` evaluates on the four hand masks, and the address of a user's compiled
predicate (or 0). ``deal_conditioned`` draws deals from the deal's own random stream until
one satisfies everything, at most ``control[K_MAX_TRIES]`` tries.

Why the result is the uniform deal given the condition: the count class is dealt by its exact
conditional distribution (the count first, then the cards of the class and the others
uniformly); a partial hand places copy 0 of a card, which makes a deal in which the seat holds
both copies of a card it needs once twice as likely as it should be (either copy could have
been the one placed), so such a deal is kept with probability 1/2 for each such card
(``K_HALF``); what the construction does not cover is left to rejection.
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from ..engine.bits import nth_set_bit, popcount
from ..engine.jit import decision_kernel, kernel
from ..engine.rng import below, next_u64, seed_stream
from ..engine.stack import stack_zeros
from .control import CONTROL_LEN

COND_BASE = CONTROL_LEN  # the block follows the plain control words
K_ON = COND_BASE            # 1: the run has a condition
K_MAX_TRIES = COND_BASE + 1  # tries per deal before the deal is given up (marked redeals = -1)
K_FREE = COND_BASE + 2       # the cards not placed (the pack less the placed cards)
K_FIXED = COND_BASE + 3      # 4 words: each seat's placed cards
K_SLOTS = COND_BASE + 7      # 4 words: each seat's places left after the placed cards
K_HALF = COND_BASE + 11      # 4 words: copies whose presence with that seat halves the weight
K_DIRECT_SEAT = COND_BASE + 15  # the seat of the count class dealt directly, -1 none
K_DIRECT_MASK = COND_BASE + 16  # the class's cards among the free ones
K_CDF = COND_BASE + 17       # 13 words: P(count <= x) of the truncated distribution, scaled 2**53
K_PREDICATE = COND_BASE + 30  # a user's predicate: the address of int64(int64, int64, int64, int64), or 0
K_PROGRAM_LEN = COND_BASE + 31
K_PROGRAM = COND_BASE + 32   # the bytecode
CDF_SCALE = 1 << 53
STACK_DEPTH = 32             # the bytecode's stack (dokosim.conditions refuses deeper expressions)

# bytecode: OP_PUSH value, OP_COUNT seat mask, the rest without operands
(OP_PUSH, OP_COUNT, OP_ADD, OP_SUB, OP_MUL, OP_NEG, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
 OP_AND, OP_OR, OP_NOT) = range(15)
OPERANDS = {OP_PUSH: 1, OP_COUNT: 2}


@intrinsic
def call_predicate(typingctx, addr, h0, h1, h2, h3):
    """The user's predicate at ``addr`` on the four hand masks: int64(int64, int64, int64, int64)."""
    for a in (addr, h0, h1, h2, h3):
        if not isinstance(a, types.Integer):
            raise TypingError(f"call_predicate: expected integers, got {a}")
    sig = types.int64(addr, h0, h1, h2, h3)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        values = [context.cast(builder, v, t, types.int64) for v, t in zip(args[1:], signature.args[1:])]
        fnty = ir.FunctionType(i64, [i64] * 4)
        address = context.cast(builder, args[0], signature.args[0], types.intp)
        return builder.call(builder.inttoptr(address, fnty.as_pointer()), values)

    return sig, codegen


@decision_kernel
def condition_holds(control, hands):
    """Whether the four hands satisfy the run's expression (bytecode) and predicate."""
    stack = stack_zeros(STACK_DEPTH, np.int64)
    n = control[K_PROGRAM_LEN]
    pc = K_PROGRAM
    end = K_PROGRAM + n
    top = 0
    while pc < end:
        op = control[pc]
        if op == OP_PUSH:
            stack[top] = control[pc + 1]
            top += 1
            pc += 2
            continue
        if op == OP_COUNT:
            stack[top] = popcount(hands[control[pc + 1] & 3] & control[pc + 2])
            top += 1
            pc += 3
            continue
        pc += 1
        if op == OP_NEG:
            stack[top - 1] = -stack[top - 1]
            continue
        if op == OP_NOT:
            stack[top - 1] = 1 if stack[top - 1] == 0 else 0
            continue
        b = stack[top - 1]
        a = stack[top - 2]
        top -= 1
        if op == OP_ADD:
            r = a + b
        elif op == OP_SUB:
            r = a - b
        elif op == OP_MUL:
            r = a * b
        elif op == OP_EQ:
            r = 1 if a == b else 0
        elif op == OP_NE:
            r = 1 if a != b else 0
        elif op == OP_LT:
            r = 1 if a < b else 0
        elif op == OP_LE:
            r = 1 if a <= b else 0
        elif op == OP_GT:
            r = 1 if a > b else 0
        elif op == OP_GE:
            r = 1 if a >= b else 0
        elif op == OP_AND:
            r = 1 if (a != 0 and b != 0) else 0
        else:  # OP_OR
            r = 1 if (a != 0 or b != 0) else 0
        stack[top - 1] = r
    if n > 0 and stack[0] == 0:
        return False
    addr = control[K_PREDICATE]
    return addr == 0 or call_predicate(addr, hands[0], hands[1], hands[2], hands[3]) != 0


@decision_kernel
def deal_conditioned(rng, control, hands):
    """Deal from ``rng`` until the hands satisfy the run's condition; returns the tries it took,
    or -1 after control[K_MAX_TRIES] tries without one (the hands then hold the last try)."""
    free0 = control[K_FREE]
    d_seat = control[K_DIRECT_SEAT]
    d_mask = control[K_DIRECT_MASK]
    max_tries = control[K_MAX_TRIES]
    tries = 0
    while tries < max_tries:
        tries += 1
        free = free0
        for s in range(4):
            hands[s] = control[K_FIXED + s]
        if d_seat >= 0:
            # the count of the class the seat gets among its open places, then those cards
            u = np.int64(next_u64(rng) >> np.uint64(11))
            x = 0
            while u >= control[K_CDF + x]:
                x += 1
            cls = d_mask
            n_cls = popcount(cls)
            for _ in range(x):
                c = nth_set_bit(cls, below(rng, n_cls))
                cls ^= np.int64(1) << c
                n_cls -= 1
                hands[d_seat] |= np.int64(1) << c
            rest = free & ~d_mask
            n_rest = popcount(rest)
            for _ in range(control[K_SLOTS + d_seat] - x):
                c = nth_set_bit(rest, below(rng, n_rest))
                rest ^= np.int64(1) << c
                n_rest -= 1
                hands[d_seat] |= np.int64(1) << c
            free &= ~hands[d_seat]
        n_free = popcount(free)
        last = -1
        for s in range(4):
            if s == d_seat or control[K_SLOTS + s] == 0:
                continue
            last = s
        for s in range(4):
            if s == d_seat or s == last:
                continue
            for _ in range(control[K_SLOTS + s]):
                c = nth_set_bit(free, below(rng, n_free))
                free ^= np.int64(1) << c
                n_free -= 1
                hands[s] |= np.int64(1) << c
        if last >= 0:
            hands[last] |= free
        # a card needed once that the seat holds twice: kept with probability 1/2 (module doc)
        doubled = 0
        for s in range(4):
            doubled += popcount(hands[s] & control[K_HALF + s])
        if doubled > 0 and (next_u64(rng) & ((np.uint64(1) << np.uint64(doubled)) - np.uint64(1))) != 0:
            continue
        if condition_holds(control, hands):
            return tries
    return -1


@kernel
def measure_acceptance(seed, n, control, max_tries):
    """Deal deals 0 .. n - 1 of ``seed`` (their first streams) under the condition in ``control``,
    as the deal loop does, within ``max_tries`` tries in all. Returns (deals dealt, tries): fewer
    than ``n`` deals when the tries ran out."""
    rng = np.zeros(2, dtype=np.uint64)
    hands = np.zeros(4, dtype=np.int64)
    tries = 0
    for deal_id in range(n):
        seed_stream(rng, seed, deal_id, 0)
        budget = max_tries - tries
        if budget <= 0:
            return deal_id, tries
        saved = control[K_MAX_TRIES]
        control[K_MAX_TRIES] = budget
        t = deal_conditioned(rng, control, hands)
        control[K_MAX_TRIES] = saved
        if t < 0:
            return deal_id, max_tries
        tries += t
    return n, tries
