"""Files pass one gate (``solver.files``): no link followed in a folder the program writes, only
regular files read, appended to or locked, size ceilings before reading, UTF-8 with or
without a byte-order mark, and one line for a standard input that is closed.

The cases that used to hang (a named pipe where a file was expected) run the command in a
child process; its time-out is a guard against a hang, never a measure of speed."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.cli import main as bench_main
from bench.run.journal import JOURNAL, Journal
from bots.protocol import ProtocolSpec
from solver import config, files
from solver.rules import Rules, RulesError
from tests.helpers import ENV, ROOT

HANG_GUARD = 300  # seconds: a refusal takes a second or two; a blocked open never returns
RUN = ["tournament", "--bots", "greedy,greedy", "--sessions", "1", "--seed", "5", "--jobs", "1"]
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
BOM = b"\xef\xbb\xbf"


def _bench(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """``bench ARGS`` in a child process, with its input closed unless given."""
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run([sys.executable, "-m", "bench.cli", *args], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=HANG_GUARD, **kwargs)


def _one_line(done: subprocess.CompletedProcess, status: int = 2) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == status and len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """The folder of a finished run of RUN (copy what you change)."""
    out = tmp_path_factory.mktemp("gate") / "run"
    assert bench_main([*RUN, "--out", str(out)]) == 0
    return out


def _partial(finished: Path, folder: Path) -> Path:
    """A run folder holding the finished run's journal cut to its header and first entry."""
    folder.mkdir()
    lines = (finished / JOURNAL).read_bytes().splitlines(keepends=True)
    (folder / JOURNAL).write_bytes(b"".join(lines[:2]))
    return folder


# --- the run folder: links, named pipes, hard links --------------------------------------------


