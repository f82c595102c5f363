"""A run's record cannot lie: journals bound to their run, resumes that refuse what they cannot
replay, run folders that hold one run, files written whole, chunks that keep the journal growing.

Most runs here are small and in this process (``--jobs 1``); the lock and kill tests use real
processes."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from bench.cli import main as bench_main
from bench.run.journal import JOURNAL, Journal, line_check
from solver import Arrangement, Card, all_splits, files
from tests.helpers import ENV, ROOT
from tests.helpers import results_records as _records

RUN = ["tournament", "--bots", "greedy,table", "--sessions", "3", "--seed", "3", "--jobs", "1"]
DEALS = 24


@dataclass(frozen=True)
class SlowBot:
    """Plays the first legal split, after a pause: a bot whose decisions take measurable time."""

    name: ClassVar[str] = "slow"
    pause: float = 0.02

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        time.sleep(self.pause)
        splits = all_splits(cards)
        return splits.arrangement(int(np.flatnonzero(splits.legal)[0]))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run of RUN: its folder (copy it before changing anything)."""
    out = tmp_path_factory.mktemp("finished") / "run"
    assert bench_main([*RUN, "--out", str(out)]) == 0
    assert len((out / JOURNAL).read_text().splitlines()) >= 4
    return out


def _copy(finished: Path, tmp_path: Path, keep_lines: int | None = None) -> Path:
    """The finished run's journal alone in a new folder, cut to its first ``keep_lines`` lines."""
    out = tmp_path / "run"
    out.mkdir()
    lines = (finished / JOURNAL).read_text().splitlines(keepends=True)
    (out / JOURNAL).write_text("".join(lines[:keep_lines]))
    return out


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / JOURNAL).read_text().splitlines()]


def _write(folder: Path, lines: list[dict], rechain: bool = False) -> None:
    """Write journal lines; with ``rechain``, give every line the check a journal would have
    given it (a hostile edit that keeps the checksums right)."""
    if rechain:
        previous = ""
        for line in lines:
            line["check"] = line_check(line, previous)
            previous = line["check"]
    (folder / JOURNAL).write_text("".join(json.dumps(line) + "\n" for line in lines))


def _resume(folder: Path, *flags: str, capsys) -> tuple[int, str]:
    capsys.readouterr()
    status = bench_main(["tournament", "--resume", str(folder), *flags])
    return status, capsys.readouterr().err


def _refused(folder: Path, capsys, *flags: str) -> str:
    """The one line a refused --resume prints; fails if it was not refused so."""
    before = (folder / JOURNAL).read_bytes()
    status, err = _resume(folder, *flags, capsys=capsys)
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1 and lines[0].startswith("bench tournament: error: "), err
    assert (folder / JOURNAL).read_bytes() == before, "a refused resume must leave the journal as it was"
    assert not (folder / "results.json").exists()
    return lines[0]


# --- lines that do not belong ------------------------------------------------------------------


