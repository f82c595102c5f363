"""Optional rule sets: settlements checked by hand against the rules (docs/rules.md), naturals, and solving."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import solve_hand as solve
from solver import Arrangement, score_pair, score_table, settle_values
from solver.evaluator import row_values
from solver.naturals import Natural, best_natural, compare_naturals, natural_mask, naturals_of, settle_naturals
from solver.rules import COMMON_ROYALTIES, Rules, RulesError
from tests import naive
from tests.conftest import random_hands

# The worked example of the rules: B wins the front, A the middle and the back straight flush.
A = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"
B = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"
# S scoops W: pair of kings over 6-high, pair of aces over Q-high, a full house over two pair.
S = "KS KH 2C / AS AH 3C 4C 5S / 9D 9C 9H 6S 6H"
W = "3D 4H 6D / 7S 8H TD JH QD / 7D 7H 8C 8D 2H"
# F fouls (front trips over a middle pair); V is legal with back quads (4 in the preset).
F = "AS AH AD / 9S 9H 5C 6C 8D / KS KH KD 7C 7D"
V = "2C 3D 4H / 5D 6D 8H 9D JC / TC TD TH TS AC"
# R holds a middle royal flush (14 in the preset) and a back royal flush (7); Q a middle
# straight flush (10) and the same back.
R = "2C 2D 3H / TH JH QH KH AH / TS JS QS KS AS"
Q = "2C 2D 3H / 4S 5S 6S 7S 8S / TH JH QH KH AH"
F2 = "QS QH 2C / JS JH 3S 4D 6H / TS TH 4C 5S 7H"  # fouls too (queens over jacks)
# X and Y both hold front trips (3 each); Y wins the front and the middle, X the back.
X = "9S 9H 9D / TS TH TD 2C 3C / AS AH AD 5C 5D"
Y = "QS QH QD / KS KH KD 2D 3D / 7C 7D 7H 8S 8H"


@pytest.mark.parametrize(
    "a, b, rules, expected",
    [
        (A, B, "basic", 1),
        (A, B, "1-6", 1),  # two wins and a loss still nets 1
        (A, B, "2-4", 2),  # two of three nets 2
        (A, B, "royalties", 1 + 7),  # A's back royal flush earns its own line, 7
        (A, B, "royalties-win", 1 + 7),  # ... and A won that row
        (S, W, "basic", 3),
        (S, W, "1-6", 6),  # a scoop takes 6
        (S, W, "2-4", 4),  # a scoop nets 4
        (S, W, "royalties", 3),  # a full house pays only in the middle: a row earns only its own line
        (V, F, "basic", 3),
        (V, F, "1-6", 6),  # a fouled hand counts as scooped by every valid opponent
        (V, F, "2-4", 4),
        (V, F, "royalties", 3 + 4),  # F earns nothing for its trips and pays V's back quads
        (V, F, "royalties-win", 3 + 4),
        (R, A, "royalties", 0 + 14 + 7 - 7),  # A wins the front, R the middle, the backs tie
        (R, A, "royalties-win", 0 + 14),  # a tied row pays no royalty with the win switch
        (Q, A, "royalties", 0 + 10 + 7 - 7),  # a straight flush that is not royal pays its own line
        (Q, A, "2-4+royalties-win", 0 + 10),
        (F, F2, "basic", 0),  # two fouled hands score 0
        (F, F2, "1-6", 0),
        (F, F2, "2-4+royalties", 0),
        (X, Y, "basic", -1),
        (X, Y, "1-6", -1),
        (X, Y, "2-4", -2),  # Y wins more rows: one more unit
        (X, Y, "royalties", -1 + 3 - 3),  # both fronts earn 3
        (X, Y, "royalties-win", -1 - 3),  # only Y won its front
    ],
)
def test_settlements_by_hand(a, b, rules, expected):
    assert score_pair(a, b, rules) == expected
    assert score_pair(b, a, rules) == -expected


def test_the_example_hands_are_what_they_say():
    from solver import is_foul, row_results

    assert row_results(A, B) == (-1, 1, 1) and row_results(S, W) == (1, 1, 1) and row_results(X, Y) == (-1, -1, 1)
    assert is_foul(F) and is_foul(F2) and not any(is_foul(h) for h in (A, B, S, W, V, X, Y))


@pytest.mark.parametrize("rules", ["basic", "1-6", "2-4", "royalties", "royalties-win", "2-4+royalties"])
def test_random_pairs_match_the_reference_and_are_zero_sum(rng, rules):
    parsed = Rules.parse(rules)
    table = dict(COMMON_ROYALTIES) if parsed.royalties else {}
    for _ in range(400):
        cards = random_hands(rng, 1, size=26)[0].tolist()
        a = Arrangement(cards[0:3], cards[3:8], cards[8:13])
        b = Arrangement(cards[13:16], cards[16:21], cards[21:26])
        ra, rb = ([[int(c) for c in r] for r in x.rows] for x in (a, b))
        expected = naive.settle(ra, rb, parsed.scoring, table, parsed.royalty_needs_win)
        assert score_pair(a, b, parsed) == expected
        assert score_pair(b, a, parsed) == -expected


# A table of three worked by hand: V (back quads, legal), F (fouls) and T: front trips
# (3 in the preset), a middle full house (2) and a back full house (no line).
T = "2D 2H 2S / 3C 3H 3S 4C 4D / QC QD QH JD JH"


@pytest.mark.parametrize(
    "rules, expected",
    [
        # V v T: T takes the front and the middle, V the back: -1 before any extra.
        ("basic", (3 - 1, 1 + 3, -6)),
        ("1-6", (6 - 1, 1 + 6, -12)),  # each scoops F: 6
        ("2-4", (4 - 2, 2 + 4, -8)),  # V v T: one row of three, -1 more; F is scooped: 4
        # V earns 4 (back quads) from F and T; T earns 3 + 2 from F and V; F earns nothing.
        ("royalties", (3 + 4 + (-1 + 4 - 5), (1 - 4 + 5) + 3 + 5, -6 - 4 - 5)),
        # With the win switch every royalty above is on a row won (F's rows all count as lost).
        ("2-4+royalties-win", (4 + 4 + (-2 + 4 - 5), (2 - 4 + 5) + 4 + 5, -8 - 4 - 5)),
    ],
)
def test_a_table_of_three_worked_by_hand(rules, expected):
    assert score_table([V, T, F], rules) == expected
    assert score_table([F, V, T], rules) == (expected[2], expected[0], expected[1])


@pytest.mark.parametrize("rules", ["1-6", "2-4+royalties-win", "1-6+royalties"])
def test_tables_under_every_rule_set_agree_with_the_reference(rng, rules):
    """Four seats: each seat's score is the sum of the reference's settlements against the
    other three (tests/naive.py). Half the hands are set by ``greedy`` (legal, often with
    royalties), half at random (often fouled). Fails if a pairing is dropped or settled wrong."""
    from bots import make_bot

    parsed = Rules.parse(rules)
    table = dict(COMMON_ROYALTIES) if parsed.royalties else {}
    greedy = make_bot("greedy")
    earned = 0
    for _ in range(50):
        cards = random_hands(rng, 1, size=52)[0].tolist()
        arrs = [Arrangement(cards[13 * p:13 * p + 3], cards[13 * p + 3:13 * p + 8], cards[13 * p + 8:13 * p + 13])
                for p in range(4)]
        arrs[2:] = [greedy.arrange(a.cards, None) for a in arrs[2:]]
        rows = [[[int(c) for c in r] for r in a.rows] for a in arrs]
        scores = score_table(arrs, parsed)
        for i in range(4):
            assert scores[i] == sum(naive.settle(rows[i], rows[j], parsed.scoring, table, parsed.royalty_needs_win)
                                    for j in range(4) if j != i)
        earned += sum(table.get((name, naive.royalty_hand(row, name, table)), 0) > 0
                      for r in rows if not naive.fouled(*r) for name, row in zip(("front", "middle", "back"), r))
    assert earned > 0 or not table  # some row earned a royalty


# --- naturals ---------------------------------------------------------------------------------

NATURAL_HANDS = {
    "dragon": "AS KD QH JC TS 9D 8H 7C 6S 5D 4H 3C 2S",
    "four trips": "AS AH AD KS KH KD QS QH QD JS JH JD 2C",
    "three straights": "AS 2D 3H 4C 5S 6D 7H 8C 9C TS JD QH KC",
    "three flushes": "KC 5C 9C 3D 6D 8D JD KD 4H 7H TH QH AH",
    "six pairs": "AS AD KH KC QS QD JH JC TS TD 9H 9C 2S",
}
NEAR_MISSES = {
    "dragon": "AS KD QH JC TS 9D 8H 7C 6S 5D 4H 3C 3S",  # a pair instead of the deuce
    "four trips": "AS AH AD KS KH KD QS QH QD JS JH 2D 2C",  # three trips and two pairs
    "three straights": "AS 2D 3H 4C 5S 6D 7H 8C 9C TS JD QH QC",  # K missing
    "three flushes": "KC 5C 9C 3C 6D 8D JD KD 4H 7H TH QH AH",  # 4 clubs, 4 diamonds, 5 hearts
    "six pairs": "AS AD KH KC QS QD JH JC TS TD 9H 8C 2S",  # five pairs
}


@pytest.mark.parametrize("kind", sorted(NATURAL_HANDS))
def test_each_natural_is_found(kind):
    assert kind in [n.kind for n in naturals_of(NATURAL_HANDS[kind])]
    cards = np.array([[int(c) for c in Arrangement.parse("AS AH AD / " + "KS KH KD QS QH / QD JS JH JD 2C").cards]])
    assert natural_mask(cards)[0]  # four trips, as a batch


@pytest.mark.parametrize("kind", sorted(NEAR_MISSES))
def test_near_misses_are_not(kind):
    assert kind not in [n.kind for n in naturals_of(NEAR_MISSES[kind])]


def test_natural_mask_agrees_with_detection(rng):
    hands = random_hands(rng, 3000)
    exact = np.array([bool(naturals_of(h.tolist())) for h in hands])
    assert (natural_mask(hands) == exact).all() and exact.sum() > 5


def test_naturals_against_hands_and_each_other():
    rules = Rules.parse("naturals")
    six = best_natural(NATURAL_HANDS["six pairs"], rules)
    trips = best_natural(NATURAL_HANDS["four trips"], rules)
    dragon = Natural("dragon", ())
    assert score_pair(six, W, rules) == 3 and score_pair(W, six, rules) == -3
    assert score_pair(trips, B, rules) == 4  # four trips pays 4
    assert settle_naturals(dragon, six, rules) == 3  # the higher natural collects its payout
    assert settle_naturals(six, trips, rules) == -4
    lower_six = Natural("six pairs", (11, 10, 9, 8, 7, 6))
    assert compare_naturals(six, lower_six) == 1 and settle_naturals(lower_six, six, rules) == -3
    assert settle_naturals(six, six, rules) == 0  # the same natural, equal: a tie pays nothing
    flushes = naturals_of(NATURAL_HANDS["three flushes"])
    assert [n.kind for n in flushes] == ["three flushes"]
    back, middle, front = flushes[0].key  # back first, then middle, then front
    assert str(flushes[0].arrangement) == "KC 9C 5C / KD JD 8D 6D 3D / AH QH TH 7H 4H"
    assert back > middle > front
    with pytest.raises(RulesError, match="no naturals"):
        score_pair(six, W, "basic")


def test_a_solved_natural_says_whether_to_declare():
    solution = solve(NATURAL_HANDS["six pairs"], samples=300, seed=1, rules="naturals")
    assert solution.natural == "six pairs" and solution.natural_ev > 2.5
    assert solution.declare == (solution.natural_ev > solution.ev)
    assert solve(NATURAL_HANDS["six pairs"], samples=100, seed=1).natural is None  # off by default


# --- solving under coupled rules --------------------------------------------------------------


@pytest.mark.parametrize("distinct", ["values", "hands"])
@pytest.mark.parametrize("rules", ["1-6", "2-4", "2-4+royalties-win", "royalties"])
def test_best_plays_equal_brute_force_on_the_same_sample(rules, distinct):
    """Every legal split scored against every sampled opponent, with no bounds and no
    candidate list: the solver's best and runner-up plays must have the top EVs of that
    brute force, taking the best play of each group (same row values, or rows called the
    same). Fails if bounds drop a play that belongs in the top four, or if copies of one
    play crowd a runner-up out."""
    from solver import all_splits
    from solver.evaluator import hand_keys

    parsed = Rules.parse(rules)
    for seed, hand in enumerate(random_hands(np.random.default_rng(300), 4)):
        solution = solve(hand.tolist(), samples=120, seed=seed, rules=rules, keep_sample=True, top=3,
                         distinct=distinct)
        opponents = np.stack(row_values(solution.sample), axis=1)
        splits = all_splits(hand.tolist())
        legal = np.flatnonzero(splits.legal)
        plays = np.unique(np.stack([splits.front[legal], splits.middle[legal], splits.back[legal]], axis=1), axis=0)
        evs = np.array([settle_values(np.broadcast_to(p, opponents.shape), opponents, parsed).mean() for p in plays])
        groups = np.unique(hand_keys(plays) if distinct == "hands" else plays, axis=0, return_inverse=True)[1].ravel()
        best_of_group = np.full(groups.max() + 1, -np.inf)
        np.maximum.at(best_of_group, groups, evs)
        top = np.sort(best_of_group)[::-1][:4]
        found = [solution.ev] + [a.ev for a in solution.alternatives]
        assert len(found) == 4
        assert found == pytest.approx(top.tolist(), abs=1e-12)


@pytest.mark.parametrize("rules", ["1-6", "2-4", "2-4+royalties-win", "1-6+royalties"])
def test_bonus_bounds_hold_for_every_play(rules):
    """The bounds that decide which plays are scored jointly hold for every legal play: its
    expectation against the sample, each pairing settled by ``settle_values``, lies between
    the lower and the upper bound. Fails if a bound is too tight for any play, even one
    that happens not to matter to the choice. Opponents who set their hands as dealt foul
    most of the time, which puts some plays right at the bounds."""
    from bench.cli.warmup import AsDealt
    from solver import _search
    from solver import search as s
    from solver import solve as solve_against
    from solver.sampling import Sample
    from solver.splits import split_tables, subset_values

    parsed = Rules.parse(rules)
    t = split_tables()
    for seed, hand in enumerate(random_hands(np.random.default_rng(310), 4)):
        options = {"samples": 200, "seed": seed, "rules": rules, "keep_sample": True, "top": 0}
        solution = solve(hand.tolist(), **options) if seed % 2 else solve_against(hand.tolist(), AsDealt(), **options)
        sample = Sample(solution.sample, solution.sample, parsed)
        v3, v5 = subset_values(hand.tolist())
        seps, wins, losses = s._separable_scores(v3, v5, sample, parsed)
        evs, _, legal_splits = _search.score_canonical(v3, v5, *seps, t.canon_front, t.canon_a, t.canon_b,
                                                       t.canon_split, t.canon_twin)
        splits, rows, lower, upper, legal = _search.bonus_bounds(
            v3, v5, *seps, t.canon_front, t.canon_a, t.canon_b, t.canon_split, t.canon_twin, *wins, *losses,
            s._constant(sample, parsed), float(sample.plain.mean()), parsed.scoring_code)
        plays = np.stack([v3[rows[0]], v5[rows[1]], v5[rows[2]]], axis=1).astype(np.int64)
        unique, where = np.unique(plays, axis=0, return_inverse=True)
        exact = np.array([settle_values(np.broadcast_to(p, sample.values.shape), sample.values, parsed).mean()
                          for p in unique])[where.ravel()]
        assert len(splits) == int(np.isfinite(evs).sum()) > 0 and legal == legal_splits
        assert all((table[splits] == row).all() for table, row in zip((t.front, t.middle, t.back), rows))
        assert (lower <= exact + 1e-9).all() and (exact <= upper + 1e-9).all()
        assert (upper - lower).max() > 0  # a bonus is in play


def test_rules_presets_and_files(tmp_path):
    assert Rules.parse("basic") == Rules() and Rules.parse(None).is_basic
    combo = Rules.parse("2-4+royalties+naturals")
    assert combo.scoring == "2-4" and dict(combo.royalties) == COMMON_ROYALTIES and combo.naturals
    toml = tmp_path / "house.toml"
    toml.write_text('name = "house"\nscoring = "1-6"\nroyalty_needs_win = true\n'
                    '[royalties.back]\n"four of a kind" = 8\n[royalties.front]\n"three of a kind" = 5\n')
    house = Rules.parse(str(toml))
    assert house.name == "house" and house.scoring == "1-6" and house.royalty_needs_win
    assert house.royalty_table() == {("back", "four of a kind"): 8, ("front", "three of a kind"): 5}
    doc = tmp_path / "house.json"
    doc.write_text(json.dumps(house.to_dict()))
    assert Rules.parse(str(doc)) == house


@pytest.mark.parametrize(
    "text, message",
    [
        ("3-9", "unknown rules '3-9'; presets are basic, 1-6, 2-4"),
        ("basic+royaltees", "unknown rules 'royaltees'"),
        ("/no/such/rules.toml", "cannot read rules file"),
    ],
)
def test_bad_rules(text, message):
    with pytest.raises(RulesError, match=message):
        Rules.parse(text)


def test_bad_rule_tables():
    with pytest.raises(RulesError, match="a front cannot make 'flush'"):
        Rules.from_dict({"royalties": {"front": {"flush": 2}}})
    with pytest.raises(RulesError, match="unknown hand 'flushes'"):
        Rules.from_dict({"royalties": {"back": {"flushes": 2}}})
    with pytest.raises(RulesError, match="must be a whole number >= 0"):
        Rules.from_dict({"royalties": {"back": {"flush": -1}}})
    with pytest.raises(RulesError, match="unknown rules setting 'scoop'"):
        Rules.from_dict({"scoop": 6})


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False)
                     | st.sampled_from(["basic", "2-4", "front", "back", "pair", "flush", "dragon", "common", "x"]),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                         st.sampled_from(["front", "middle", "back", "pair", "flush", "dragon", "row", "hand",
                                          "category", "units", "x"]), inner, max_size=3), max_leaves=8)
_SETTINGS = st.dictionaries(st.sampled_from(["name", "scoring", "royalties", "royalty_needs_win", "naturals",
                                             "natural_payouts", "scoop"]), _JSON, max_size=4)


@settings(max_examples=300, deadline=None)
@given(_SETTINGS)
def test_rules_from_any_json_are_rules_or_a_rules_error(settings_):
    """Whatever a file holds where rules go, ``Rules.from_dict`` makes rules or raises
    ``RulesError`` (one line naming the setting), never another exception: what
    ``bench report`` and a resumed run quote when they refuse a document's rules."""
    try:
        Rules.from_dict(settings_)
    except RulesError as error:
        assert str(error) and "\n" not in str(error)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["basic", "1-6", "2-4", "royalties", "royalties-win", "naturals", "+", " ", "x",
                                 "common", "=", "front", "1", "{", "[", ".toml", "/", "\\", "\x00"]), max_size=6).map("".join)
       | st.text(max_size=40))
