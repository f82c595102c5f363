"""The record names what actually played: the program a protocol bot runs, every file a bot
reads, whether its plays can be replayed, and a name of its own in the tables."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.run.journal import JOURNAL
from bots.identity import seat_names
from bots.protocol import program_path
from tests.helpers import ENV, ROOT

BOT = '''#!{python}
import json, random, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({hello}), flush=True)
    elif message["type"] == "arrange":
        cards = message["hand"].split()
        if {shuffle}:
            random.SystemRandom().shuffle(cards)
        print(json.dumps({{"id": message["id"], "front": " ".join(cards[:3]), "middle": " ".join(cards[3:8]),
                          "back": " ".join(cards[8:])}}), flush=True)
    elif message["type"] == "quit":
        break
'''


def _bot(path: Path, name: str, shuffle: bool = False, **hello) -> Path:
    """A protocol bot program at ``path`` that answers the hello with ``name`` (and ``hello``)
    and sets the cards as dealt, or shuffled by randomness of its own."""
    path.parent.mkdir(parents=True, exist_ok=True)
    answer = {"type": "hello", "name": name, "protocol": 2, **hello}
    path.write_text(BOT.format(python=sys.executable, hello=repr(answer), shuffle=shuffle))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _header(out: Path) -> dict:
    return json.loads((out / JOURNAL).read_text().splitlines()[0])


def _cut(out: Path, lines: int = 2) -> None:
    """The run as if interrupted: its journal's first ``lines`` lines, no results."""
    kept = (out / JOURNAL).read_text().splitlines(keepends=True)[:lines]
    (out / JOURNAL).write_text("".join(kept))
    (out / "results.json").unlink()


