"""``dokosim.VectorGame``: every row plays exactly the deal a ``Game`` of the same (seed, deal_id)
plays with the same actions, auto-reset included, whatever the thread count and whichever outputs
are asked for (float32 or uint8 observations or none, the legal actions as a mask or as bits)."""
import numba
import numpy as np
import pytest

from dokosim.engine.cards import CONTRACT_NAMES, EYES, card_name
from dokosim.engine import game_state as gs
from dokosim.game.game import N_ACTIONS, OBSERVATION_LEN, Game, GameError
from dokosim.game.vector import VectorGame

MODES = [("float32", "mask"), ("uint8", "mask"), (None, "bits"), ("uint8", "bits")]


def random_legal(legal, rng):
    """One uniformly random legal action per row (an int8 mask)."""
    return np.argmax(legal * rng.random(legal.shape), axis=1)


def mask_of(bits):
    return ((bits[:, None] >> np.arange(N_ACTIONS)) & 1).astype(np.int8)


@pytest.mark.parametrize(("observation", "legal", "rules"), [(*m, "ddv") for m in MODES] + [("float32", "mask", "club")])
def test_rows_are_games_with_the_same_actions_and_reset_to_their_next_deal(observation, legal, rules):
    n, seed = 6, 11
    vec = VectorGame(n, rules=rules, seed=seed, first_deal_id=100, observation=observation, legal=legal)
    games = [Game(rules, seed=seed, deal_id=100 + i) for i in range(n)]
    episodes = [0] * n
    rng = np.random.default_rng(0)
    finished = 0
    for step in range(700):
        mask = vec.legal if legal == "mask" else mask_of(vec.legal)
        np.testing.assert_array_equal(mask, mask_of(vec.legal_bits))
        for i, game in enumerate(games):
            assert vec.player[i] == game.current_player
            expected = np.zeros(N_ACTIONS, np.int8)
            expected[game.legal_actions()] = 1
            np.testing.assert_array_equal(mask[i], expected)
            tensor = game.observation_tensor(game.current_player)
            if observation == "float32":
                np.testing.assert_array_equal(vec.obs[i], tensor)
            elif observation == "uint8":
                np.testing.assert_array_equal(vec.expand(vec.obs[i]), tensor)
        if observation is None and step % 50 == 0:  # on request instead
            np.testing.assert_array_equal(vec.observe(), [g.observation_tensor(g.current_player) for g in games])
        actions = random_legal(mask, rng)
        _, _, rewards, done = vec.step(actions)
        for i, game in enumerate(games):
            game.apply_action(int(actions[i]))
            if game.is_terminal():
                assert done[i]
                assert rewards[i].tolist() == game.returns()
                finished += 1
                episodes[i] += 1
                games[i] = Game(rules, seed=seed, deal_id=100 + episodes[i] * n + i)
            else:
                assert not done[i] and not rewards[i].any()
    assert finished >= 3 * n  # a deal is about 60 to 100 decisions: each row went through several
    assert vec.deal_ids().tolist() == [100 + episodes[i] * n + i for i in range(n)]


def run(n, steps, threads, observation="float32", legal="mask", rules="club"):
    numba.set_num_threads(threads)
    try:
        vec = VectorGame(n, rules=rules, seed=4, observation=observation, legal=legal)
        out = []
        for _ in range(steps):
            obs, mask, rewards, done = vec.step(vec.random_actions())
            out.append((rewards.copy(), done.copy(), mask.copy(), None if obs is None else obs.copy()))
        return out, vec.observe()
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@pytest.mark.parametrize(("observation", "legal"), MODES[:3])
def test_the_thread_count_changes_nothing(observation, legal):
    """Rows go to the threads in blocks, taken as threads come free: 300 steps of 1,000 rows (16
    blocks of 64) on one and on two threads give the same outputs, step by step."""
    one, obs1 = run(1000, 300, 1, observation, legal)
    two, obs2 = run(1000, 300, 2, observation, legal)
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(obs1, obs2)
    assert sum(int(d.sum()) for _, d, _, _ in one) > 1000  # deals ended, rows were reset


def test_uint8_observations_expand_to_the_float32_tensor_exactly():
    """obs / divisors is the float32 tensor: the scaled fields (call levels / 5, eyes / 240, tricks
    left / hand size) for every integer value they take, under both hand sizes."""
    for hand_size in (12, 10):
        d = gs.observation_divisors(hand_size)
        for offset, values, scale in ((gs.OBS_LEVELS, range(6), 5.0), (gs.OBS_EYES, range(241), 240.0),
                                      (gs.OBS_TRICKS_LEFT, range(hand_size + 1), float(hand_size))):
            u = np.zeros((len(values), OBSERVATION_LEN), np.uint8)
            u[:, offset] = list(values)
            expected = np.array([v / scale for v in values], np.float32)  # the kernel: float64, then float32
            np.testing.assert_array_equal(np.divide(u, d, dtype=np.float32)[:, offset], expected)
    vec = VectorGame(64, rules="sharp", seed=3, observation="uint8")  # 10 cards a hand
    for _ in range(40):
        vec.step(vec.random_actions())
    np.testing.assert_array_equal(vec.expand(vec.obs), vec.observe())
    np.testing.assert_array_equal(vec.observe(dtype=np.uint8), vec.obs)


