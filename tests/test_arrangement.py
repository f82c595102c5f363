import pytest

from solver import Arrangement, CardCountError, DuplicateCardError, foul_reason, is_foul
from tests import naive
from tests.conftest import load_vectors


def test_built_from_strings_or_cards():
    a = Arrangement("2S 2H AD", "7C 7D 9S 5H 3D", "TC JC QC KC AC")
    b = Arrangement(a.front, list(a.middle), [int(c) for c in a.back])
    assert a == b and hash(a) == hash(b)
    assert Arrangement.parse("2s 2h ad | 7c 7d 9s 5h 3d | tc jc qc kc ac") == a
    assert len(a.cards) == 13 and str(a) == "2S 2H AD / 7D 7C 9S 5H 3D / AC KC QC JC TC"
    assert a.format(symbols=True).startswith("2♠ 2♥ A♦ / ")


def test_frozen():
    a = Arrangement("2S 2H AD", "7C 7D 9S 5H 3D", "TC JC QC KC AC")
    with pytest.raises(AttributeError):
        a.front = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    "rows, error, message",
    [
        (("2S 2H", "7C 7D 9S 5H 3D", "TC JC QC KC AC"), CardCountError, "expected 3 cards for the front, got 2"),
        (("2S 2H AD", "7C 7D 9S 5H", "TC JC QC KC AC"), CardCountError, "expected 5 cards for the middle, got 4"),
        (("2S 2H AD", "7C 7D 9S 5H 3D", "TC JC QC KC AC 4D"), CardCountError, "expected 5 cards for the back, got 6"),
        (("2S 2H AD", "7C 7D 9S 5H 2S", "TC JC QC KC AC"), DuplicateCardError, "duplicate card '2S' in the front and the middle"),
    ],
)
def test_bad_arrangements(rows, error, message):
    with pytest.raises(error, match=message):
        Arrangement(*rows)


def test_parse_needs_three_rows():
    with pytest.raises(CardCountError, match="expected three rows"):
        Arrangement.parse("2S 2H AD 7C 7D 9S 5H 3D TC JC QC KC AC")


def test_rules_examples_of_order():
    assert not is_foul("7S 7H KD / 7C 7D KS 5H 3C / 2S 3S 4S 5S 6S")
    assert is_foul("AS KH QD / AC KS JD 9H 3C / 2S 3S 4S 5S 6S")
    assert not is_foul("AS KH QD / AC KS QH 4D 2C / 2S 3S 4S 5S 6S")


def test_equal_middle_and_back_are_legal():
    assert not is_foul("2C 3D 4H / AS KS QS JS 9S / AH KH QH JH 9H")


def test_foul_reason_names_both_rows():
    assert foul_reason("2S 3H 4D / 9S 9H 5C 6C 8D / 7S 7H AD KC QC") == (
        "middle (pair of 9s, 8 6 5 kickers) beats back (pair of 7s, A K Q kickers)"
    )
    assert foul_reason("AS AH AD / 9S 9H 5C 6C 8D / KS KH KD 7C 7D") == (
        "front (three aces) beats middle (pair of 9s, 8 6 5 kickers)"
    )
    both = foul_reason("AS AH AD / KS KH 7C 5D 2D / 9S 9H 5C 6C 8D")
    assert both is not None and both.startswith("front (three aces) beats middle") and "; middle (" in both


def test_rule_vectors_arrangements():
    vectors = load_vectors("arrangements.json")
    for v in vectors:
        arr = Arrangement(v["front"], v["middle"], v["back"])
        assert is_foul(arr) == v["fouled"], v
        assert (foul_reason(arr) is not None) == v["fouled"]
        rows = [naive.parse(v[r]) for r in ("front", "middle", "back")]
        assert naive.fouled(*rows) == v["fouled"]
    assert len(vectors) > 1000