def test_rules_from_any_text_are_rules_or_a_rules_error(text):
    """The same for a rule set given by name, as results.json, a journal and ``--rules`` give it."""
    try:
        Rules.parse(text)
    except RulesError as error:
        assert str(error) and "\n" not in str(error)


@pytest.mark.slow
def test_a_natural_shows_a_legal_arrangement(rng):
    """Three straights or three flushes are shown as rows in order. Fails if the rows of the
    best key are taken from a fouled split: here a middle straight flush (5-9 of hearts)
    would beat an A-high back straight."""
    from solver import is_foul

    hand = "2C 3D 4S 5H 6H 7H 8H 9H TS JD QC KD AS"
    straights = next(n for n in naturals_of(hand) if n.kind == "three straights")
    assert not is_foul(straights.arrangement)
    assert str(straights.arrangement) == "9H 8H 7H / 6H 5H 4S 3D 2C / AS KD QC JD TS"
    hands = random_hands(rng, 20_000)
    shown = [n for h in hands[natural_mask(hands)] for n in naturals_of(h.tolist()) if n.arrangement is not None]
    assert len(shown) > 50
    assert not any(is_foul(n.arrangement) for n in shown)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"royalty_needs_win": "false"}', "royalty_needs_win must be true or false, got 'false' in rules file"),
        ('{"naturals": "no"}', "naturals must be true or false, got 'no' in rules file"),
        ('{"naturals": 1}', "naturals must be true or false, got 1"),
        ('{"scoring": "1-7"}', "unknown scoring method '1-7'"),
        ('{"royalties": {"back": {"flush": "4"}}}', "royalty for back flush must be a whole number >= 0, got '4'"),
        ('{"royalties": {"back": {"flush": 2.5}}}', "must be a whole number >= 0, got 2.5"),
        ('{"royalties": {"back": {"flush": true}}}', "must be a whole number >= 0, got True"),
        ('{"royalties": {"bottom": {"flush": 4}}}', "unknown row 'bottom'"),
        ('{"natural_payouts": {"dragons": 13}}', "unknown natural 'dragons'"),
        ('{"natural_payouts": {"dragon": -1}}', "payout for dragon must be a whole number >= 0"),
        ('{"scoop": 6}', "unknown rules setting 'scoop'"),
        ('[1, 2]', "must hold a table of settings"),
        ('{"scoring": "basic", "scoring": "1-6"}', "'scoring' is given twice"),
        ('{"royalties": {"back": {"flush": 4, "flush": 40}}}', "'flush' is given twice"),
    ],
)
def test_house_files_are_read_strictly(tmp_path, content, message):
    """A house file's values are never coerced: "false" is not false. Fails if a bad value
    is taken, or if the error does not name the file."""
    path = tmp_path / "house.json"
    path.write_text(content)
    with pytest.raises(RulesError, match=message) as caught:
        Rules.parse(str(path))
    assert "house.json" in str(caught.value)


