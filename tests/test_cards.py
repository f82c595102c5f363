import pytest

from solver import (
    Card,
    CardCountError,
    CardError,
    DuplicateCardError,
    UnknownCardError,
    deck,
    format_cards,
    parse_card,
    parse_cards,
    parse_hand,
)


def test_ids_follow_rank_times_four_plus_suit():
    assert [int(parse_card(t)) for t in ("2C", "2D", "2H", "2S", "3C", "AC", "AS")] == [0, 1, 2, 3, 4, 48, 51]
    assert [str(c) for c in deck()] == [r + s for r in "23456789TJQKA" for s in "CDHS"]


@pytest.mark.parametrize("token", ["AS", "as", "As", "aS", "A♠", "a♠", "A♠️"])
def test_spellings_of_the_ace_of_spades(token):
    assert parse_card(token) == 51


@pytest.mark.parametrize("token, expected", [("10s", "TS"), ("Ts", "TS"), ("10♥", "TH"), ("td", "TD"), ("2♣", "2C")])
def test_tens_and_symbols(token, expected):
    assert str(parse_card(token)) == expected


def test_separators_spaces_and_commas():
    assert format_cards(parse_cards("AS,KS, QS  JS\tTS")) == "AS KS QS JS TS"


def test_format_ascii_and_symbols():
    cards = parse_cards("AS KH TD 2C")
    assert format_cards(cards) == "AS KH TD 2C"
    assert format_cards(cards, symbols=True) == "A♠ K♥ T♦ 2♣"
    assert repr(cards[0]) == "Card('AS')" and cards[0].symbol == "A♠"


def test_card_round_trips_for_every_id():
    for i in range(52):
        assert parse_card(str(Card(i))) == i
        assert parse_card(Card(i).symbol) == i


@pytest.mark.parametrize(
    "text, error, message",
    [
        ("XS", UnknownCardError, "unknown rank 'X' in card 'XS'; ranks are 23456789TJQKA (10 = T)"),
        ("AX", UnknownCardError, "unknown suit 'X' in card 'AX'; suits are CDHS or ♣♦♥♠"),
        ("11s", UnknownCardError, "unknown rank '11' in card '11s'"),
        ("A", UnknownCardError, "cannot read card 'A'"),
        ("AS KD as", DuplicateCardError, "duplicate card 'AS' in cards: 'AS KD as'"),
    ],
)
def test_bad_cards_name_the_problem_and_the_token(text, error, message):
    with pytest.raises(error) as info:
        parse_cards(text)
    assert message in str(info.value)
    assert isinstance(info.value, CardError) and isinstance(info.value, ValueError)


def test_out_of_range_ids():
    with pytest.raises(UnknownCardError, match="card id 52 is out of range"):
        Card(52)
    with pytest.raises(UnknownCardError, match="expected a card id"):
        Card(1.5)  # type: ignore[arg-type]


def test_hand_needs_thirteen_distinct_cards():
    with pytest.raises(CardCountError, match="expected 13 cards for the hand, got 12: 'AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S'"):
        parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S")
    with pytest.raises(DuplicateCardError, match="duplicate card '2C' in hand"):
        parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 2C 2C")
    assert len(parse_hand(list(range(13)))) == 13
