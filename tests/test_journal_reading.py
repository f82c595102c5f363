"""Reading a journal back (``bench.run.journal``) by docs/journal.md, in-process and small: the
check of each line as the page gives its recipe, what a resume accepts line by line and the one
line it says about anything else, a last line cut short dropped and continued, the package's
identity compared, and a replayed play compared field by field."""

from __future__ import annotations

import copy
import errno
import hashlib
import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bench.records.model import DealRecord, Play, arrangement_text
from bench.run.journal import (
    EXAMPLE_IDENTITY,
    EXAMPLE_PLAN,
    Journal,
    JournalError,
    JournalVersionError,
    identity_change,
    package_change,
    play_difference,
    replay_problem,
    schema_problem,
)
from bench.run.play import RunSettings, play_deals
from solver import files
from solver.naturals import Natural

SETTINGS = replace(EXAMPLE_PLAN, bots=("greedy", "random"), sessions=1, seed=5,
                   command="bench tournament --bots greedy,random --out résultats")  # not ASCII


def _recipe(previous: str, line: dict) -> str:
    """docs/journal.md: sha256 of the previous line's check, a newline, and the line's canonical
    JSON without its check (keys sorted, no spaces, ensure_ascii=False)."""
    body = json.dumps({k: v for k, v in line.items() if k != "check"}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(previous.encode() + b"\n" + body.encode()).hexdigest()


@pytest.fixture(scope="module")
def records() -> list[DealRecord]:
    return play_deals(SETTINGS.bots, 2, SETTINGS.seed, list(range(6)), "basic")


@pytest.fixture
def written(tmp_path, records) -> Path:
    """A journal of three entries: deals 0-1, 2-3 and 4-5."""
    path = tmp_path / "journal.jsonl"
    journal = Journal.create(path, SETTINGS, EXAMPLE_IDENTITY)
    for start in (0, 2, 4):
        journal.append([start, start + 1], records[start:start + 2])
    journal.close()
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict], chained: bool = True) -> None:
    """The lines as a forger writes them: with every check computed again by the recipe (or not)."""
    previous = ""
    for line in lines:
        if chained:
            line["check"] = _recipe(previous, line)
        previous = line["check"]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


def test_a_journal_reads_back_what_was_written(written, records):
    contents = Journal.read(written)
    lines = _lines(written)
    assert contents.run == lines[0]["run"] and len(contents.run) == 32 and not contents.dropped
    assert contents.plan == SETTINGS and contents.identity == EXAMPLE_IDENTITY
    assert lines[0]["settings"]["player_count"] == 2 and lines[0]["settings"]["session_count"] == 1
    assert contents.records == records
    assert [line["seq"] for line in lines] == [0, 1, 2, 3]
    assert [line["document"] for line in lines] == ["journal-header"] + ["journal-entry"] * 3
    assert [line["deals"] for line in lines[1:]] == [[0, 1], [2, 3], [4, 5]]


def test_each_check_is_the_recipe_of_the_docs(written):
    previous = ""
    for line in _lines(written):
        assert line["check"] == _recipe(previous, line)
        previous = line["check"]


def test_a_last_line_cut_short_is_dropped_and_the_journal_continues(written, records):
    """Only a last line the reader refuses (one cut short by a crash) is dropped; its deals are
    played again, and the journal goes on after its last whole line."""
    text = written.read_bytes()
    written.write_bytes(text[:-40])
    contents = Journal.read(written)
    assert contents.dropped and [r.deal for r in contents.records] == [0, 1, 2, 3]
    journal = Journal.reopen(written, contents)
    journal.append([4, 5], records[4:6])
    journal.close()
    again = Journal.read(written)
    assert not again.dropped and [r.deal for r in again.records] == [0, 1, 2, 3, 4, 5]
    assert [line["seq"] for line in _lines(written)] == [0, 1, 2, 3]


def test_a_damaged_last_line_that_ends_its_line_is_dropped_too(written, records):
    """A last line the reader refuses is dropped even when its newline was written: the journal
    goes on without it, its deals in a whole line after the others."""
    lines = written.read_text().splitlines()
    written.write_text("\n".join([*lines[:3], lines[3][:50]]) + "\n")
    contents = Journal.read(written)
    assert contents.dropped and [r.deal for r in contents.records] == [0, 1, 2, 3]
    journal = Journal.reopen(written, contents)
    journal.append([4, 5], records[4:6])
    journal.close()
    again = Journal.read(written)
    assert not again.dropped and [r.deal for r in again.records] == [0, 1, 2, 3, 4, 5]


