"""A bot that calls ``sys.exit`` is a bot that failed: ``SystemExit`` is not an ``Exception``,
and a run that let it through ended with status 0 and printed nothing. Each place a bot's code
runs (made, imported, asked to set a hand or a batch, asked to declare) turns it into the
bot's fault or error, named in one line; so with any other ``BaseException`` but a stop."""

import json

import numpy as np
import pytest

from bots import BotError, BotFault, make_bot
from bots.base import arrange_many, checked_arrangement, declared_natural
from bots.registry import parse_spec
from solver import parse_cards
from solver.opponent import OpponentError, arrange_checked
from solver.rules import as_rules
from tests.backend_bots import ExitingBatchBot, ExitingBot
from tests.helpers import bench

WITH_ACE = parse_cards("AS KD QH JC 9S TD 8C 7S 6D 5C 4C 3D 2H")
THREE_FLUSHES = parse_cards("AH KH QH JH 9H AS KS QS JS 9S 2D 3D 4D")


def test_exiting_as_it_sets_a_hand_is_the_bots_fault():
    with pytest.raises(BotFault, match=r"bot 'exiting' failed on hand .*SystemExit: 3"):
        checked_arrangement(ExitingBot(code=3), WITH_ACE, np.random.default_rng(0))


def test_exiting_as_it_sets_a_batch_is_the_bots_fault():
    hands = np.array([WITH_ACE], np.uint8)
    with pytest.raises(BotFault, match=r"bot 'exiting' failed on a batch of 1 hand: SystemExit"):
        arrange_many(ExitingBatchBot(where="batch"), hands, np.random.default_rng(0))


def test_exiting_as_an_opponent_model_is_the_models_error():
    with pytest.raises(OpponentError, match="SystemExit"):
        arrange_checked(ExitingBatchBot(where="batch"), np.array([WITH_ACE], np.uint8), np.random.default_rng(0))


def test_exiting_as_it_decides_to_declare_is_the_bots_fault():
    with pytest.raises(BotFault, match=r"failed to decide on declaring three flushes .*SystemExit"):
        declared_natural(ExitingBot(where="declare"), THREE_FLUSHES, 1, as_rules("naturals"))


def test_exiting_as_it_is_made_or_imported_is_a_bot_error(tmp_path, monkeypatch):
    with pytest.raises(BotError, match=r"could not be made: SystemExit"):
        make_bot("tests.backend_bots:ExitingBot:where=init")
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(BotError, match=r"bot module 'exits_on_import' failed as it was imported .*SystemExit"):
        make_bot("exits_on_import:Bot")


def test_nan_and_inf_in_a_spec_are_words_not_numbers():
    """A float that JSON cannot hold never reaches a record: ``nan`` stays text."""
    assert parse_spec("table:tables=nan:x=inf:y=-Infinity:z=1e999:w=2.5") == (
        "table", {"tables": "nan", "x": "inf", "y": "-Infinity", "z": "1e999", "w": 2.5})


@pytest.mark.parametrize("argv", [
    ["match", "tests.backend_bots:ExitingBot", "greedy", "--max-deals", "32", "--seed", "1", "--jobs", "1"],
    ["match", "tests.backend_bots:ExitingBot", "greedy", "--max-deals", "32", "--seed", "1", "--jobs", "2"],
    ["exploit", "--bot", "tests.backend_bots:ExitingBatchBot:where=batch", "--hands", "2", "--samples", "50",
     "--eval-samples", "50", "--seed", "1"],
])
def test_a_run_whose_bot_exits_fails_in_one_line(argv):
    """Before, these exited with status 0 and printed nothing."""
    done = bench(*argv)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert "SystemExit" in lines[-1] and "exiting" in lines[-1], done.stderr
    assert "Traceback" not in done.stderr


def test_a_tournament_scores_an_exit_as_the_fault_it_is(tmp_path):
    """With ``--on-fault foul`` the hand is scored as a foul and the run goes on."""
    out = tmp_path / "run"
    done = bench("tournament", "--bots", "tests.backend_bots:ExitingBot,greedy", "--players", "2", "--sessions", "2",
                 "--seed", "1", "--jobs", "2", "--on-fault", "foul", "--out", str(out))
    assert done.returncode == 0, done.stderr
    by_bot = json.loads((out / "results.json").read_text())["results"]["by_bot"]
    assert by_bot["tests.backend_bots:ExitingBot"]["fault_count"] > 0 and by_bot["greedy"]["fault_count"] == 0


def test_any_other_base_exception_a_bot_raises_is_its_fault_or_error():
    from tests.backend_bots import OddBot

    with pytest.raises(BotFault, match=r"bot 'odd' failed on hand .*Odd: a hand"):
        checked_arrangement(OddBot(), WITH_ACE, np.random.default_rng(0))
    with pytest.raises(BotFault, match=r"bot 'odd' failed on a batch of 1 hand: Odd: a batch"):
        arrange_many(OddBot(where="batch"), np.array([WITH_ACE], np.uint8), np.random.default_rng(0))
    with pytest.raises(OpponentError, match="Odd: a batch"):
        arrange_checked(OddBot(where="batch"), np.array([WITH_ACE], np.uint8), np.random.default_rng(0))
    with pytest.raises(BotError, match="Odd"):
        make_bot("tests.backend_bots:OddBot:where=init")


def test_a_stop_a_bot_raises_is_still_a_stop():
    """Ctrl-C arrives as ``KeyboardInterrupt`` wherever the process is, in a bot's code too: it
    stops the run rather than being taken for the bot's fault."""
    class Stopping:
        name = "stopping"

        def arrange(self, cards, rng):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        checked_arrangement(Stopping(), WITH_ACE, np.random.default_rng(0))
