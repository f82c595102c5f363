"""The checks of a results.json (``bench.records.schema.results_problem``) called directly, as
``bench report`` and ``bench verify`` call them on what they read (docs/security.md, "What a
record proves"): what is refused besides the schema, and a partial run that adds up."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from bench.records.schema import results_problem
from bench.report.summary import example_results


@pytest.fixture(scope="module")
def example() -> dict:
    doc = example_results()
    assert results_problem(doc) is None
    return doc


def _with(doc: dict, change) -> dict:
    doctored = copy.deepcopy(doc)
    change(doctored)
    return doctored


@pytest.mark.parametrize("place", ["timing", "bot", "record"])
def test_nan_is_refused_wherever_it_is(example, place):
    """Whatever read the file, NaN (which the schema's numbers let through) is refused, deep in
    a table or a list."""
    def put(doc):
        if place == "timing":
            doc["timing"]["deals_per_second"] = math.nan
        elif place == "bot":
            doc["timing"]["decision_time_by_bot"]["greedy"]["median_ms"] = math.nan
        else:
            doc["timing"]["seconds"][3][1][0] = math.nan

    assert results_problem(_with(example, put)) == "it holds nan, not a finite number"


def test_what_is_not_a_table_of_results_of_this_version_is_refused(example):
    assert results_problem([example]) == "it is a list, not a table of results"
    assert results_problem(_with(example, lambda d: d.update(schema_version=True))) == \
        "its schema_version is True: this version of bench cannot read it; this one reads version 3"
    assert results_problem(_with(example, lambda d: d.update(schema_version=0))).startswith(
        "its schema_version is 0: this version of bench cannot read it")
    assert results_problem(_with(example, lambda d: d.update(schema_version=1))).startswith(
        "its schema_version is 1: it was written by an older version of bench, which reads it")


def test_rules_that_are_not_rules_are_refused(example):
    found = results_problem(_with(example, lambda d: d.update(rules="nonsense")))
    assert found is not None and found.startswith("its rules are not rules: unknown rules 'nonsense'")


def test_more_records_than_the_sessions_deal_are_refused_before_any_record_is_read(example):
    assert results_problem(_with(example, lambda d: d.update(records=d["records"] * 2))) == \
        "it holds 160 records, more than the 80 deals of 10 sessions"
    assert results_problem(_with(example, lambda d: d.update(records=(d["records"] * 2)[:81]))) == \
        "it holds 81 records, more than the 80 deals of 10 sessions"


def test_the_timing_names_the_runs_bots_and_no_other(example):
    def ghost(doc):
        timing = doc["timing"]["decision_time_by_bot"]
        timing["ghost"] = dict(timing["greedy"])

    assert results_problem(_with(example, ghost)) == "timing.decision_time_by_bot names 'ghost', which is not one of its bots"
    assert results_problem(_with(example, lambda d: d["timing"]["decision_time_by_bot"].pop("greedy"))) == \
        "timing.decision_time_by_bot has no entry for bot 'greedy'"


def test_a_run_with_fewer_records_than_deals_must_say_it_is_partial(example):
    """A run stopped early says so (``partial``: played and planned deals), and the counts must
    be its records' and its sessions'. (The timing is checked after the counts; this test
    leaves it as it was, so a partial run that adds up is refused for its timing only.)"""
    def stopped(doc):
        doc["records"] = doc["records"][:16]
        doc["timing"]["seconds"] = doc["timing"]["seconds"][:16]
        doc["timing"]["timed_deal_count"] = 16

    cut = _with(example, stopped)
    assert results_problem(cut) == "the records hold 16 of the 80 deals of its sessions, and it is not marked partial"
    said = _with(cut, lambda d: d.update(partial={"played_deal_count": 16, "planned_deal_count": 80}))
    assert results_problem(said).startswith("timing.decision_time_by_bot['greedy'].decision_count is 320")
    for played, planned in [(16, 64), (15, 80), (17, 80)]:
        wrong = _with(cut, lambda d, p=played, q=planned: d.update(partial={"played_deal_count": p,
                                                                           "planned_deal_count": q}))
        assert results_problem(wrong) == f"partial says {played} of {planned} deals, but the records hold 16 of 80"


def test_a_count_given_as_true_or_false_is_refused(example):
    assert results_problem(_with(example, lambda d: d.update(player_count=True))) == \
        "results.player_count is true or false, not a whole number"
    assert results_problem(_with(example, lambda d: d.update(session_count=False))) == \
        "results.session_count is true or false, not a whole number"


def test_each_bots_median_and_95th_percentile_are_those_of_its_own_decision_times(example):
    """docs/security.md: each bot's median and 95th percentile, in milliseconds, from its own
    times in timing.seconds (a run of slower decisions: 10,000 times the example's)."""
    def slower(doc):
        timing = doc["timing"]
        timing["seconds"] = [[[t * 1e4 for t in seat] for seat in deal] for deal in timing["seconds"]]
        for b, bot in enumerate(doc["bots"]):
            ms = np.array([t for deal in timing["seconds"] for t in deal[b]]) * 1000
            timing["decision_time_by_bot"][bot["name"]].update(median_ms=float(np.median(ms)),
                                                             p95_ms=float(np.percentile(ms, 95)))

    doc = _with(example, slower)
    assert results_problem(doc) is None
    off = _with(doc, lambda d: d["timing"]["decision_time_by_bot"]["greedy"].update(
        median_ms=d["timing"]["decision_time_by_bot"]["greedy"]["median_ms"] * 1.001))
    assert results_problem(off) == ("timing.decision_time_by_bot['greedy'] gives a median or 95th percentile that its "
                                    "decision times in timing.seconds do not")


def _drop_timing(doc: dict, names: tuple[str, ...]) -> None:
    for name in names:
        del doc["timing"]["decision_time_by_bot"][name]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["records"][0].update(deal=-1), "results.records[0].deal is -1, below 0"),
    (lambda d: d["records"][0].update(deal=10**100),
     "results.records[0].deal is a number of 101 digits, above 9,007,199,254,740,992"),
    (lambda d: d["records"][0].update(deal=10**50),
     "results.records[0].deal is 10000000000000000000..., above 9,007,199,254,740,992"),
    (lambda d: d["records"][0].update(deal=2**199), "results.records[0].deal is a number of 60 digits, above "
     "9,007,199,254,740,992"),  # 200 bits: by its digits
    (lambda d: d["records"][0].update(deal=2**198), f"results.records[0].deal is {str(2**198)[:20]}..., above "
     "9,007,199,254,740,992"),  # 199 bits: cut
    (lambda d: d["records"][0].update(deal=10**40), "results.records[0].deal is 10000000000000000000..., above "
     "9,007,199,254,740,992"),  # 41 characters: cut
    (lambda d: d["records"][0].update(deal=10**39), f"results.records[0].deal is {10**39}, above "
     "9,007,199,254,740,992"),  # 40 characters: whole
    (lambda d: d["records"][0].update(deal="x" * 100), "results.records[0].deal is text, not a whole number"),
    (lambda d: d["timing"].update(deals_per_second=-2.5), "results.timing.deals_per_second is -2.5, below 0"),
    (lambda d: d.update(document="y" * 100), f"it is a {('y' * 100)!r:.40}... document, not results"),
    (lambda d: d.update(document="match"), "it is a 'match' document, not results"),
    (lambda d: d.update(document="y" * 38), f"it is a {'y' * 38!r} document, not results"),  # 40 characters quoted
    (lambda d: d.update(document="y" * 39), f"it is a {'y' * 39!r:.40}... document, not results"),  # 41: cut
    (lambda d: [d["records"][0].pop(k) for k in ("plays", "hands")], "results.records[0] has no 'hands'"),
    (lambda d: d["records"][0].update(zz=1, aa=2), "results.records[0] has a field 'aa' that no results.json has"),
    (lambda d: d.update(rules=5), "results.rules is a whole number, not text or a table"),
    (lambda d: d.update(rules={"scoring": "basic"}), "results.rules has no 'name'"),
    (lambda d: d.update(rules={"name": "basic"}), "results.rules has no 'scoring'"),
    (lambda d: d.update(rules="x" * 1001), "results.rules is 1,001 characters long, above 1,000"),
    (lambda d: _drop_timing(d, ("table", "heuristic")), "timing.decision_time_by_bot has no entry for bot 'heuristic'"),
    (lambda d: d["timing"]["decision_time_by_bot"].update({"q" * 60: d["timing"]["decision_time_by_bot"]["greedy"]}),
     f"timing.decision_time_by_bot names {'q' * 40!r}, which is not one of its bots"),
    (lambda d: d["timing"]["decision_time_by_bot"].update(zz=d["timing"]["decision_time_by_bot"]["greedy"],
                                                          aa=d["timing"]["decision_time_by_bot"]["greedy"]),
     "timing.decision_time_by_bot names 'aa', which is not one of its bots"),  # the first of them, in sorted order
    (lambda d: d["bots"][1].update(name="greedy"),
     "bot name 'greedy' is given to more than one bot: the tables could not tell them apart"),
])
def test_each_refusal_says_which_field_and_what_is_wrong_in_these_words(example, change, message):
    """The one line a refused results.json gets, word for word: the field by its place (the
    first missing field a table's schema lists, the first unknown one in sorted order, the
    first bot in the run's order), what is wrong with it, a long value cut at 40 characters
    with ``...`` and a huge number by its digits; of a value that fits no branch of a
    ``oneOf``, the complaint of the branch of its own type, or every type it could have been."""
    assert results_problem(_with(example, change)) == message