def _resume(out: Path, capsys, *flags: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = bench_main(["tournament", "--resume", str(out), *flags])
    return status, capsys.readouterr().err.strip().splitlines()


RUN = ["tournament", "--sessions", "2", "--seed", "4", "--jobs", "1"]


@pytest.mark.slow
def test_a_cmd_bot_is_the_program_on_path_not_a_file_of_that_name_here(tmp_path, monkeypatch):
    """``cmd:botx`` runs the ``botx`` found on PATH; the record names that program and its
    digest, not a ``./botx`` in the folder the run started from."""
    on_path = _bot(tmp_path / "bin" / "botx", "path-bot")
    _bot(tmp_path / "botx", "folder-bot")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    assert bench_main([*RUN, "--bots", "greedy,cmd:botx", "--out", "run"]) == 0
    bot = _header(tmp_path / "run")["identity"]["bots"][1]
    assert bot["identity"]["name"] == "path-bot"  # the hello of the program that ran
    assert bot["identity"]["file"] == str(on_path) and bot["identity"]["sha256"] == _sha256(on_path)
    assert bot["sha256_by_file"] == {str(on_path.resolve()): _sha256(on_path)}


def test_the_program_is_found_from_the_bots_folder_and_environment(tmp_path):
    """A folder of PATH that is not absolute is read from the folder the bot starts in, as
    the process is started."""
    program = _bot(tmp_path / "work" / "tools" / "botx", "tool")
    assert program_path("botx", str(tmp_path / "work"), {"PATH": "tools"}) == str(program)
    assert program_path("botx", str(tmp_path), {"PATH": "tools"}) is None
    assert program_path("tools/botx", str(tmp_path / "work"), {}) == str(program)


@pytest.mark.slow
def test_a_tables_file_replaced_before_resume_is_refused_naming_it(tmp_path, monkeypatch, capsys):
    """``table:tables=FILE`` reads FILE: its digest is in the header, and a resume after FILE
    was replaced is refused in one line that names it: by a new process, as the resume names
    the file changed, and by the process that read the file, which plays one version of it."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "bots" / "data" / "table_basic.npz", tmp_path / "t.npz")
    assert bench_main([*RUN, "--bots", "greedy,table:tables=t.npz", "--out", "run"]) == 0
    files = _header(tmp_path / "run")["identity"]["bots"][1]["sha256_by_file"]
    assert files[str(tmp_path / "t.npz")] == _sha256(tmp_path / "t.npz")
    _cut(tmp_path / "run")
    shutil.copy(ROOT / "bots" / "data" / "table_1-6.npz", tmp_path / "t.npz")
    done = subprocess.run([sys.executable, "-m", "bench.cli", "tournament", "--resume", "run"], cwd=tmp_path,
                          env=ENV, capture_output=True, text=True, timeout=600)
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1, err
    assert f"bot 'table:tables=t.npz': its file {tmp_path / 't.npz'} changed (sha256" in err[0], err
    status, err = _resume(tmp_path / "run", capsys)
    assert status == 2 and len(err) == 1, err
    assert f"tables file '{tmp_path / 't.npz'}' was replaced after this process, or the run it plays in, first read" \
        in err[0], err


def test_a_house_rules_file_a_bot_is_given_is_part_of_its_identity(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.toml").write_text('scoring = "1-6"\n')
    from bots import make_bot
    from bots.identity import bot_identity

    found = bot_identity("table:rules=house.toml+royalties", make_bot("table:rules=house.toml+royalties"))
    assert found["sha256_by_file"][str(tmp_path / "house.toml")] == _sha256(tmp_path / "house.toml")


def _random_bot(folder: Path, declared: bool) -> Path:
    _bot(folder / "dice.py", "dice", shuffle=True, **({"random": True} if declared else {}))
    toml = folder / "dice.toml"
    toml.write_text(f'name = "dice"\ncommand = ["{sys.executable}", "dice.py"]\n')
    return toml


@pytest.mark.slow
def test_a_bot_that_says_it_draws_its_own_randomness_resumes_and_is_named(tmp_path, capsys):
    """Its plays cannot be played again: a resume does not compare them, says so in one line
    naming the bot, and does not call the journal damaged."""
    toml = _random_bot(tmp_path / "bot", declared=True)
    out = tmp_path / "run"
    assert bench_main([*RUN, "--bots", f"greedy,{toml}", "--out", str(out)]) == 0
    _cut(out)
    status, err = _resume(out, capsys, "--bots", f"greedy,{toml}")
    assert status == 0, err
    said = [line for line in err if "not played again" in line]
    assert len(said) == 1 and repr(str(toml)) in said[0] and "'greedy'" not in said[0], err
    assert not any("journal holds" in line for line in err), err
    assert [bot["replayable"] for bot in _header(out)["identity"]["bots"]] == [True, False]
    capsys.readouterr()
    assert bench_main(["verify", str(out), "--json", "--bots", str(toml)]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert [bot["bot"] for bot in verified["unreplayable_bots"]] == [str(toml)], verified["unreplayable_bots"]


@pytest.mark.slow
def test_a_bot_that_draws_randomness_without_saying_so_is_told_how_to(tmp_path, capsys):
    toml = _random_bot(tmp_path / "bot", declared=False)
    out = tmp_path / "run"
    assert bench_main([*RUN, "--bots", f"greedy,{toml}", "--out", str(out)]) == 0
    _cut(out, lines=3)
    status, err = _resume(out, capsys, "--bots", f"greedy,{toml}")
    assert status == 2 and len(err) == 1, err
    assert f"bot {str(toml)!r} in seat" in err[0] and '"random": true' in err[0], err


def test_a_hello_whose_random_is_not_true_or_false_is_refused(tmp_path, capsys):
    program = _bot(tmp_path / "botx", "dice", random="often")
    status = bench_main(["arrange", "--bot", f"cmd:{program}", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "random '\"often\"'; it must be true or false" in err[0], err


def test_train_refuses_an_out_beside_resume(tmp_path, capsys):
    """``--resume A`` writes A: an ``--out B`` beside it would be ignored, so it is refused."""
    status = bench_main(["train", "--resume", str(tmp_path / "a.npz"), "--out", str(tmp_path / "b.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert f"--resume {tmp_path / 'a.npz'} writes" in err[0] and "give no --out" in err[0], err
    assert not (tmp_path / "b.npz").exists()


@pytest.mark.slow
def test_names_are_unique_whatever_names_bots_claim(tmp_path, capsys):
    """Two ``greedy`` and a bot file that names itself ``greedy#2``: three rows, three names,
    and ``bench report`` reads the run's own file."""
    folder = tmp_path / "bot"
    _bot(folder / "plain.py", "plain")
    toml = folder / "bot.toml"
    toml.write_text(f'name = "greedy#2"\ncommand = ["{sys.executable}", "plain.py"]\n')
    out = tmp_path / "run"
    assert bench_main(["tournament", "--bots", f"greedy,greedy,{toml}", "--players", "3", "--sessions", "1",
                       "--seed", "2", "--jobs", "1", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    names = [bot["name"] for bot in doc["bots"]]
    assert names == ["greedy", "greedy#3", "greedy#2"]
    assert sorted(doc["results"]["by_bot"]) == sorted(names)
    capsys.readouterr()
    assert bench_main(["report", str(out / "results.json"), "--out", str(tmp_path / "again")]) == 0


@pytest.mark.parametrize("claimed", [["a", "a", "a#2", "a#2", "a#3"], ["x#2", "x", "x", "x"], ["b"] * 5])
def test_seat_names_never_repeat_and_keep_first_claims(claimed):
    names = seat_names(claimed)
    assert len(set(names)) == len(names) == len(claimed)
    firsts = {name: names[claimed.index(name)] for name in claimed}
    assert all(firsts[name] == name for name in claimed)


HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"


@pytest.mark.slow
def test_every_command_records_the_files_its_bots_read(tmp_path, monkeypatch, capsys):
    """arrange, match, exploit, grade and solve --opponent record the bot's identity as a
    tournament does: a tables file given by parameter is named with its digest."""
    from jsonschema import Draft202012Validator

    from bench.cli.solve import main as solve_main

    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "bots" / "data" / "table_basic.npz", tmp_path / "t.npz")
    spec, digest = "table:tables=t.npz", _sha256(tmp_path / "t.npz")
    (tmp_path / "plays.txt").write_text(f"{HAND} | 9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS\n")
    runs = {
        "arrange": (bench_main, ["arrange", "--bot", spec, "--json", HAND], "bot_identity"),
        "match": (bench_main, ["match", "greedy", spec, "--max-deals", "16", "--seed", "1", "--jobs", "1", "--json"],
                  "bot_identities"),
        "exploit": (bench_main, ["exploit", "--bot", spec, "--hands", "2", "--samples", "20", "--eval-samples", "20",
                                 "--seed", "1", "--json"], "bot_identity"),
        "solve": (solve_main, [HAND, "--opponent", spec, "--samples", "50", "--seed", "1", "--json"],
                  "opponent_identity"),
        "hand-grade": (solve_main, [HAND, "--opponent", spec, "--samples", "50", "--seed", "1", "--json", "--grade",
                                    "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"], "opponent_identity"),
        "grade": (bench_main, ["grade", "--input", "plays.txt", "--opponent", spec, "--samples", "40", "--json"],
                  "opponent_identity"),
    }
    for name, (main, argv, key) in runs.items():
        capsys.readouterr()
        assert main(argv) == 0, name
        printed = capsys.readouterr().out
        doc = json.loads(printed.splitlines()[0] if name == "arrange" else printed)
        schema = json.loads((ROOT / "bench" / "records" / "schemas" / f"{name}.schema.json").read_text())
        assert not list(Draft202012Validator(schema).iter_errors(doc)), name
        identity = doc[key][1] if name == "match" else doc[key]
        assert identity["spec"] == spec and identity["sha256_by_file"][str(tmp_path / "t.npz")] == digest, name


@pytest.mark.slow
def test_a_runs_rules_file_removed_before_resume_changes_nothing(tmp_path, monkeypatch, capsys):
    """The rules a run gives its bots are held in full by the journal: a rules file named from
    the folder the run started in, then removed, is not a file the bots read."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.toml").write_text('scoring = "1-6"\n')
    assert bench_main([*RUN, "--bots", "greedy,table", "--rules", "house.toml", "--out", "run"]) == 0
    _cut(tmp_path / "run")
    (tmp_path / "house.toml").unlink()
    status, err = _resume(tmp_path / "run", capsys)
    assert status == 0, err


def test_grade_refuses_an_unknown_opponent_once(tmp_path, capsys):
    """The opponent model is made once, before any hand: a bad one is one line, not one a hand."""
    (tmp_path / "plays.txt").write_text(f"{HAND} | 9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS\n" * 3)
    assert bench_main(["grade", "--input", str(tmp_path / "plays.txt"), "--opponent", "gredy"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown bot 'gredy'" in err[0], err