@pytest.mark.slow
def test_a_resumed_run_equals_the_uninterrupted_one(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    assert _records(out) == _records(finished)
    assert Journal.read(out / JOURNAL).run == Journal.read(finished / JOURNAL).run


def test_a_duplicated_line_is_refused_not_counted_twice(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    lines = (out / JOURNAL).read_text().splitlines(keepends=True)
    (out / JOURNAL).write_text("".join(lines[:3] + [lines[2]] + lines[3:]))
    assert "line 4 has sequence number 2, not 3" in _refused(out, capsys)


def test_a_duplicated_line_renumbered_and_rechecked_is_refused_for_its_deals(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    lines.insert(3, dict(lines[2]))
    for seq, line in enumerate(lines):
        line["seq"] = seq
    _write(out, lines, rechain=True)
    assert "line 4 holds deal 1 again (line 3 has it)" in _refused(out, capsys)


@pytest.mark.slow
def test_a_line_spliced_in_from_another_run_is_refused(finished, tmp_path, capsys):
    other = tmp_path / "other"
    assert bench_main(["tournament", "--bots", "table,greedy", "--sessions", "3", "--seed", "3", "--jobs", "1",
                       "--out", str(other)]) == 0
    out = _copy(finished, tmp_path, keep_lines=2)
    spliced = (other / JOURNAL).read_text().splitlines(keepends=True)[2]
    with open(out / JOURNAL, "a") as journal:
        journal.write(spliced)
    assert "line 3 belongs to another run" in _refused(out, capsys)


@pytest.mark.slow
def test_a_spliced_line_given_this_runs_id_is_refused(finished, tmp_path, capsys):
    """The other run's line made to look like this run's (its id, its place, its check): its
    plays are those of other bots, which the seed's deals give away."""
    other = tmp_path / "other"
    assert bench_main(["tournament", "--bots", "table,greedy", "--sessions", "3", "--seed", "3", "--jobs", "1",
                       "--out", str(other)]) == 0
    out = _copy(finished, tmp_path, keep_lines=2)
    lines = _lines(out)
    foreign = _lines(other)[2]
    lines.append(foreign | {"run": lines[0]["run"], "seq": 2})
    _write(out, lines, rechain=True)
    assert "deal 1, bot 'greedy' in seat 0: the journal records" in _refused(out, capsys)


def test_a_play_swapped_for_another_bots_play_of_the_same_hand_is_refused(finished, tmp_path, capsys):
    """A legal arrangement of the right hand, with its right values and checks, that the bot did
    not play: a resume plays sample deals again and compares."""
    out = _copy(finished, tmp_path, keep_lines=4)
    lines = _lines(out)
    record, seat = next((r, s) for line in lines[1:] for r in line["records"] for s in range(2)
                        if r["plays"][0][s]["arrangement"] != r["plays"][1][s]["arrangement"])
    record["plays"][0][seat] = record["plays"][1][seat]
    _write(out, lines, rechain=True)
    assert f"deal {record['deal']}, bot 'greedy' in seat {seat}: the journal records" in _refused(out, capsys)


def test_a_doctored_record_fails_its_check(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    text = (out / JOURNAL).read_text().splitlines(keepends=True)
    line = json.loads(text[2])
    line["records"][0]["plays"][0][0]["values"][0] += 1
    text[2] = json.dumps(line, separators=(",", ":")) + "\n"
    (out / JOURNAL).write_text("".join(text))
    assert "line 3 fails its check" in _refused(out, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("doctor, message", [
    (lambda r: r["plays"][0][0]["values"].__setitem__(2, r["plays"][0][0]["values"][2] + 1), "row values"),
    (lambda r: r["plays"][0][0].update(foul=not r["plays"][0][0]["foul"],
                                       foul_reason=None if r["plays"][0][0]["foul"] else "front beats middle"),
     "fouled whose rows say otherwise"),
    (lambda r: r["plays"][0].__setitem__(0, r["plays"][1][1]), "holds cards that were not dealt to that seat"),
    (lambda r: r["hands"].reverse(), "other hands than seed 3 deals"),
    (lambda r: r.__setitem__("dealer", 1 - r["dealer"]), "names dealer"),
    (lambda r: r["plays"].pop(), "one play per bot"),
    (lambda r: r["plays"][0][0].update(arrangement=None, fault="x", values=[1 << 30, 0, 0], foul=True,
                                       foul_reason="x"),
     "a fault that this run cannot have recorded"),
], ids=["values", "foul", "other-hand", "hands", "dealer", "bots", "fault"])
def test_doctored_records_with_right_checks_are_refused(finished, tmp_path, capsys, doctor, message):
    """A hostile edit that keeps the run id, the sequence and the checks right: the records
    themselves are checked against the seed's deals."""
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    doctor(lines[2]["records"][0])
    _write(out, lines, rechain=True)
    assert message in _refused(out, capsys)


def test_lines_whose_deals_overlap_are_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    lines[3]["records"].append(lines[2]["records"][0])
    lines[3]["deals"] = sorted(r["deal"] for r in lines[3]["records"])
    _write(out, lines, rechain=True)
    assert "holds deal 1 again (line 3 has it)" in _refused(out, capsys)


@pytest.mark.parametrize("edit, message", [
    (lambda line: line.pop("records"), "'records' is a required property"),
    (lambda line: line.update(records=[]), "should be non-empty"),
    (lambda line: line["records"][0].pop("plays"), "'plays' is a required property"),
    (lambda line: line["records"][0].update(deal=-1), "less than the minimum"),
    (lambda line: line.update(deals=[10**30], records=[line["records"][0] | {"deal": 10**30}]),
     "deal 1000000000000000000000000000000 is outside the 24 deals of 3 sessions"),
    (lambda line: line["records"][0].update(deal=1.0), "is not of type 'integer'"),
    (lambda line: line.update(deals=[2]), "records of deals other than those it lists"),
    (lambda line: line.update(extra=1), "Additional properties"),
], ids=["no-records", "empty", "no-plays", "negative-deal", "huge-deal", "float-deal", "deals", "extra"])
def test_a_damaged_line_is_one_line(finished, tmp_path, capsys, edit, message):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    edit(lines[2])
    _write(out, lines, rechain=True)
    assert message in _refused(out, capsys)


def test_a_doctored_header_fails_its_check(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    lines[0]["settings"]["seed"] = 4
    _write(out, lines)
    assert "line 1 (the header) fails its check" in _refused(out, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("cut", [0.3, 0.6, 0.95, 1.0])
def test_a_journal_cut_anywhere_resumes_to_the_same_result(finished, tmp_path, capsys, cut):
    """A journal cut at any byte after its header (a crash, a copy cut short) loses only the deals
    of its last line, which are played again, in the same run: same id, sequence numbers that
    go on, every deal once."""
    out = tmp_path / "run"
    out.mkdir()
    data = (finished / JOURNAL).read_bytes()
    header = data.index(b"\n") + 1
    (out / JOURNAL).write_bytes(data[: header + int(cut * (len(data) - header))])
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    assert _records(out) == _records(finished)
    contents = Journal.read(out / JOURNAL)
    assert contents.run == Journal.read(finished / JOURNAL).run and not contents.dropped
    assert [e["seq"] for e in contents.entries] == list(range(1, len(contents.entries) + 1))
    assert sorted(r.deal for r in contents.records) == list(range(DEALS))


@pytest.mark.slow
def test_a_last_line_without_its_newline_is_continued_on_a_line_of_its_own(finished, tmp_path, capsys):
    """A journal cut just before its last newline keeps that line whole; what is appended after
    it starts a line of its own, so the journal can be read and resumed again."""
    out = _copy(finished, tmp_path, keep_lines=3)
    (out / JOURNAL).write_bytes((out / JOURNAL).read_bytes()[:-1])
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    assert _records(out) == _records(finished)
    contents = Journal.read(out / JOURNAL)
    assert not contents.dropped and sorted(r.deal for r in contents.records) == list(range(DEALS))


@pytest.mark.parametrize("edit, message", [
    (lambda text: text.replace('"decision_timeout":60.0', '"decision_timeout":NaN', 1), "line 1 is not JSON this program reads"),
    (lambda text: text.replace('"seconds":', '"seconds":Infinity,"s":', 1), "line 2 is not JSON this program reads"),
    (lambda text: re.sub(r'"seconds":[-+.e0-9]+', '"seconds":1e400', text, count=1), "line 2 is not JSON this program reads"),
    (lambda text: text.replace("\n", "\n\n", 1), "line 2 is not JSON this program reads"),
], ids=["nan", "infinity", "overflow", "blank-line"])
def test_a_journal_that_is_not_json_lines_is_one_line(finished, tmp_path, capsys, edit, message):
    out = _copy(finished, tmp_path)
    (out / JOURNAL).write_text(edit((out / JOURNAL).read_text()))
    refused = _refused(out, capsys)
    assert message in refused and refused.endswith(f"to play the run again from the start: bench tournament --out {out} "
                                                   "--force with its flags")


def test_a_header_asking_for_endless_sessions_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=1)
    lines = _lines(out)
    lines[0]["settings"]["session_count"] = 10**12
    _write(out, lines, rechain=True)
    assert "settings.session_count: 1000000000000 is greater than the maximum of 1000000" in _refused(out, capsys)
    assert bench_main(["tournament", "--bots", "greedy", "--sessions", str(10**12)]) == 2
    assert "--sessions is at most 1,000,000 (8,000,000 deals) in one run" in capsys.readouterr().err


def test_a_header_naming_other_bots_in_its_identity_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    lines = _lines(out)
    bots = lines[0]["identity"]["bots"]
    bots.append(dict(bots[0], spec="random"))
    _write(out, lines, rechain=True)
    assert "the journal names the bots greedy, table, random, but the run plays greedy, table" in _refused(out, capsys)


def _as_version_2(line: dict) -> dict:
    """A line in the shape journals of version 2 had: the header names its kind and version, the
    settings count players and sessions as ``players`` and ``sessions``, plays hold text."""
    line = {k: v for k, v in line.items() if k not in ("schema_version", "document")}
    if line["seq"] == 0:
        settings = line["settings"]
        settings["players"], settings["sessions"] = settings.pop("player_count"), settings.pop("session_count")
        return {"kind": "chinese-poker-journal", "version": 2} | line
    for record in line["records"]:
        for row in record["plays"]:
            for play in row:
                rows = play["arrangement"]
                play["arrangement"] = f"{rows['front']} / {rows['middle']} / {rows['back']}" if rows else "fault"
    return line


def test_a_journal_of_an_older_version_is_refused(finished, tmp_path, capsys):
    """A journal of version 2 (checks and all right, as that version wrote it) cannot be
    resumed: one line says an older version wrote it."""
    out = _copy(finished, tmp_path, keep_lines=3)
    _write(out, [_as_version_2(line) for line in _lines(out)], rechain=True)
    line = _refused(out, capsys)
    assert "was written by an older version of bench (journal version 2) and cannot be resumed" in line, line


def test_a_journal_of_a_newer_version_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    lines = _lines(out)
    lines[0]["schema_version"] = 4
    _write(out, lines, rechain=True)
    assert "is a journal of schema_version 4, not 3; this version of bench cannot resume it" in _refused(out, capsys)


# --- what the header holds, and what a resume verifies -----------------------------------------


@pytest.mark.parametrize("flag, value, stored", [
    ("--seed", "4", "--seed 3"), ("--sessions", "5", "--sessions 3"), ("--players", "3", "--players 2"),
    ("--rules", "1-6", "--rules basic"), ("--bots", "greedy,random", "--bots greedy,table"),
    ("--on-fault", "foul", "--on-fault stop"), ("--decision-timeout", "5", "--decision-timeout 60.0"),
])
def test_flags_that_conflict_with_the_run_are_refused(finished, tmp_path, capsys, flag, value, stored):
    out = _copy(finished, tmp_path, keep_lines=3)
    line = _refused(out, capsys, flag, value)
    assert f"the run was started with {stored}, not {value}" in line


@pytest.mark.slow
def test_flags_that_agree_with_the_run_are_accepted(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    status, err = _resume(out, "--seed", "3", "--sessions", "3", "--rules", "basic", "--bots", "greedy,table",
                          capsys=capsys)
    assert status == 0, err
    assert _records(out) == _records(finished)


@pytest.mark.slow
def test_the_rules_are_kept_in_full_not_as_a_path(tmp_path, capsys):
    """A rules file changed or removed before the resume changes nothing: the journal holds the rules."""
    rules = tmp_path / "house.toml"
    rules.write_text('scoring = "1-6"\n[royalties]\nback = { "four of a kind" = 4 }\n')
    whole, part = tmp_path / "whole", tmp_path / "part"
    base = ["tournament", "--bots", "greedy,table", "--sessions", "2", "--seed", "5", "--jobs", "1",
            "--rules", str(rules)]
    assert bench_main([*base, "--out", str(whole)]) == 0
    part.mkdir()
    lines = (whole / JOURNAL).read_text().splitlines(keepends=True)
    (part / JOURNAL).write_text("".join(lines[:2]))
    rules.unlink()
    capsys.readouterr()
    status, err = _resume(part, capsys=capsys)
    assert status == 0, err
    assert _records(part) == _records(whole)
    header = _lines(whole)[0]
    assert header["settings"]["rules"]["scoring"] == "1-6" and header["settings"]["rules"]["royalties"]


def _protocol_bot(folder: Path, name: str = "sorted-py") -> Path:
    """A copy of the example protocol bot in ``folder``: its TOML file."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "examples" / "bots" / "sorted_bot.py", folder / "sorted_bot.py")
    toml = folder / "bot.toml"
    toml.write_text(f'name = "{name}"\ncommand = ["{sys.executable}", "sorted_bot.py"]\n')
    return toml


@pytest.mark.slow
@pytest.mark.parametrize("edit, message", [
    (lambda toml: toml.write_text(toml.read_text() + "decision_timeout = 7\n"), "bot.toml changed (sha256"),
    (lambda toml: (toml.parent / "sorted_bot.py").write_text((toml.parent / "sorted_bot.py").read_text() + "\n#\n"),
     "sorted_bot.py changed (sha256"),
], ids=["bot-file", "bot-program"])
def test_a_bot_edited_between_interruption_and_resume_is_refused(tmp_path, capsys, edit, message):
    toml = _protocol_bot(tmp_path / "bot")
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", f"greedy,{toml}", "--sessions", "1", "--seed", "2", "--jobs", "1",
                       "--out", str(out)]) == 0
    lines = (out / JOURNAL).read_text().splitlines(keepends=True)
    (out / JOURNAL).write_text("".join(lines[:2]))
    (out / "results.json").unlink()
    capsys.readouterr()
    edit(toml)
    line = _refused(out, capsys, "--bots", f"greedy,{toml}")
    assert message in line and "since the run started" in line


@pytest.mark.parametrize("spec", ["{toml}", "exhaustive:samples=10:opponent={toml}"], ids=["protocol", "opponent"])
def test_a_resume_starts_no_bot_from_elsewhere_unless_bots_names_it(finished, tmp_path, capsys, spec):
    """A header forged (its checks computed again) to name a protocol bot, as a bot or as a
    built-in bot's opponent: the resume is refused in one line that says how to vouch for it,
    and the program is not started; with --bots the bot is made (and this one fails to start)."""
    marker = tmp_path / "started"
    (tmp_path / "elsewhere").mkdir()
    toml = tmp_path / "elsewhere" / "starter.toml"
    toml.write_text(f'name = "starter"\ncommand = ["touch", "{marker}"]\nstartup_timeout = 5\n')
    spec = spec.format(toml=toml)
    out = _copy(finished, tmp_path, keep_lines=3)
    lines = _lines(out)
    lines[0]["settings"]["bots"][1] = lines[0]["identity"]["bots"][1]["spec"] = spec
    _write(out, lines, rechain=True)
    line = _refused(out, capsys)
    assert f"its bots that are not built in, whose making runs their code: {spec[:80]!r}" in line, line
    assert ("makes" in line) == spec.startswith("exhaustive:"), line
    assert line.endswith(f"if you trust them, resume with --bots greedy,{spec}") and not marker.exists()
    line = _refused(out, capsys, "--bots", str(toml))  # the outside bot alone: the run's bots are asked for
    assert line.endswith(f"not {toml}; give --bots greedy,{spec} to continue it as it was started"), line
    line = _refused(out, capsys, "--bots", f"greedy,{spec}")
    assert marker.exists() and "starter" in line, line


def test_a_refused_resume_names_every_bot_that_is_not_built_in(finished, tmp_path, capsys):
    """Two bots from elsewhere: the line names both, and what the second would start, before
    the user vouches for them all with the --bots it gives."""
    out = _copy(finished, tmp_path, keep_lines=3)
    lines = _lines(out)
    lines[0]["settings"]["bots"] = ["a.toml", "exhaustive:opponent=b.toml"]
    for bot, spec in zip(lines[0]["identity"]["bots"], lines[0]["settings"]["bots"]):
        bot["spec"] = spec
    _write(out, lines, rechain=True)
    line = _refused(out, capsys)
    assert "not built in, whose making runs their code: 'a.toml'; 'exhaustive:opponent=b.toml' makes 'b.toml'; " \
           "if you trust them, resume with --bots a.toml,exhaustive:opponent=b.toml" in line, line


def test_a_changed_package_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    lines = _lines(out)
    lines[0]["identity"]["package"]["version"] = "0.0.1"
    _write(out, lines, rechain=True)
    assert "the package's version was 0.0.1, is now" in _refused(out, capsys)


def test_a_changed_python_bot_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    lines = _lines(out)
    bot = lines[0]["identity"]["bots"][1]
    path = next(iter(bot["sha256_by_file"]))
    bot["sha256_by_file"][path] = "0" * 64
    _write(out, lines, rechain=True)
    assert f"bot 'table': its file {path} changed" in _refused(out, capsys)


def test_the_header_holds_the_resolved_settings(finished):
    header = _lines(finished)[0]
    assert header["run"] == _lines(finished)[1]["run"] and header["seq"] == 0
    settings, identity = header["settings"], header["identity"]
    assert settings["bots"] == ["greedy", "table"] and settings["seed"] == 3 and settings["rules"]["name"] == "basic"
    assert identity["package"]["name"] == "chinese-poker-solver" and identity["package"]["version"]
    assert [b["class"] for b in identity["bots"]] == ["bots.greedy:GreedyBot", "bots.table:TableBot"]
    assert all(len(digest) == 64 for b in identity["bots"] for digest in b["sha256_by_file"].values())


def test_the_shipped_schema_is_the_documented_one():
    shipped = (ROOT / "bench" / "records" / "schemas" / "journal.schema.json").read_bytes()
    assert (ROOT / "docs" / "schemas" / "journal.schema.json").read_bytes() == shipped


# --- run folders ------------------------------------------------------------------------------


def test_a_folder_that_holds_a_run_is_refused(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    before = (out / JOURNAL).read_bytes()
    capsys.readouterr()
    assert bench_main([*RUN, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} holds a run of {DEALS} of {DEALS} deals" in err and f"--resume {out}" in err
    assert (out / JOURNAL).read_bytes() == before


@pytest.mark.slow
def test_force_says_what_it_discards(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    (out / "results.json").write_text("{}")
    old_run = _lines(out)[0]["run"]
    capsys.readouterr()
    assert bench_main([*RUN, "--out", str(out), "--force"]) == 0
    err = capsys.readouterr().err
    assert f"--force: discarded a run of 2 of {DEALS} deals (journal.jsonl, results.json) from {out}" in err
    assert _lines(out)[0]["run"] != old_run and _records(out) == _records(finished)


def test_a_journal_that_is_a_link_to_another_folder_is_refused(finished, tmp_path, capsys):
    """The lock is held on the run's folder: a journal linked from elsewhere could be written by
    two runs at once, each holding its own folder's lock."""
    other = _copy(finished, tmp_path, keep_lines=3)
    out = tmp_path / "linked"
    out.mkdir()
    (out / JOURNAL).symlink_to(other / JOURNAL)
    before = (other / JOURNAL).read_bytes()
    assert "is a link" in _refused(out, capsys)
    assert (other / JOURNAL).read_bytes() == before


@pytest.mark.slow
def test_temporary_files_of_a_run_killed_while_writing_are_removed_on_resume(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    stale = [out / ".results.json.k2x9.tmp", out / ".means.png.q2eahcnx.tmp", out / ".journal.jsonl.a1b2.tmp"]
    for path in stale:
        path.write_bytes(b"cut sh")
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    assert not [path for path in stale if path.exists()]
    assert _records(out) == _records(finished)


def _holder(folder: Path) -> subprocess.Popen:
    """A process that holds the lock of ``folder`` until it is killed."""
    code = ("import sys; from pathlib import Path; from solver.files import FolderLock; FolderLock(Path(sys.argv[1])); "
            "print('locked', flush=True); sys.stdin.read()")
    process = subprocess.Popen([sys.executable, "-c", code, str(folder)], cwd=ROOT, env=ENV, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "locked"
    return process


@pytest.mark.slow
def test_a_second_run_on_a_locked_folder_is_refused_at_once(tmp_path, capsys):
    """Two runs started at once on one --out: the second is refused with one line, and the first's
    files are untouched; so is a resume while the run goes on."""
    out = tmp_path / "run"
    first = subprocess.Popen([sys.executable, "-m", "bench.cli", "tournament", "--bots",
                              "greedy,tests.test_journal:SlowBot", "--sessions", "40", "--seed", "1", "--jobs", "1",
                              "--out", str(out)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out / JOURNAL).exists():
            time.sleep(0.05)
        assert first.poll() is None
        journal_run = _lines(out)[0]["run"]
        for argv in (["tournament", "--bots", "greedy", "--sessions", "1", "--out", str(out)],
                     ["tournament", "--bots", "greedy", "--sessions", "1", "--out", str(out), "--force"],
                     ["tournament", "--resume", str(out)]):
            assert bench_main(argv) == 2
            err = capsys.readouterr().err.strip().splitlines()
            assert err == [f"bench tournament: error: {out} is in use by another run (process {first.pid}); wait "
                           "for it to end or stop it"]
        assert first.poll() is None and _lines(out)[0]["run"] == journal_run
    finally:
        first.kill()
        first.communicate()


@pytest.mark.slow
def test_a_lock_held_elsewhere_refuses_and_a_dead_holders_lock_does_not(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    holder = _holder(out)
    try:
        assert "is in use by another run (process" in _refused(out, capsys)
    finally:
        holder.kill()
        holder.communicate()
    assert (out / "run.lock").read_text().strip() == str(holder.pid)  # the dead holder's file stays
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    assert _records(out) == _records(finished)


@pytest.mark.slow
def test_a_run_killed_hard_leaves_a_folder_that_resumes(tmp_path, capsys):
    """kill -9 of the bench mid-run: its lock dies with it; the resume gives what an
    uninterrupted run gives."""
    argv = ["tournament", "--bots", "greedy,tests.test_journal:SlowBot", "--sessions", "2", "--seed", "8",
            "--jobs", "1"]
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", *argv, "--out", str(out)], cwd=ROOT, env=ENV,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not (out / JOURNAL).exists() or len(_lines(out)) < 4):
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert len(_lines(out)) < 1 + 16, "the run should have been killed before it finished"
    status, err = _resume(out, "--bots", "greedy,tests.test_journal:SlowBot", capsys=capsys)
    assert status == 0, err
    whole = tmp_path / "whole"
    assert bench_main([*argv, "--out", str(whole)]) == 0
    assert _records(out) == _records(whole)


# --- a full disk --------------------------------------------------------------------------------


def _disk_full_after(monkeypatch, calls: int | None = None, containing: bytes | None = None) -> None:
    """Writes fail with ENOSPC: all after the first ``calls``, or those of data ``containing``."""
    real = files.write_all
    seen = [0]

    def write_all(fd: int, data: bytes) -> None:
        seen[0] += 1
        if (calls is not None and seen[0] > calls) or (containing is not None and containing in data):
            os.write(fd, data[: len(data) // 2])  # part of it reaches the disk, then it is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(files, "write_all", write_all)


def _no_temporary_files(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".")]


@pytest.mark.slow
def test_disk_full_while_journaling_is_one_line_with_the_resume_command(finished, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    _disk_full_after(monkeypatch, calls=3)  # the header and two lines
    assert bench_main([*RUN, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("bench tournament: error: cannot write") and "no space left on device" in err[-1]
    assert err[-1].endswith(f"continue with: bench tournament --resume {out}")
    assert not (out / "results.json").exists()
    _no_temporary_files(out)
    contents = Journal.read(out / JOURNAL)
    assert not contents.dropped and len(contents.entries) == 2  # no part of the failed line is left
    monkeypatch.undo()
    status, errors = _resume(out, capsys=capsys)
    assert status == 0, errors
    assert _records(out) == _records(finished)


@pytest.mark.slow
def test_disk_full_while_writing_results_leaves_no_cut_off_file(finished, tmp_path, capsys, monkeypatch):
    out = _copy(finished, tmp_path, keep_lines=3)
    _disk_full_after(monkeypatch, containing=b'"document": "results"')
    status, err = _resume(out, capsys=capsys)
    last = err.strip().splitlines()[-1]
    assert status == 2 and last.startswith(f"bench tournament: error: cannot write {out / 'results.json'}: ")
    assert "no space left on device" in last and last.endswith(f"with: bench tournament --resume {out}")
    assert not (out / "results.json").exists()
    _no_temporary_files(out)
    monkeypatch.undo()
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    assert _records(out) == _records(finished)


def test_a_results_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    files.write_atomic(path, "old\n")
    _disk_full_after(monkeypatch, calls=0)
    with pytest.raises(OSError):
        files.write_atomic(path, "new " * 1000)
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["results.json"]


# --- one worker, and the time after a resume ---------------------------------------------------------


@pytest.mark.slow
def test_one_worker_sizes_chunks_after_the_pilots_have_run(tmp_path):
    """With one worker the chunks after the two pilots are sized from their measured time, not
    from 0: a run of slow decisions is journaled a few deals at a time."""
    from bench.run.play import RunSettings
    from bench.run.runner import play_sized

    match = RunSettings(("greedy", "tests.test_journal:SlowBot"), 2, 1)
    for backend, jobs in (("sequential", 2), ("loky", 1), ("threading", 1)):
        chunks: list[list[int]] = []
        play_sized(match, list(range(16)), lambda part, chunks=chunks: chunks.append([r.deal for r in part]), jobs=jobs,
                   backend=backend)
        assert sorted(sum(chunks, [])) == list(range(16))
        assert chunks[:2] == [[0], [1]]
        assert max(len(c) for c in chunks[2:]) <= 5, chunks  # a deal here takes at least 0.04 s


@pytest.mark.slow
def test_a_sequential_run_journals_as_it_goes(tmp_path, capsys):
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", "greedy,tests.test_journal:SlowBot", "--sessions", "2", "--seed", "1",
                       "--backend", "sequential", "--out", str(out)]) == 0
    assert len(_lines(out)) >= 1 + 2 + 3


@pytest.mark.slow
def test_deals_per_second_after_a_resume_counts_this_part_only(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path, keep_lines=3)
    done = sum(len(line["records"]) for line in _lines(out)[1:])
    status, err = _resume(out, capsys=capsys)
    assert status == 0, err
    timing = json.loads((out / "results.json").read_text())["timing"]
    assert timing["timed_deal_count"] == DEALS - done
    assert timing["deals_per_second"] == pytest.approx((DEALS - done) / timing["wall_seconds"])
    assert f"{DEALS - done} deals played in this part of a resumed run ({DEALS} in all)" in (
        out / "report.md").read_text()


@pytest.mark.slow
def test_tables_name_protocol_bots_by_their_own_name(tmp_path, capsys):
    one = _protocol_bot(tmp_path / "one", "sorter")
    two = _protocol_bot(tmp_path / "two", "sorter")
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", f"{one},{two},greedy", "--players", "2", "--sessions", "1",
                       "--seed", "2", "--jobs", "1", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    assert [b["name"] for b in doc["bots"]] == ["sorter", "sorter#2", "greedy"]
    assert [b["spec"] for b in doc["bots"]] == [str(one), str(two), "greedy"]
    assert str(one) not in capsys.readouterr().out.split("\n", 1)[1]


# --- training checkpoints -------------------------------------------------------------------------

TRAIN = ["train", "--hands", "400", "--rounds", "3", "--seed", "2", "--jobs", "1", "--removal-hands", "300"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Tables of an uninterrupted TRAIN, and a checkpoint after its first round."""
    from bots.training import train

    folder = tmp_path_factory.mktemp("trained")
    assert bench_main([*TRAIN, "--out", str(folder / "whole.npz")]) == 0
    states = []
    train(hands=400, rounds=3, seed=2, check_hands=10_000, checkpoint=states.append)
    states[0].save(folder / "part.checkpoint.npz")
    return folder


def _tables(path: Path) -> list[np.ndarray]:
    with np.load(path) as data:
        return [data[row].copy() for row in ("front", "middle", "back")]


def _doctored_checkpoint(source: Path, target: Path, **changes) -> None:
    with np.load(source) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    for key, value in changes.items():
        if key == "meta":
            value(meta)
        else:
            arrays[key] = value(arrays[key])
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(target, **arrays)


@pytest.mark.parametrize("changes, message", [
    ({"front": lambda a: a[:10]}, "its front table has shape (10,) of float64, not (7917,) of float64"),
    ({"front": lambda a: a[:10], "middle": lambda a: a[:10], "back": lambda a: a[:10],
      "previous_middle": lambda a: a[:10]}, "its front table has shape (10,)"),
    ({"previous": lambda a: a[:, :12]}, "its check hands have shape (10000, 12)"),
    ({"middle": lambda a: a.astype(np.float32)}, "its middle table has shape (7917,) of float32"),
    ({"back": lambda a: np.where(np.arange(a.size) == 3, np.nan, a)}, "shares that are not finite"),
    ({"front": lambda a: a[::-1].copy()}, "do not match its digest"),
    ({"meta": lambda m: m["settings"].update(hands=-5)}, "its setting hands is -5"),
    ({"meta": lambda m: m["settings"].update(rules="basic+naturals")}, "not a scoring method"),
    ({"meta": lambda m: m["settings"].update(check_hands=11)}, "not (11, 13) cards"),
    ({"meta": lambda m: m.update(round=9)}, "its round is 9, not 1 to 3"),
    ({"meta": lambda m: m["settings"].update(rounds=2)}, "do not match its digest"),
    ({"meta": lambda m: m.pop("reports")}, "its meta is not the one"),
], ids=["front-shape", "all-shapes", "check-shape", "dtype", "nan", "values", "hands", "rules", "check-hands",
        "round", "rounds", "no-reports"])
def test_a_doctored_checkpoint_is_one_line(trained, tmp_path, capsys, changes, message):
    _doctored_checkpoint(trained / "part.checkpoint.npz", tmp_path / "t.checkpoint.npz", **changes)
    capsys.readouterr()
    assert bench_main(["train", "--resume", str(tmp_path / "t.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bench train: error: --resume") and message in err[0], err
    assert not (tmp_path / "t.npz").exists()


@pytest.mark.slow
def test_disk_full_during_training_leaves_the_last_checkpoint_and_no_temporary_file(trained, tmp_path, capsys,
                                                                                    monkeypatch):
    real, calls = files.write_all, [0]

    def write_all(fd: int, data: bytes) -> None:
        calls[0] += 1
        if calls[0] == 2:  # the checkpoint of round 2
            os.write(fd, data[:100])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(files, "write_all", write_all)
    out = tmp_path / "t.npz"
    assert bench_main([*TRAIN, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"bench train: error: cannot save round 2 in {tmp_path / 't.checkpoint.npz'}: no space left "
                       f"on device; round 1 is saved in {tmp_path / 't.checkpoint.npz'}; once there is room, continue "
                       f"with: bench train --resume {out}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.checkpoint.npz"]
    monkeypatch.undo()
    assert bench_main(["train", "--resume", str(out)]) == 0
    for a, b in zip(_tables(out), _tables(trained / "whole.npz")):
        assert np.array_equal(a, b)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]


@pytest.mark.slow
def test_disk_full_writing_the_tables_keeps_the_checkpoint(trained, tmp_path, capsys, monkeypatch):
    _disk_full_after(monkeypatch, containing=b"info.npy")  # the tables' archive; a checkpoint holds meta.npy
    out = tmp_path / "t.npz"
    assert bench_main([*TRAIN, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"bench train: error: cannot write {out}: no space left on device")
    assert err[-1].endswith(f"write the tables with: bench train --resume {out}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.checkpoint.npz"]
    monkeypatch.undo()
    assert bench_main(["train", "--resume", str(out)]) == 0
    for a, b in zip(_tables(out), _tables(trained / "whole.npz")):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("flag, value, stored", [("--hands", "500", "400"), ("--rounds", "4", "3"), ("--seed", "3", "2"),
                                                 ("--rules", "1-6", "basic")])
def test_training_flags_that_conflict_with_the_checkpoint_are_refused(trained, tmp_path, capsys, flag, value, stored):
    shutil.copy(trained / "part.checkpoint.npz", tmp_path / "t.checkpoint.npz")
    capsys.readouterr()
    assert bench_main(["train", "--resume", str(tmp_path / "t.npz"), flag, value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"bench train: error: --resume {tmp_path / 't.npz'}: the training was started with {flag} {stored}, "
                   f"not {value}; give no {flag} to continue it as it was started"]
    assert not (tmp_path / "t.npz").exists()


def test_training_more_hands_than_memory_holds_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    """Hands within their limit (solver.limits) that the memory left cannot hold."""
    from solver import system

    monkeypatch.setattr(system, "available_memory", lambda: 2**30)
    capsys.readouterr()
    assert bench_main(["train", "--hands", str(10**7), "--rounds", "1", "--out", str(tmp_path / "t.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bench train: error: --hands 10,000,000 would need about"), err
    assert "ask for at most" in err[0] and not list(tmp_path.iterdir())


def test_a_header_naming_more_bots_than_the_limit_makes_none(finished, tmp_path, capsys, monkeypatch):
    """A journal whose header (checks kept right) names 65 bots is refused by the limits of
    solver.limits before any bot is made, as the tournament refuses such a run before it starts."""
    import bench.cli.commands.tournament

    def not_now(*args, **kwargs):
        raise AssertionError("a bot was made")

    out = _copy(finished, tmp_path)
    lines = _lines(out)
    lines[0]["settings"]["bots"] = ["greedy"] * 65
    _write(out, lines, rechain=True)
    monkeypatch.setattr(bench.cli.commands.tournament, "make_bots", not_now)  # where the tournament makes its bots
    assert "the journal's run is too large: the bot count is 65, above the limit of 64" in _refused(out, capsys)


def test_the_command_to_continue_a_run_names_its_bots_when_one_is_not_built_in():
    """A resume makes a bot that is not built in only when --bots names the run's bots, so the
    'to continue' hint of a stopped run gives them; for built-in bots it stays short."""
    from bench.cli.commands.tournament import _resume_command

    assert _resume_command(Path("run"), ("greedy", "table")) == "bench tournament --resume run"
    assert _resume_command(Path("my run"), ("greedy", "x.toml")) == \
        "bench tournament --resume 'my run' --bots greedy,x.toml"
    assert _resume_command(Path("run"), ("greedy", "exhaustive:opponent=x.toml")).endswith(
        " --bots greedy,exhaustive:opponent=x.toml")