def test_a_last_line_without_its_newline_is_continued_on_a_line_of_its_own(written, records):
    written.write_bytes(written.read_bytes()[:-1])
    contents = Journal.read(written)
    assert not contents.dropped and len(contents.entries) == 3
    journal = Journal.reopen(written, Journal.read(written))
    journal.close()
    assert written.read_bytes().endswith(b"\n") and len(_lines(written)) == 4


def _refused(path: Path, message: str, error=JournalError) -> None:
    with pytest.raises(error) as raised:
        Journal.read(path)
    assert message in str(raised.value), str(raised.value)


def test_a_damaged_line_before_the_last_is_refused_naming_it(written):
    lines = written.read_text().splitlines()
    written.write_text("\n".join([lines[0], lines[1][:-30], *lines[2:]]) + "\n")
    _refused(written, f"{written} line 2")
    written.write_text("\n".join([lines[0], "[]", *lines[2:]]) + "\n")
    _refused(written, "it is not a table (a JSON object)")


def test_a_first_line_that_is_no_header_of_this_version_is_refused(written):
    lines = _lines(written)
    _write(written, lines[1:])
    _refused(written, f"{written} is not a journal of a bench run")
    _write(written, [{"kind": "chinese-poker-journal", "version": 2}])
    _refused(written, "was written by an older version of bench (journal version 2)", JournalVersionError)
    _write(written, [lines[0] | {"schema_version": 2}, *lines[1:]])
    _refused(written, "is a journal of schema_version 2, not 3", JournalVersionError)


def test_a_header_changed_after_it_was_written_is_refused(written):
    lines = _lines(written)
    lines[0]["settings"]["seed"] = 6
    _write(written, lines, chained=False)
    _refused(written, "line 1 (the header) fails its check")
    lines = _lines(written)
    del lines[0]["identity"]
    _write(written, lines)
    _refused(written, "line 1 (the header) is damaged: the line: 'identity' is a required property")


def test_entries_edited_moved_or_from_another_run_are_refused(written):
    """With every check computed again by the recipe, a line of another run, a line moved and
    records that are not the deals a line lists are still refused; an edit without the checks
    computed again fails its check."""
    lines = _lines(written)
    edited = copy.deepcopy(lines)
    edited[2]["records"][0]["plays"][0][0]["seconds"] = 9.0
    _write(written, edited, chained=False)
    _refused(written, f"{written} line 3 fails its check: it was changed after it was written")

    other = copy.deepcopy(lines)
    other[3]["run"] = "0" * 32
    _write(written, other)
    _refused(written, f"{written} line 4 belongs to another run ({'0' * 32}), not this journal's ({lines[0]['run']})")

    moved = copy.deepcopy(lines)
    moved[1], moved[2] = moved[2], moved[1]
    _write(written, moved)
    _refused(written, f"{written} line 2 has sequence number 2, not 1: lines were repeated, removed or reordered")

    listed = copy.deepcopy(lines)
    listed[2]["deals"] = [2, 5]
    _write(written, listed)
    _refused(written, f"{written} line 3 holds records of deals other than those it lists")

    again = copy.deepcopy(lines)
    again[3]["records"][1] = copy.deepcopy(again[1]["records"][0])
    again[3]["deals"] = sorted([again[3]["records"][0]["deal"], 0])
    _write(written, again)
    _refused(written, f"{written} line 4 holds deal 0 again (line 2 has it)")

    damaged = copy.deepcopy(lines)
    damaged[1]["records"][0]["deal"] = "one"
    _write(written, damaged)
    _refused(written, f"{written} line 2 is damaged: records[0].deal: ")


PACKAGE = {"name": "chinese-poker-solver", "version": "0.1.0", "commit": "a" * 40, "dirty": False}


@pytest.mark.parametrize("now, said", [
    (PACKAGE | {"version": "0.2.0"}, "the package's version was 0.1.0, is now 0.2.0"),
    (PACKAGE | {"commit": "b" * 40}, f"the package's git commit was {'a' * 12}…, is now {'b' * 12}…"),
    (PACKAGE | {"commit": None}, f"the package's git commit was {'a' * 12}…, is now null"),
    (PACKAGE | {"dirty": True, "changes": "c" * 64}, "the package's uncommitted changes (git diff HEAD) changed"),
    (PACKAGE | {"dirty": None}, "the package's uncommitted changes (git diff HEAD) changed"),
])
def test_a_package_that_changed_is_named(now, said):
    """docs/journal.md, a resume's step 4: the package's version, commit and uncommitted changes."""
    assert package_change(PACKAGE, PACKAGE) is None
    assert package_change(PACKAGE, now) == said
    assert package_change(PACKAGE | {"dirty": True, "changes": "c" * 64}, PACKAGE | {"dirty": True, "changes": "d" * 64}) \
        == "the package's uncommitted changes (git diff HEAD) changed"