@pytest.mark.slow
def test_a_lock_file_that_is_a_link_is_refused_and_its_target_untouched(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.lock").symlink_to(outside)
    line = _one_line(_bench(*RUN, "--out", str(out)))
    assert line.startswith("bench tournament: error: cannot lock") and "is a link" in line, line
    assert outside.read_text() == "keep me\n"
    assert sorted(p.name for p in out.iterdir()) == ["run.lock"] and (out / "run.lock").is_symlink()


@pytest.mark.slow
def test_a_lock_file_with_another_name_is_refused_and_not_written(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    out = tmp_path / "run"
    out.mkdir()
    os.link(outside, out / "run.lock")
    assert "2 names (hard links)" in _one_line(_bench(*RUN, "--out", str(out)))
    assert outside.read_text() == "keep me\n"


@pytest.mark.slow
@pytest.mark.parametrize("force", [False, True], ids=["out", "out-force"])
def test_a_named_pipe_for_a_journal_is_refused_at_once(tmp_path, force):
    """It used to hang: reading the journal (to say what --force discards) opened the pipe and
    waited for a writer. --force removes only regular files, so it refuses too."""
    out = tmp_path / "run"
    out.mkdir()
    os.mkfifo(out / JOURNAL)
    line = _one_line(_bench(*RUN, "--out", str(out), *(["--force"] if force else [])))
    assert f"{out / JOURNAL}: it is a named pipe (FIFO), not a regular file" in line, line
    assert (out / JOURNAL).is_fifo()


@pytest.mark.slow
def test_a_named_pipe_for_a_journal_is_refused_on_resume(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    os.mkfifo(out / JOURNAL)
    assert "it is a named pipe (FIFO)" in _one_line(_bench("tournament", "--resume", str(out)))


@pytest.mark.slow
def test_a_hard_linked_journal_is_refused_on_resume(finished, tmp_path, capsys):
    """Two resumes in two folders would append to one file, each under its own folder's lock."""
    first = _partial(finished, tmp_path / "first")
    second = tmp_path / "second"
    second.mkdir()
    os.link(first / JOURNAL, second / JOURNAL)
    before = (first / JOURNAL).read_bytes()
    capsys.readouterr()
    assert bench_main(["tournament", "--resume", str(second)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has 2 names (hard links)" in err[0], err
    assert (first / JOURNAL).read_bytes() == before and not (second / "results.json").exists()


@pytest.mark.slow
def test_a_journal_opened_for_appending_must_have_one_name(finished, tmp_path):
    folder = _partial(finished, tmp_path / "run")
    contents = Journal.read(folder / JOURNAL)
    os.link(folder / JOURNAL, tmp_path / "elsewhere.jsonl")
    with pytest.raises(files.FileRefused, match="2 names"):
        files.open_append(folder / JOURNAL)
    with pytest.raises(Exception, match="2 names"):
        Journal.reopen(folder / JOURNAL, contents)


@pytest.mark.slow
def test_force_removes_regular_files_only(finished, tmp_path):
    out = _partial(finished, tmp_path / "run")
    outside = tmp_path / "outside.md"
    outside.write_text("keep me\n")
    (out / "report.md").symlink_to(outside)
    line = _one_line(_bench(*RUN, "--out", str(out), "--force"))
    assert f"{out / 'report.md'}: it is a link" in line, line
    assert outside.read_text() == "keep me\n" and (out / "report.md").is_symlink()
    assert (out / JOURNAL).exists(), "nothing is removed when one of the files cannot be"


def test_results_written_over_a_link_replace_the_link_not_its_target(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("keep me\n")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.json").symlink_to(outside)
    files.write_atomic(folder / "results.json", "{}\n")
    assert outside.read_text() == "keep me\n"
    assert not (folder / "results.json").is_symlink() and (folder / "results.json").read_text() == "{}\n"


@pytest.mark.slow
def test_perf_reports_written_over_links_leave_their_targets_alone(tmp_path):
    """``bench perf`` wrote perf.md and perf.json through whatever link had their names."""
    out = tmp_path / "perf"
    out.mkdir()
    targets = {name: tmp_path / f"outside-{name}" for name in ("perf.md", "perf.json", "perf.png")}
    for name, target in targets.items():
        target.write_text("keep me\n")
        (out / name).symlink_to(target)
    done = _bench("perf", "--from-json", str(ROOT / "docs" / "perf" / "benchmarks.json"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert all(target.read_text() == "keep me\n" for target in targets.values())
    assert not any((out / name).is_symlink() for name in targets)


@pytest.mark.slow
@pytest.mark.parametrize("make, message", [(lambda path, other: path.symlink_to(other), "it is a link"),
                                           (lambda path, other: os.mkfifo(path), "it is a named pipe (FIFO)")],
                         ids=["link", "fifo"])
def test_a_training_checkpoint_that_is_not_a_file_of_its_own_is_refused(tmp_path, make, message):
    other = tmp_path / "other.npz"
    other.write_bytes(b"not a checkpoint")
    make(tmp_path / "t.checkpoint.npz", other)
    line = _one_line(_bench("train", "--resume", str(tmp_path / "t.npz")))
    assert line.startswith("bench train: error: --resume") and message in line, line
    assert other.read_bytes() == b"not a checkpoint"


# --- files a user names -------------------------------------------------------------------------


def _fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("argv, name", [
    (["arrange", "--bot", "greedy", "--input", "{}"], "hands.txt"),
    (["grade", "--input", "{}"], "hands.txt"),
    (["arrange", "--bot", "greedy", "--rules", "{}", HAND], "house.toml"),
    (["arrange", "--bot", "{}", HAND], "bot.toml"),
    (["arrange", "--bot", "table:tables={}", HAND], "tables.npz"),
    (["report", "{}"], "results.json"),
    (["perf", "--from-json", "{}", "--out", "{folder}"], "benchmarks.json"),
], ids=["arrange-input", "grade-input", "house-rules", "bot-file", "tables", "results", "benchmarks"])
def test_a_named_pipe_given_as_a_file_is_refused_without_blocking(tmp_path, argv, name):
    fifo = _fifo(tmp_path, name)
    args = [a.replace("{}", str(fifo)).replace("{folder}", str(tmp_path / "perf")) for a in argv]
    line = _one_line(_bench(*args))
    assert "it is a named pipe (FIFO), not a regular file" in line, line


@pytest.mark.slow
def test_a_pipe_named_as_input_points_to_the_standard_input(tmp_path):
    line = _one_line(_bench("arrange", "--bot", "greedy", "--input", str(_fifo(tmp_path, "hands"))))
    assert line.endswith("to read from a pipe, give it on the standard input (--input -)"), line


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["arrange", "--bot", "greedy", "--input", "-"], ["grade", "--input", "-"]],
                         ids=["arrange", "grade"])
def test_a_closed_standard_input_is_one_line(argv):
    done = subprocess.run([sys.executable, "-m", "bench.cli", *argv], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=HANG_GUARD, stdin=None, preexec_fn=lambda: os.close(0))
    line = _one_line(done)
    assert line.endswith("cannot read the standard input (--input -): it is closed; give the data on it "
                         "(command < FILE) or name a file"), line


@pytest.mark.slow
def test_the_standard_input_is_still_read():
    done = _bench("arrange", "--bot", "greedy", "--ascii", "--input", "-", stdin=None, input=f"{HAND}\n")
    assert done.returncode == 0 and "AS KS QS JS TS" in done.stdout, done.stderr


def test_a_hands_file_with_a_byte_order_mark_reads_as_utf8(tmp_path, capsys):
    path = tmp_path / "hands.txt"
    path.write_bytes(BOM + f"{HAND}  # the first hand\n{HAND}\n".encode())
    capsys.readouterr()
    assert bench_main(["arrange", "--bot", "greedy", "--json", "--input", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["line"] for line in lines] == [1, 2]


def test_a_byte_order_mark_after_the_first_line_is_not_dropped(tmp_path, capsys):
    path = tmp_path / "hands.txt"
    path.write_bytes(f"{HAND}\n".encode() + BOM + f"{HAND}\n".encode())
    capsys.readouterr()
    assert bench_main(["arrange", "--bot", "greedy", "--input", str(path)]) == 2
    assert "line 2" in capsys.readouterr().err


@pytest.mark.slow
def test_an_overlong_line_of_hands_is_one_line(tmp_path):
    path = tmp_path / "hands.txt"
    path.write_bytes(b"A" * (config.LINE_BYTES + 1))
    line = _one_line(_bench("arrange", "--bot", "greedy", "--input", str(path)))
    assert f"line 1 is longer than {config.LINE_BYTES:,} bytes" in line, line


def test_house_rules_with_a_byte_order_mark_read_as_utf8(tmp_path):
    toml = tmp_path / "house.toml"
    toml.write_bytes(BOM + b'name = "house"\nscoring = "1-6"\n')
    as_json = tmp_path / "house.json"
    as_json.write_bytes(BOM + b'{"name": "house", "scoring": "2-4"}')
    assert Rules.load(toml).scoring == "1-6" and Rules.parse(str(toml)).name == "house"
    assert Rules.load(as_json).scoring == "2-4"


def test_a_bot_file_with_a_byte_order_mark_reads_as_utf8(tmp_path):
    path = tmp_path / "mybot.toml"
    path.write_bytes(BOM + b'name = "mine"\ncommand = ["python3", "bot.py"]\n')
    spec = ProtocolSpec.from_toml(path)
    assert spec.name == "mine" and spec.command == ("python3", "bot.py")


def test_a_house_rules_file_too_big_to_be_one_is_refused_before_it_is_read(tmp_path, capsys):
    path = tmp_path / "house.toml"
    with open(path, "wb") as file:
        file.truncate(config.SETTINGS_BYTES + 1)  # sparse: no disk used
    capsys.readouterr()
    assert bench_main(["arrange", "--bot", "greedy", "--rules", str(path), HAND]) == 2
    err = capsys.readouterr().err
    assert f"more than the {config.SETTINGS_BYTES:,} the program reads" in err, err


def test_a_link_the_user_made_to_an_input_is_followed(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('scoring = "2-4"\n')
    (tmp_path / "link.toml").symlink_to(path)
    assert Rules.load(tmp_path / "link.toml").scoring == "2-4"
    with pytest.raises(files.FileRefused, match="is a link"):
        files.read_text(tmp_path / "link.toml", config.SETTINGS_BYTES, follow=False)


# --- the gate itself ------------------------------------------------------------------------


def test_a_file_over_its_ceiling_is_refused(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 11)
    assert files.read_bytes(path, 11) == b"x" * 11
    with pytest.raises(files.FileRefused) as refused:
        files.read_bytes(path, 10)
    assert refused.value.errno == errno.EFBIG and "11 bytes, more than the 10" in refused.value.strerror


def test_an_archive_that_unpacks_beyond_its_ceiling_is_refused(tmp_path):
    path = tmp_path / "tables.npz"
    np.savez_compressed(path, front=np.zeros(1 << 20))  # 8 MiB of zeros packs into a few KiB
    assert path.stat().st_size < 1 << 16
    with files.arrays(path, limit=1 << 24) as data:
        assert data["front"].shape == (1 << 20,)
    with pytest.raises(files.FileRefused, match="unpack to"):
        with files.arrays(path, limit=1 << 20):
            pass


def test_arrays_hold_no_pickles(tmp_path):
    path = tmp_path / "tables.npz"
    np.savez(path, front=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="pickle"):
        with files.arrays(path) as data:
            data["front"]


def test_a_refusal_survives_a_trip_between_processes():
    import pickle

    refused = files.FileRefused("/some/where", "it is a folder, not a regular file", errno.EISDIR)
    again = pickle.loads(pickle.dumps(refused))
    assert (type(again), again.filename, again.strerror, again.errno) == (files.FileRefused, "/some/where",
                                                                         refused.strerror, errno.EISDIR)


# --- every file access goes through the gate ---------------------------------------------------

RAW = {  # what a file access outside the gate looks like
    "open(": r"(?<![\w.])open\(|\b(os|io)\.(open|fdopen)\(|(?<!\bos)(?<!\bio)(?<!\bfiles)\.open\(",
    "read/write of a Path": r"(?<!files)\.(read_text|read_bytes|write_text|write_bytes)\(",
    "numpy file": r"\bnp\.(load|save|savez|savez_compressed|fromfile)\(|\.tofile\(",
    "a folder made": r"\.mkdir\(|\bos\.(mkdir|makedirs)\(|\bmkdtemp\(",
    "a file removed or renamed": r"\.unlink\(|\bos\.(remove|unlink|replace|rename)\(|\brmtree\(|\bmkstemp\(",
    "a parser that opens": r"\b(json|tomllib|pickle)\.load\(|\.savefig\(",
}
ALLOWED = [  # (file, the text on the line, why it does not go through the gate)
    ("solver/_cache.py", "os.mkdir(folder, 0o700)", "numba's cache folders, made 0700 and checked by solver._cache"),
    ("solver/_cache.py", "tempfile.mkdtemp(", "numba's cache folder when the user's cannot be used (mode 0700)"),
    ("solver/_jit.py", "path.read_bytes()", "the package's own kernel sources, to stamp the numba cache"),
    ("bots/protocol/bot.py", "tempfile.mkdtemp(", "a private folder (mode 0700, a fresh name) for a bot's logs"),
    ("bots/protocol/check.py", "tempfile.mkdtemp(", "a private folder (mode 0700, a fresh name) for a checked bot's log"),
    ("bots/protocol/bot.py", "shutil.rmtree(self._temporary", "removes that private folder"),
    ("bots/training.py", "np.savez(data", "into memory; the bytes reach the disk by files.write_atomic"),
    ("bots/table.py", "np.savez_compressed(target", "into a file object; a path goes through files.write_atomic"),
    ("bench/cli/studies.py", "np.savez_compressed(buffer", "into memory; the bytes reach the disk by files.write_atomic"),
    ("bench/records/schema.py", "resources.files(", "package data, through importlib.resources"),
    ("bench/report/summary.py", "resources.files(", "package data, through importlib.resources"),
    ("bench/report/plots.py", "fig.savefig(image", "into memory; the bytes reach the disk by files.write_atomic"),
    ("bench/analysis/perf.py", "fig.savefig(image", "into memory; the bytes reach the disk by files.write_atomic"),
    ("bots/protocol/spec.py", 'with open(path, "rb") as file:', "the first line (4 KiB at most) of a bot's program that "
     "could not start, to say which interpreter its #! line names"),
    ("bots/protocol/_guard_process.py", 'with open("/proc/" + name + "/environ", "rb")', "the guard runs alone, with "
     "python -I -S (nothing of the project); it reads the environment of processes in /proc"),
    ("bench/cli/parsing.py", "os.open(os.devnull", "the null device, put in place of a closed standard output"),
    ("bench/run/runner.py", "os.open(os.devnull", "the null device, to silence a worker's standard error"),
    ("bench/run/runner.py", "tempfile.mkdtemp(", "the runner's private folders (mode 0700, fresh names)"),
    ("bench/run/runner.py", "shutil.rmtree(", "removes those private folders"),
    ("bench/run/journal.py", "tempfile.mkdtemp()", "a doctest's scratch folder"),
    ("bench/run/chain.py", "tempfile.mkdtemp()", "a doctest's scratch folder"),
    ("bench/cli/commands/serve.py", "webbrowser.open(", "opens a web page, not a file"),
]


def _raw_accesses() -> list[tuple[str, int, str, str]]:
    """(file, line number, line, kind) of every file access in the package sources outside the gate."""
    found = []
    for package in ("solver", "bots", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if name == "solver/files.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                for kind, pattern in RAW.items():
                    if re.search(pattern, line):
                        found.append((name, number, line.strip(), kind))
    return found


def test_every_file_access_goes_through_the_gate_or_says_why_not():
    found = _raw_accesses()
    unexplained = [f"{name}:{number}: {line} ({kind})" for name, number, line, kind in found
                   if not any(name == file and text in line for file, text, _ in ALLOWED)]
    assert not unexplained, ("file access outside solver/files.py; use the gate, or add the line to ALLOWED with the "
                             "reason:\n" + "\n".join(unexplained))
    unused = [(file, text) for file, text, _ in ALLOWED if not any(name == file and text in line
                                                                   for name, _, line, _ in found)]
    assert not unused, f"ALLOWED names lines that are no longer there: {unused}"


@pytest.mark.parametrize("line", ['open(path, "rb")', "Path(p).read_text()", "np.load(path)", "out.mkdir()",
                                  "os.open(path, os.O_RDONLY)", "path.unlink()", "json.load(file)",
                                  "os.replace(a, b)", 'path.open("rb")', "np.savez(path, a=a)"])
def test_the_search_sees_raw_accesses(line):
    assert any(re.search(pattern, line) for pattern in RAW.values())


@pytest.mark.parametrize("line", ["files.read_text(path, config.SETTINGS_BYTES)", "files.open_input(path, None)",
                                  "subprocess.Popen(command)", "cls._open(path)", "Journal.reopen(path)"])
def test_the_search_passes_the_gate(line):
    assert not any(re.search(pattern, line) for pattern in RAW.values())



@pytest.mark.parametrize("name", ["a\0b.toml", "\0.json"])
def test_a_name_with_a_nul_is_refused_as_an_os_error(tmp_path, name):
    """A file name can hold no NUL, and the operating system's calls raise ValueError for one,
    which no caller's ``except OSError`` takes: the gate refuses it as an OSError that says so.
    A results.json or journal can carry such a name as its rules (``Rules.parse``)."""
    with pytest.raises(files.FileRefused, match="its name holds a NUL character"):
        files.read_text(tmp_path / name, config.SETTINGS_BYTES)
    with pytest.raises(RulesError, match="its name holds a NUL character"):
        Rules.parse(str(tmp_path / name))