def _long_named(doc: dict) -> dict:
    """The document with the bot greedy named by 60 characters, everywhere its name is."""
    return json.loads(json.dumps(doc).replace('"greedy"', json.dumps("g" * 60)))


def test_a_long_bot_name_is_cut_at_40_characters_where_a_refusal_names_it(example):
    named = _long_named(example)
    assert results_problem(named) is None
    timing = "timing.decision_time_by_bot['" + "g" * 40 + "']"
    count = _with(named, lambda d: d["timing"]["decision_time_by_bot"]["g" * 60].update(decision_count=321))
    assert results_problem(count) == f"{timing}.decision_count is 321, but the records hold 320 of its plays"
    median = _with(named, lambda d: d["timing"]["decision_time_by_bot"]["g" * 60].update(median_ms=1e6))
    assert results_problem(median) == (f"{timing} gives a median or 95th percentile that its decision times in "
                                       "timing.seconds do not")


def test_a_naturals_run_with_three_flushes_reports_and_verifies(tmp_path):
    """A three-flushes natural's key holds whole row values (solver.naturals), far above a rank:
    the run's own results.json must pass the schema bench report and bench verify read it with."""
    from bench.cli import main as bench_main

    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,table", "--sessions", "1", "--seed", "3", "--jobs", "1",
                       "--rules", "naturals", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    keys = [k for r in doc["records"] for row in r["plays"] for p in row if p.get("natural") for k in p["natural"]["key"]]
    assert max(keys) > 2**20  # the case: a key of row values
    assert bench_main(["report", str(out / "results.json"), "--out", str(tmp_path / "again")]) == 0
    assert bench_main(["verify", str(out)]) == 0