def test_an_identity_that_changed_names_the_first_difference():
    stored = {"package": PACKAGE, "bots": [{"spec": "greedy", "name": "greedy", "class": "bots.greedy:GreedyBot",
                                             "params": {}, "version": "0.1.0", "identity": None, "sha256_by_file": {},
                                             "replayable": True}]}
    assert identity_change(stored, copy.deepcopy(stored)) is None
    assert identity_change(stored, stored | {"package": PACKAGE | {"version": "9"}}) == \
        "the package's version was 0.1.0, is now 9"
    other = copy.deepcopy(stored)
    other["bots"][0]["spec"] = "random"
    assert identity_change(stored, other) == "the journal names the bots greedy, but the run plays random"
    versioned = copy.deepcopy(stored)
    versioned["bots"][0]["version"] = "0.2.0"
    assert identity_change(stored, versioned) is not None


PLAY = Play("4C 3C 2C / 9C 8C 7C 6C 5C / AC KC QC JC TC", (1, 2, 3), False, None, seconds=0.1)


@pytest.mark.parametrize("field, value, shown", [
    ("arrangement", "2C 3C 4C / 9C 8C 7C 6C 5C / AC KC QC JC TC", "2C 3C 4C / 9C 8C 7C 6C 5C / AC KC QC JC TC"),
    ("values", (1, 2, 4), "[1, 2, 4]"),
    ("foul", True, "true"),
    ("foul_reason", "front beats middle", '"front beats middle"'),
    ("natural", Natural("six pairs", (1,)), '{"key": [1], "kind": "six pairs"}'),
])
def test_a_replayed_play_is_compared_on_each_field_it_must_repeat(field, value, shown):
    """docs/security.md: a replay compares every play (arrangement, natural, row values, foul
    and reason); the decision's seconds are not a play; a decision that failed is counted, not
    compared."""
    replayed = replace(PLAY, **{field: value})
    was = getattr(PLAY, field)
    assert play_difference(PLAY, replayed) == (field, PLAY.arrangement if field == "arrangement" else
                                               ("none" if was is None else json.dumps(list(was) if isinstance(was, tuple)
                                                                                      else was)), shown)
    assert play_difference(PLAY, replace(PLAY, seconds=5.0)) is None
    fault = Play.failed("x", 0.0)
    assert play_difference(fault, replayed) is None and play_difference(PLAY, fault) is None


def test_a_resume_replays_and_finds_a_play_the_bots_do_not_make(tmp_path, records):
    """docs/journal.md, a resume's step 6: a legal play with its right values that the bot would
    not have made passes the records checks but not the replay, which names the deal, the bot,
    the seat and both plays. (One deal a line, so that every deal is replayed.)"""
    path = tmp_path / "journal.jsonl"
    journal = Journal.create(path, SETTINGS, EXAMPLE_IDENTITY)
    for deal in range(6):
        journal.append([deal], records[deal:deal + 1])
    journal.close()
    match = RunSettings(SETTINGS.bots, 2, SETTINGS.seed)
    assert replay_problem(Journal.read(path), match) is None
    lines = _lines(path)
    deal, seat = next((line["records"][0]["deal"], s) for line in lines[1:] for s in range(2)
                      if line["records"][0]["plays"][0][s]["arrangement"] != line["records"][0]["plays"][1][s]["arrangement"])
    plays = lines[deal + 1]["records"][0]["plays"]
    greedy, other = (arrangement_text(play["arrangement"]) for play in (plays[0][seat], plays[1][seat]))
    plays[0][seat], plays[1][seat] = dict(plays[1][seat]), dict(plays[0][seat])
    _write(path, lines)
    found = replay_problem(Journal.read(path), match)
    assert found == (f"deal {deal}, bot 'greedy' in seat {seat}: the journal records {other!r}, the bot plays "
                     f"{greedy!r}; the journal holds plays these bots do not make")
    # A bot that draws randomness of its own is not compared; the others still are.
    header = lines[0]
    header["identity"]["bots"] = [dict(header["identity"]["bots"][0], replayable=False)]
    _write(path, lines)
    found = replay_problem(Journal.read(path), match)
    assert found is not None and found.startswith(f"deal {deal}, bot 'random' in seat {seat}: the journal records "
                                                  f"{greedy!r}, the bot plays {other!r}")