def test_combinations_of_presets_and_files(tmp_path):
    """A setting given twice is an error naming both sources (fails if one silently wins)."""
    with pytest.raises(RulesError, match=r"sets the scoring method twice: 1-6 \(from '1-6'\) and 2-4 \(from '2-4'\)"):
        Rules.parse("1-6+2-4")
    with pytest.raises(RulesError, match="sets royalty_needs_win twice"):
        Rules.parse("royalties+royalties-win")
    for text in ("2-4+2-4", "naturals+naturals", "royalties+2-4+Royalties"):  # a part named twice is a slip
        with pytest.raises(RulesError, match=r"names '.*' twice; name each part of a rule set once"):
            Rules.parse(text)
    house = tmp_path / "house.toml"
    house.write_text('[royalties.back]\n"royal flush" = 20\n')
    combined = Rules.parse(f"{house}+2-4+naturals")
    assert combined.scoring == "2-4" and combined.naturals and combined.royalty_table() == {("back", "royal flush"): 20}
    assert combined.name == f"{house}+2-4+naturals"
    with pytest.raises(RulesError, match="sets the royalty table twice"):
        Rules.parse(f"{house}+royalties")
    scored = tmp_path / "scored.toml"
    scored.write_text('scoring = "1-6"\n')
    with pytest.raises(RulesError, match=r"sets the scoring method twice: 1-6 \(from '.*scored.toml'\) and 2-4"):
        Rules.parse(f"{scored}+2-4")