def reference_tensor(game, seat):
    """The observation tensor from the game's own record of plays, with plain loops (the layout of
    docs/game.md), to check the kernel's table-driven fill and its running per-seat sums."""
    g = game._g
    x = np.zeros(OBSERVATION_LEN, np.float32)
    hand = int(g[gs.O_HANDS + seat])
    for c in range(48):
        if hand >> c & 1:
            x[gs.OBS_HAND + c // 2] += 1
    n = int(g[gs.O_ST + gs.P_NPLAYED])
    plays = g[gs.O_PLAYS:gs.O_PLAYS + n]
    who = g[gs.O_PSEAT:gs.O_PSEAT + n]
    eyes = [0, 0, 0, 0]
    for k in range(n):
        x[gs.OBS_PLAYED + 24 * who[k] + plays[k] // 2] += 1
    for t in range(n // 4):
        eyes[g[gs.O_TW + t]] += sum(int(EYES[c]) for c in plays[4 * t:4 * t + 4])
    for k in range(n - n % 4, n):
        x[gs.OBS_TRICK + 24 * (k - (n - n % 4)) + plays[k] // 2] = 1
    x[gs.OBS_EYES:gs.OBS_EYES + 4] = np.array(eyes) / 240.0
    x[gs.OBS_SEAT + seat] = 1
    player = game.current_player
    if player >= 0:
        x[gs.OBS_PLAYER + player] = 1
    x[gs.OBS_DEALER + int(g[gs.G_DEALER])] = 1
    phase = int(g[gs.G_PHASE])
    x[gs.OBS_PHASE + phase] = 1
    obs = game.observation(seat)
    if phase >= gs.PH_CALL:
        st = g[gs.O_ST:gs.O_ST + gs.ST_LEN]
        x[gs.OBS_LEADER + st[gs.P_LEADER]] = 1
        for s in obs["known_re"]:
            x[gs.OBS_KNOWN_RE + s] = 1
        for s in obs["known_kontra"]:
            x[gs.OBS_KNOWN_KO + s] = 1
        x[gs.OBS_LEVELS] = st[gs.P_LEVEL_RE] / 5.0
        x[gs.OBS_LEVELS + 1] = st[gs.P_LEVEL_KO] / 5.0
        x[gs.OBS_CONTRACT + st[gs.P_CONTRACT]] = 1
        party = None  # what the seat knows of its party, from the state as plainly as it goes
        if st[gs.P_KNOWN_RE] >> seat & 1:
            party = 0
        elif st[gs.P_KNOWN_KO] >> seat & 1:
            party = 1
        elif st[gs.P_CONTRACT] == CONTRACT_NAMES.index("normal"):  # its queens of clubs as dealt
            party = 0 if "QC" in [card_name(c) for c in range(48) if int(g[gs.O_HANDS0 + seat]) >> c & 1] else 1
        elif st[gs.P_CONTRACT] == CONTRACT_NAMES.index("marriage") and st[gs.P_CLARIFIED]:
            party = 0 if st[gs.H_RE_MASK] >> seat & 1 else 1
        assert (party is None) == (obs["own_party"] is None)
        if party is not None:
            x[gs.OBS_OWN_PARTY + party] = 1
        x[gs.OBS_TRICKS_LEFT] = (st[gs.P_HAND_SIZE] - st[gs.P_TRICK]) / st[gs.P_HAND_SIZE]
    if player == seat:
        x[gs.OBS_LEGAL + np.array(game.legal_actions())] = 1
    return x


@pytest.mark.parametrize("rules", ["ddv", "club"])
def test_the_observation_tensor_is_the_plain_reference(rules):
    """Every seat's tensor at every decision of 30 random deals (mostly healthy reservations, so
    normal games as well as solos; poverties in club rules; calls) equals the reference built
    by plain loops over the plays."""
    rng = np.random.default_rng(5)
    positions = 0
    contracts = set()
    for deal_id in range(30):
        game = Game(rules, seed=9, deal_id=deal_id)
        while True:
            for seat in range(4):
                np.testing.assert_array_equal(game.observation_tensor(seat), reference_tensor(game, seat))
                positions += 1
            if game.is_terminal():
                break
            legal = game.legal_actions()
            healthy = game.phase == "reservation" and 24 in legal and rng.random() < 0.9  # normal games too
            game.apply_action(24 if healthy else int(rng.choice(legal)))
        contracts.add(game.result()["contract"])
    assert positions > 30 * 4 * 50
    assert {"normal"} < contracts  # normal games and others


def test_random_actions_are_legal_uniform_and_reproducible():
    vec = VectorGame(2000, seed=8, observation=None, legal="bits")
    ranks = {}
    first = vec.random_actions()
    for _ in range(30):
        actions = vec.random_actions()
        bits = vec.legal_bits
        assert ((bits >> actions) & 1).all()
        for b, a in zip(bits.tolist(), actions.tolist()):
            k = bin(b).count("1")
            if 2 <= k <= 6:
                ranks.setdefault(k, []).append(bin(b & ((1 << a) - 1)).count("1"))  # a's place among the legal
        vec.step(actions)
    for k, r in ranks.items():  # each place equally likely: a chi-square at p = 0.001
        counts = np.bincount(r, minlength=k)
        expected = len(r) / k
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < {2: 10.83, 3: 13.82, 4: 16.27, 5: 18.47, 6: 20.52}[k], (k, counts)
    again = VectorGame(2000, seed=8, observation=None, legal="bits")
    np.testing.assert_array_equal(again.random_actions(), first)


def test_observe_on_request():
    vec = VectorGame(50, seed=6, observation=None, legal="bits")
    for _ in range(30):
        vec.step(vec.random_actions())
    rows = np.array([3, 0, 49, 3])
    full = vec.observe()
    np.testing.assert_array_equal(vec.observe(rows), full[rows])
    out = np.full((4, OBSERVATION_LEN), 7, np.uint8)
    assert vec.observe(rows, out=out, dtype=np.uint8) is out
    np.testing.assert_array_equal(vec.expand(out), full[rows])
    for i in (0, 49):
        game = vec.game(i)
        np.testing.assert_array_equal(full[i], game.observation_tensor(game.current_player))
    with pytest.raises(GameError, match=r"^rows=\[50\] is not valid: .*row indices 0 to 49"):
        vec.observe([50])
    with pytest.raises(GameError, match="is not valid: a writeable C-contiguous float32 array of shape"):
        vec.observe(rows, out=np.zeros((3, OBSERVATION_LEN), np.float32))


def test_an_illegal_action_is_refused_naming_the_row_and_nothing_changes():
    vec = VectorGame(3, seed=2)
    before = (vec.obs.copy(), vec._G.copy(), vec.legal_bits.copy())
    actions = vec.legal.argmax(axis=1)
    actions[1] = 3  # QC in the reservation phase
    with pytest.raises(GameError, match=r"row 1: action QC is not legal for seat 0; legal: healthy"):
        vec.step(actions)
    for x, y in zip(before, (vec.obs, vec._G, vec.legal_bits), strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(GameError, match="row 2: action 43 is not legal"):
        vec.step([24, 24, 43])
    with pytest.raises(GameError, match="one per row"):
        vec.step([24, 24])
    with pytest.raises(GameError, match="n=0 is not valid"):
        VectorGame(0)
    with pytest.raises(GameError, match="observation='half' is not valid: 'float32', 'uint8' or None"):
        VectorGame(2, observation="half")
    with pytest.raises(GameError, match="legal='list' is not valid"):
        VectorGame(2, legal="list")
    assert vec.obs.shape == (3, OBSERVATION_LEN)
    lean = VectorGame(3, observation=None, legal="bits")
    assert lean.obs is None and lean.legal is lean.legal_bits and lean.legal.dtype == np.int64


@pytest.mark.parametrize("rules", ["ddv", "club"])
def test_the_skipped_call_round_had_no_call(rules):
    """Where someone_may_call says no, legal_calls allows no seat anything (so skipping the round
    changes nothing); checked at every card of 200 random deals, marriages and poverties included.
    It says no at many of them (the skip is not vacuous)."""
    from dokosim.engine.play import legal_calls
    rng = np.random.default_rng(12)
    said_no = checked = 0
    for deal_id in range(200):
        game = Game(rules, seed=21, deal_id=deal_id)
        g = game._g
        while not game.is_terminal():
            if game.phase in ("call", "card"):
                st, hands = g[gs.O_ST:gs.O_ST + gs.ST_LEN], g[gs.O_HANDS:gs.O_HANDS + 4]
                checked += 1
                if not gs.someone_may_call(st, hands):
                    said_no += 1
                    assert [legal_calls(st, hands, s) for s in range(4)] == [0, 0, 0, 0], (deal_id, game.cards_played)
            game.apply_action(int(rng.choice(game.legal_actions())))
    assert said_no > checked / 4


def test_kinds_of_is_the_plain_loop():
    rng = np.random.default_rng(3)
    for mask in [0, (1 << 48) - 1, *rng.integers(0, 1 << 48, 500).tolist()]:
        assert gs.kinds_of(mask) == sum(1 << t for t in {c // 2 for c in range(48) if mask >> c & 1})