def test_a_journal_that_cannot_be_read_is_one_error_naming_it(tmp_path):
    missing = tmp_path / "journal.jsonl"
    with pytest.raises(JournalError, match=f"cannot read {missing}: "):
        Journal.read(missing)
    link = tmp_path / "link.jsonl"
    link.symlink_to(missing)
    missing.write_text("{}\n")
    with pytest.raises(JournalError, match=f"cannot read {link}: "):
        Journal.read(link)  # never read through a link (docs/journal.md)


def test_only_a_last_entry_is_dropped_never_the_header(tmp_path, records):
    """A journal of its header and one entry cut short: the entry is dropped and the run goes
    on from its header; a journal whose only line, the header, is cut short is no journal."""
    path = tmp_path / "journal.jsonl"
    journal = Journal.create(path, SETTINGS, EXAMPLE_IDENTITY)
    journal.append([0, 1], records[:2])
    journal.close()
    header, entry = path.read_text().splitlines()
    path.write_text(f"{header}\n{entry[:-20]}")
    contents = Journal.read(path)
    assert contents.dropped and contents.records == [] and contents.plan == SETTINGS
    path.write_text(header[:-20])
    with pytest.raises(JournalError, match=f"{path} line 1"):
        Journal.read(path)


# --- what a message quotes, and a journal that cannot be written ------------------------------


def test_a_message_quotes_a_short_excerpt_of_the_value_it_names(written):
    """A refusal quotes at most 160 characters of the schema's complaint, 20 of a version it
    cannot read, and a package's version or commit whole up to 24 characters, else its first 12."""
    header = _lines(written)[0]
    problem = schema_problem(header | {"run": "x" * 300}, "header")
    assert problem == "run: '" + "x" * 159
    _write(written, [{"kind": "chinese-poker-journal", "version": "9" * 30}])
    _refused(written, f"(journal version {'9' * 20}) and cannot be resumed by this one (version 3)", JournalVersionError)
    _write(written, [header | {"schema_version": "7" * 30}])
    _refused(written, f"is a journal of schema_version {'7' * 20}, not 3;", JournalVersionError)
    assert package_change(PACKAGE, PACKAGE | {"version": "v" * 24}) == f"the package's version was 0.1.0, is now {'v' * 24}"
    assert package_change(PACKAGE, PACKAGE | {"version": "v" * 25}) == f"the package's version was 0.1.0, is now {'v' * 12}…"


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_journal_that_cannot_be_created_or_rewritten_is_one_error_naming_it(tmp_path, written, monkeypatch):
    """A full disk when the journal is written whole (a new run, a resume that drops a damaged
    last line) or opened to append: one JournalError that names the file and the cause."""
    path = tmp_path / "new.jsonl"
    with monkeypatch.context() as patch:
        patch.setattr(files, "write_atomic", _full)
        with pytest.raises(JournalError, match=f"^cannot write {re.escape(str(path))}: no space left on device$"):
            Journal.create(path, SETTINGS, EXAMPLE_IDENTITY)
        written.write_text(written.read_text()[:-20])  # a last line cut short: a resume rewrites the journal
        contents = Journal.read(written)
        assert contents.dropped
        with pytest.raises(JournalError, match=f"^cannot write {re.escape(str(written))}: no space left on device$"):
            Journal.reopen(written, contents)
    with monkeypatch.context() as patch:
        patch.setattr(files, "open_append", _full)
        with pytest.raises(JournalError, match=f"^cannot write {re.escape(str(path))}: no space left on device$"):
            Journal.create(path, SETTINGS, EXAMPLE_IDENTITY)


@pytest.mark.parametrize("truncates", [True, False], ids=["undone", "not-even-undone"])
def test_an_entry_that_cannot_be_written_leaves_no_part_of_a_line(tmp_path, records, monkeypatch, truncates):
    """A write that fails halfway (a full disk) is undone, so the journal reads back as before,
    and the run gets one JournalError; when undoing fails as well, the error is still that one."""
    path = tmp_path / "journal.jsonl"
    journal = Journal.create(path, SETTINGS, EXAMPLE_IDENTITY)
    journal.append([0, 1], records[:2])
    before = path.read_bytes()

    def half(fd: int, data: bytes) -> None:
        os.write(fd, data[:len(data) // 2])
        _full()

    monkeypatch.setattr(files, "write_all", half)
    if not truncates:
        monkeypatch.setattr(os, "ftruncate", _full)
    with pytest.raises(JournalError, match=f"^cannot write {re.escape(str(path))}: no space left on device$"):
        journal.append([2, 3], records[2:4])
    journal.close()
    if truncates:
        assert path.read_bytes() == before and Journal.read(path).records == records[:2]
    else:
        assert path.read_bytes().startswith(before) and len(path.read_bytes()) > len(before)
