"""simulate(fixed_hand=(seat, hand)): one seat always holds the given cards, the rest is dealt at random."""
import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from dokosim.engine.cards import NINES_MASK, mask_str, parse_hand
from dokosim.run.driver import read_manifest
from dokosim.run.simulate import SimulationError, simulate

HAND = "QC QS TH JD AD 9D AC TC KS AH 9H 9S"
ALL = (1 << 48) - 1


def hands_of(df, n_seats=4):
    return df.select([f"hand_{s}" for s in range(n_seats)]).to_numpy().astype(np.int64)


@pytest.fixture(scope="module")
def fixed_run():
    return simulate(30_000, seed=21, strategy="random", fixed_hand=(2, HAND), calls=False)


def test_the_seat_holds_exactly_the_hand_and_the_rest_is_the_pack(fixed_run):
    mask = parse_hand(HAND)
    hands = hands_of(fixed_run)
    assert (hands[:, 2] == mask).all()
    assert (np.bitwise_or.reduce(hands, axis=1) == ALL).all()
    for row in hands[:2000]:
        assert [bin(int(h)).count("1") for h in row] == [12, 12, 12, 12]
    assert sorted(fixed_run["dealer"].unique().to_list()) == [0, 1, 2, 3]


def test_the_other_cards_are_dealt_uniformly(fixed_run):
    # each of the 36 other cards lies with each other seat in 1/3 of deals, and the two
    # copies of a card type outside the fixed hand lie in the same hand in 11/35 of deals
    mask = parse_hand(HAND)
    hands = hands_of(fixed_run)
    n = len(hands)
    se = math.sqrt((1 / 3) * (2 / 3) / n)
    others = [c for c in range(48) if not mask >> c & 1]
    assert len(others) == 36
    for c in others:
        for s in (0, 1, 3):
            share = float(np.mean((hands[:, s] >> c) & 1))
            assert abs(share - 1 / 3) < 4.5 * se, (c, s, share)
    se_pair = math.sqrt((11 / 35) * (24 / 35) / n)
    for t in range(24):
        if mask >> (2 * t) & 3:
            continue
        same = np.zeros(n, dtype=bool)
        for s in (0, 1, 3):
            same |= ((hands[:, s] >> (2 * t)) & 3) == 3
        assert abs(same.mean() - 11 / 35) < 4.5 * se_pair, (t, same.mean())


def test_a_mask_and_the_card_string_give_the_same_rows():
    mask = parse_hand(HAND)
    a = simulate(2000, seed=3, strategy="simple", fixed_hand=(0, HAND))
    b = simulate(2000, seed=3, strategy="simple", fixed_hand=(0, mask), chunk_size=700)
    assert_frame_equal(a, b)
    assert (a["hand_0"] == mask).all()
    # the deal stream is that of (seed, deal_id): deals of a longer run match
    c = simulate(3000, seed=3, strategy="simple", fixed_hand=(0, mask))
    assert_frame_equal(a, c.head(2000))
    # and the fixed hand plays: scores still sum to zero
    assert (a.select(pl.sum_horizontal([f"score_{s}" for s in range(4)])).to_series() == 0).all()


def test_lowercase_tens_and_both_copies_are_accepted():
    df = simulate(50, seed=1, fixed_hand=(1, "qc qc 10h th jd ad 9d ac tc ks ah 9h"))
    assert mask_str(df["hand_1"][0]).split() == ["TH", "TH", "QC", "QC", "JD", "AD", "9D",
                                                 "AC", "TC", "KS", "AH", "9H"]


def test_without_nines_the_hand_has_ten_cards():
    hand = "QC QS TH JD AD AC TC KS AH KH"
    df = simulate(3000, seed=5, rules="sharp", fixed_hand=(3, hand), calls=False)
    hands = hands_of(df)
    assert (hands[:, 3] == parse_hand(hand)).all()
    assert (np.bitwise_or.reduce(hands, axis=1) == ALL ^ int(NINES_MASK)).all()
    assert ((hands & int(NINES_MASK)) == 0).all()


@pytest.mark.parametrize("fixed, needle", [
    ((4, HAND), "seat must be 0-3"),
    ((0, "QC QS TH"), "has 3 cards; a hand has 12"),
    ((0, HAND + " KD"), "has 13 cards"),
    ((0, "QC QC QC TH JD AD 9D AC TC KS AH 9H"), "QC more than twice"),
    ((0, "QX QS TH JD AD 9D AC TC KS AH 9H 9S"), "unknown card 'QX'"),
    ((0, 1 << 48), "48-bit"),
    ((0, 3.5), "48-bit mask or cards"),
    (HAND, "(seat, hand)"),
])
def test_bad_fixed_hands_are_refused_in_one_line(fixed, needle):
    with pytest.raises(SimulationError) as info:
        simulate(10, fixed_hand=fixed)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_a_nine_under_no_nines_is_refused():
    with pytest.raises(SimulationError, match="nine.*no_nines"):
        simulate(10, rules="sharp", fixed_hand=(0, "QC QS TH JD AD 9D AC TC KS AH"))


def test_the_manifest_records_the_fixed_hand_and_resume_checks_it(tmp_path):
    mask = parse_hand(HAND)
    simulate(1000, seed=2, fixed_hand=(1, HAND), out=tmp_path / "d", chunk_size=500)
    manifest = read_manifest(tmp_path / "d")
    assert manifest["fixed_hand"] == [1, mask]
    assert sorted(manifest["fixed_hand_cards"].split()) == sorted(HAND.split())
    simulate(1000, seed=2, fixed_hand=(1, mask), out=tmp_path / "d", chunk_size=500)  # the same run
    with pytest.raises(ValueError, match="fixed_hand"):
        simulate(1000, seed=2, fixed_hand=(2, HAND), out=tmp_path / "d", chunk_size=500)
    with pytest.raises(ValueError, match="fixed_hand"):
        simulate(1000, seed=2, out=tmp_path / "d", chunk_size=500)
    # a run without fixed_hand keeps its old manifest (no fixed_hand key)
    simulate(100, seed=2, out=tmp_path / "e")
    assert "fixed_hand" not in read_manifest(tmp_path / "e")


def test_show_replays_a_fixed_hand_dataset_with_its_fixed_hand(tmp_path):
    from dokosim.cli.show import dataset_record
    hand = "QC QC TH TH QS QS JC JC AD AD TD TD"
    out = tmp_path / "run"
    simulate(20, seed=4, strategy="simple", fixed_hand=(2, hand), out=out, quiet=True)
    record = dataset_record(out, 7)  # what `dokosim show DIR --deal-id 7` replays
    assert parse_hand(record["hands"][2]) == parse_hand(hand)


def test_a_fixed_hand_joins_other_conditions():
    from dokosim.engine.cards import CLASS_MASK, SCHEME_NORMAL, TRUMP
    df = simulate(2000, seed=6, strategy="random", fixed_hand=(2, HAND), where="trumps(1) >= 8")
    hands = hands_of(df)
    assert (hands[:, 2] == parse_hand(HAND)).all()
    trumps = int(CLASS_MASK[SCHEME_NORMAL, TRUMP])
    assert all(int(h & trumps).bit_count() >= 8 for h in hands[:, 1])
    assert (np.bitwise_or.reduce(hands, axis=1) == ALL).all()
    with pytest.raises(SimulationError, match="both give seat 2"):
        simulate(10, fixed_hand=(2, HAND), hands={2: "AC"})
