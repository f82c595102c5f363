"""``bench perf``: run the pytest-benchmark suite and turn its JSON into a report.

The suite lives in ``tests/benchmarks`` of a source checkout. The report gives every
figure with the run it came from, and in yardsticks: its ratio to a fixed kernel
(``bench/analysis/_yardstick.py``) timed between its rounds in the same run, because the machines
are noisy and differ. ``perf.json`` is the ``perf`` document (``bench/records/schemas/perf.schema.json``).
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal, cast

from bench.records.documents import PerfDocument, PerfDocumentBotsItem, PerfDocumentGoalsItem, PerfDocumentSolvesItem, PerfRate
from solver import files
from solver.errors import InfrastructureError
from solver.text import markdown, markdown_code

SUITE = Path(__file__).resolve().parents[2] / "tests" / "benchmarks"
BASELINES = ("eval7", "treys", "phevaluator", "pokerkit")


class PerfError(InfrastructureError, RuntimeError):
    """The suite could not be found or did not run."""


def run_suite(json_path: Path, select: str | None = None, seed: int = 1) -> None:
    """Run the benchmark suite with the run's ``seed``, writing pytest-benchmark's JSON to ``json_path``
    (pytest writes it in a private temporary folder; it reaches ``json_path`` by ``files.write_atomic``)."""
    if not SUITE.is_dir():
        raise PerfError(f"the benchmark suite is not here ({SUITE}); bench perf runs from a source checkout")
    try:
        import pytest_benchmark  # noqa: PLC0415, F401  (optional, the test extra: bench perf says how to install it)
    except ImportError:
        raise PerfError("bench perf needs pytest-benchmark; from the project's folder: pip install '.[test]'") from None
    with tempfile.TemporaryDirectory(prefix="bench-perf-") as folder:
        written = Path(folder) / "benchmarks.json"
        command = [sys.executable, "-m", "pytest", str(SUITE), "-m", "perf", "-q", "-p", "no:cacheprovider",
                   f"--benchmark-json={written}", "--benchmark-columns=median,iqr,rounds"]
        if select:
            command += ["-k", select]
        result = subprocess.run(command, cwd=SUITE.parents[1], env=dict(os.environ, BENCH_PERF_SEED=str(seed)))
        if result.returncode != 0:
            raise PerfError(f"the benchmark suite failed (pytest exit status {result.returncode})")
        files.write_atomic(json_path, files.read_bytes(written, files.DOCUMENT_BYTES, follow=False))


def benchmarks_problem(raw: Any) -> str | None:
    """What is wrong with a document that should be pytest-benchmark's JSON, or None."""
    if not isinstance(raw, dict) or not isinstance(raw.get("benchmarks"), list):
        return "it has no list of benchmarks"
    for entry in raw["benchmarks"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or \
                not isinstance(entry.get("stats"), dict) or "median" not in entry["stats"]:
            return f"a benchmark without a name and stats: {str(entry)[:80]}"
        if not isinstance(entry.get("extra_info", {}), dict):
            return f"benchmark {entry['name']!r} has extra_info that is not a table"
    if not raw["benchmarks"]:
        return "its list of benchmarks is empty"
    return None


SCHEMA_VERSION = 1
YARDSTICK = "bench/analysis/_yardstick.py: 1,000,000 fixed 5-card hands classified into the nine categories, one core"


def _by_name(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["name"]: b for b in raw["benchmarks"]}


def _param(name: str) -> str:
    return name.split("[", 1)[1].removesuffix("]")


def _timed(bench: dict[str, Any]) -> dict[str, Any]:
    """A figure's median and its same-run yardstick, from one benchmark entry."""
    info = bench["extra_info"]
    return {"median_ms": bench["stats"]["median"] * 1e3, "yardstick_ms": info.get("yardstick_ms"),
            "yardsticks": info.get("yardsticks")}


def _rate(bench: dict[str, Any] | None) -> PerfRate | None:
    """A throughput: per second, and per yardstick (how many in the time the yardstick takes)."""
    if bench is None:
        return None
    info = bench["extra_info"]
    stick = info.get("yardstick_ms")
    return {"per_second": info["per_second"], "per_yardstick": info["per_second"] * stick / 1e3 if stick else None,
            "yardstick_ms": stick}


def _evaluator(b: dict[str, dict[str, Any]], versions: dict[str, str | None]) -> dict[str, Any]:
    ours = _rate(b.get("test_eval5_one_core"))
    baselines = []
    for name in BASELINES:
        rate = _rate(b.get(f"test_baseline_{name}"))
        if rate is not None:
            ratio = ours["per_second"] / rate["per_second"] if ours else None
            baselines.append({"name": name, "version": versions.get(name), **rate, "ratio": ratio})
    return {"one_core": ours, "all_cores": _rate(b.get("test_eval5_all_cores")), "baselines": baselines}


def _solves(b: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("rules", "sample_count", "hand_count", "deal_ms", "arrange_ms", "score_ms", "ev_se", "diff_se",
            "ev_se_root_ms", "diff_se_root_ms", "ev_se_root_yardsticks", "diff_se_root_yardsticks")
    found = [{**_timed(bench), **{k: bench["extra_info"].get(k) for k in keys}}
             for name, bench in b.items()
             if name.startswith(("test_solve_per_decision[", "test_solve_bonus_rules["))]
    return sorted(found, key=lambda s: (s["rules"] != "basic", s["rules"] or "", s["sample_count"] or 0))


def _bots(b: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    bots: dict[str, dict[str, Any]] = {}
    for name, bench in b.items():
        if name.startswith("test_one_decision["):
            bots.setdefault(_param(name), {}).update(
                {**_timed(bench), "p95_ms": bench["extra_info"].get("p95_ms")})
    for prefix, key in (("test_batch_of_1000[", "batch"), ("test_batch_of_1000_one_core[", "batch_one_core")):
        for name, bench in b.items():
            if name.startswith(prefix):
                bots.setdefault(_param(name), {}).update(
                    {f"{key}_ms_per_hand": bench["extra_info"]["ms_per_hand"],
                     f"{key}_yardsticks_per_hand": bench["extra_info"].get("yardsticks_per_hand")})
    return [{"bot": name, **figs} for name, figs in sorted(bots.items())]


def _fields(b: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"field": _param(name), "deals_per_second": bench["extra_info"]["deals_per_second"],
             "hands_per_second": bench["extra_info"]["hands_per_second"], **_timed(bench)}
            for name, bench in sorted(b.items()) if name.startswith("test_four_player_field[")]


def _machine(raw: dict[str, Any]) -> dict[str, Any]:
    machine = raw.get("machine_info") or {}
    cpu = machine.get("cpu") or {}
    return {"cpu": cpu.get("brand_raw") or machine.get("processor") or machine.get("machine"),
            "core_count": cpu.get("count"), "python": machine.get("python_version"),
            "numpy": _versions(raw).get("numpy"), "numba": _versions(raw).get("numba")}


def _versions(raw: dict[str, Any]) -> dict[str, str | None]:
    """The packages' versions the run recorded (none for a run that did not record them: the
    versions installed now may not be the ones that ran)."""
    return raw.get("version_by_package") or {}


def figures(raw: dict[str, Any]) -> PerfDocument:
    """The report's document (``document: perf``) from pytest-benchmark's JSON, the shape of
    ``perf.schema.json`` (which the tests check its output against)."""
    b = _by_name(raw)
    stick = b.get("test_yardstick", {}).get("extra_info", {})
    splits = [{"scan": scan, "ms_per_hand": b[name]["extra_info"]["ms_per_hand"],
               "yardsticks_per_hand": b[name]["extra_info"]["yardsticks"] / 1000}
              for scan in ("canonical", "full") if (name := f"test_all_splits_one_core[{scan}]") in b]
    start = b.get("test_compile_then_warm_start")
    command = b.get("test_solve_command_end_to_end")
    protocol = _rate(b.get("test_protocol_decisions_per_second"))
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "document": "perf",
        "seed": raw["seed"],
        "command": f"bench perf --seed {raw['seed']}" + (f" -k {shlex.quote(raw['select'])}" if raw.get("select") else ""),
        "run": {"datetime": raw.get("datetime"), "commit": (raw.get("commit_info") or {}).get("id")},
        "machine": _machine(raw),
        "yardstick": {"kernel": YARDSTICK, "median_ms": stick.get("median_ms"),
                      "numpy_sort_ms": stick.get("numpy_sort_ms")},
        "evaluator": _evaluator(b, _versions(raw)),
        "all_splits": splits,
        "solves": _solves(b),
        "bots": _bots(b),
        "tournament_fields": _fields(b),
        "startup": dict(start["extra_info"]) if start else None,
        "protocol": protocol,
        "solve_command": ({"cold_s": command["extra_info"]["cold_s"], "warm_s": command["stats"]["median"],
                           "yardsticks": command["extra_info"].get("yardsticks"),
                           "yardstick_ms": command["extra_info"].get("yardstick_ms")} if command else None),
    }
    doc = cast(PerfDocument, document)
    doc["goals"] = goal_rows(doc)
    return doc


GOALS: tuple[tuple[str, tuple[Literal["solves", "bots"], str, int | None], float | None], ...] = (
    # (figure, where it is, goal in yardsticks)
    ("solve, 1,000 opponents, basic", ("solves", "basic", 1000), 0.60),
    ("solve, 1,000 opponents, 1-6", ("solves", "1-6", 1000), 1.00),
    ("solve, 1,000 opponents, 2-4", ("solves", "2-4", 1000), 1.00),
    ("exhaustive bot, one decision", ("bots", "exhaustive", None), 1.0),
    ("table bot, one hand a call", ("bots", "table", None), None),
)


def _find(document: PerfDocument, where: tuple[Literal["solves", "bots"], str, int | None],
          ) -> PerfDocumentSolvesItem | PerfDocumentBotsItem | None:
    """The solve of these rules and samples, or the bot of this name, or None."""
    part, name, samples = where
    if part == "solves":
        return next((s for s in document["solves"] if (s["rules"], s["sample_count"]) == (name, samples)), None)
    return next((b for b in document["bots"] if b["bot"] == name), None)


def goal_rows(document: PerfDocument) -> list[PerfDocumentGoalsItem]:
    """The figures with a speed goal: milliseconds, yardsticks (same run) and the goal."""
    rows: list[PerfDocumentGoalsItem] = []
    for label, where, goal in GOALS:
        entry = _find(document, where)
        rows.append({"figure": label, "median_ms": entry.get("median_ms") if entry else None,
                     "yardsticks": entry.get("yardsticks") if entry else None, "goal_yardsticks": goal})
    return rows


def _f(x: float | None, spec: str, scale: float = 1.0, suffix: str = "") -> str:
    return "—" if x is None else f"{x * scale:{spec}}{suffix}"


def _text(value: Any) -> str:
    """A value the benchmarks.json gives (a name, a version, the machine), as Markdown text: it
    may come from anywhere, so none of its markup is kept (``solver.text.markdown``)."""
    return markdown(str(value))


def _header(doc: PerfDocument) -> list[str]:
    m, run = doc["machine"], doc["run"]
    stick = doc["yardstick"]
    return [
        "# Benchmark report", "",
        f"Machine: {_text(m['cpu'])}, {_text(m['core_count'] or '?')} cores; Python {_text(m['python'])}; "
        f"numpy {_text(m['numpy'])}, numba {_text(m['numba'])}. Run {_text(run['datetime'] or '')}, "
        f"commit {_text(run['commit'] or 'unknown')}, seed {_text(doc['seed'])}: {markdown_code(doc['command'])}.", "",
        "Every figure is also given in *yardsticks*: its time over the yardstick's, a fixed Numba kernel "
        f"({stick['kernel']}) timed between the figure's own rounds in the same run, so that load weighs on both "
        f"alike. Alone, it took {_f(stick['median_ms'], '.1f', 1, ' ms')} in this run (numpy sorting 2 million "
        f"doubles, the unit of earlier reports: {_f(stick['numpy_sort_ms'], '.1f', 1, ' ms')}).",
    ]


def _evaluator_section(doc: PerfDocument) -> list[str]:
    ev = doc["evaluator"]
    lines = ["", "## Row evaluation (5 cards, random rows)", "",
             "| evaluator | rows per second | rows per yardstick | ours is |", "|---|---|---|---|"]
    for label, rate in (("this project, one core", ev["one_core"]), ("this project, all cores", ev["all_cores"])):
        lines.append(f"| {label} | {_f(rate['per_second'] if rate else None, ',.0f', 1e-6, ' M')} | "
                     f"{_f(rate['per_yardstick'] if rate else None, ',.1f', 1e-6, ' M')} | |")
    for base in ev["baselines"]:
        named = _text(f"{base['name']} {base['version']}" if base["version"] else base["name"])
        lines.append(f"| {named} (Python loop) | {_f(base['per_second'], ',.2f', 1e-6, ' M')} | "
                     f"{_f(base['per_yardstick'], ',.3f', 1e-6, ' M')} | {_f(base['ratio'], ',.0f', 1, '×')} |")
    lines += ["", "## All 72,072 splits of a hand, evaluated and foul-checked (one core, 1,000 hands a call)", ""]
    lines += [f"{s['scan']} scan: {s['ms_per_hand']:.3f} ms per hand ({s['yardsticks_per_hand']:.5f} yardsticks)."
              for s in doc["all_splits"]]
    return lines


def _solve_section(doc: PerfDocument) -> list[str]:
    lines = ["", "## solve, per decision (default opponent model, warm)", "",
             "Median over the suite's hands. SE: the standard error of the best play's EV, and of the paired "
             "difference to the runner-up. SE × √ms is the SE a solve taking 1 ms would have (a Monte Carlo SE "
             "falls as one over the root of the work): lower is more precision per time; SE × √yardsticks is "
             "the same in yardsticks.", "",
             "| rules | samples | median | yardsticks | deal | arrange opponents | score | EV SE | diff SE | "
             "EV SE × √ms | diff SE × √ms | EV SE × √yardsticks | diff SE × √yardsticks |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in doc["solves"]:
        lines.append(f"| {_text(s['rules'])} | {s['sample_count']:,} | {s['median_ms']:.1f} ms | {_f(s['yardsticks'], '.3f')} | "
                     f"{s['deal_ms']:.1f} ms | {s['arrange_ms']:.1f} ms | {s['score_ms']:.1f} ms | {s['ev_se']:.4f} | "
                     f"{_f(s['diff_se'], '.4f')} | {_f(s['ev_se_root_ms'], '.4f')} | {_f(s['diff_se_root_ms'], '.4f')} | "
                     f"{_f(s['ev_se_root_yardsticks'], '.4f')} | {_f(s['diff_se_root_yardsticks'], '.4f')} |")
    return lines


def _bots_section(doc: PerfDocument) -> list[str]:
    lines = ["", "## Bots, per decision", "",
             "| bot | median | p95 | yardsticks | in a batch of 1,000, per hand | the same on one core | "
             "one core, yardsticks per hand |", "|---|---|---|---|---|---|---|"]
    for s in doc["bots"]:
        lines.append(f"| {_text(s['bot'])} | {_f(s.get('median_ms'), '.3f', 1, ' ms')} | "
                     f"{_f(s.get('p95_ms'), '.3f', 1, ' ms')} | "
                     f"{_f(s.get('yardsticks'), '.4g')} | {_f(s.get('batch_ms_per_hand'), '.4f', 1, ' ms')} | "
                     f"{_f(s.get('batch_one_core_ms_per_hand'), '.4f', 1, ' ms')} | "
                     f"{_f(s.get('batch_one_core_yardsticks_per_hand'), '.3g')} |")
    if doc["tournament_fields"]:
        lines += ["", "## Tournaments: 4-player fields of one bot, one worker", "",
                  "| field | deals per second | hands per second | yardsticks per call |", "|---|---|---|---|"]
        lines += [f"| {_text(s['field'])} | {s['deals_per_second']:.1f} | {s['hands_per_second']:.1f} | "
                  f"{_f(s['yardsticks'], '.2f')} |"
                  for s in doc["tournament_fields"]]
    return lines


def _goals_section(doc: PerfDocument) -> list[str]:
    lines = ["", "## Against the goals", "", "| figure | measured | yardsticks | goal, yardsticks |", "|---|---|---|---|"]
    lines += [f"| {g['figure']} | {_f(g['median_ms'], '.4g', 1, ' ms')} | {_f(g['yardsticks'], '.4g')} | "
              f"{_f(g['goal_yardsticks'], '.2f')} |" for g in doc["goals"]]
    return lines


def _process_section(doc: PerfDocument) -> list[str]:
    lines = []
    if doc["protocol"]:
        lines += ["", "## Protocol bots", "",
                  f"A bot in its own process that answers at once (tests/protocol/echo_bot.py): "
                  f"{doc['protocol']['per_second']:,.0f} decisions per second on one worker "
                  f"({_f(doc['protocol']['per_yardstick'], ',.0f')} per yardstick), the protocol's own cost "
                  "(JSON both ways, the pipe, the checks)."]
    start, command = doc["startup"], doc["solve_command"]
    if start:
        lines += ["", "## Start-up", "",
                  f"Kernels in a fresh process with an empty Numba cache: {start['cold_wall_s']:.1f} s wall "
                  f"({start['cold_first_calls_s']:.1f} s compiling); with a warm cache: {start['warm_wall_s']:.2f} s "
                  f"({start['warm_first_calls_s']:.2f} s loading)."]
    if command:
        lines.append(f"The `solve` command end to end: {command['warm_s']:.2f} s warm "
                     f"({_f(command['yardsticks'], '.1f')} yardsticks), {command['cold_s']:.1f} s on first run (compiling).")
    return lines


def render_markdown(doc: PerfDocument, plot: bool) -> str:
    """The report as Markdown, section by section, from the perf document."""
    sections = (_header, _evaluator_section, _solve_section, _bots_section, _goals_section, _process_section)
    lines = [line for section in sections for line in section(doc)]
    if plot:
        lines += ["", "![benchmarks](perf.png)"]
    return "\n".join(lines) + "\n"


def write_plot(figs: PerfDocument, path: Path) -> None:
    import matplotlib  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    ev = figs["evaluator"]
    names = ["ours (1 core)"] + [b["name"] for b in ev["baselines"]]
    rates = [ev["one_core"]["per_second"] if ev["one_core"] else float("nan")] + [b["per_second"] for b in ev["baselines"]]
    left.barh(names, [r / 1e6 for r in rates])
    left.set_xscale("log")
    left.set_xlabel("million 5-card rows per second (log)")
    left.set_title("evaluator throughput")
    right.barh([b["bot"] for b in figs["bots"]], [b.get("yardsticks") or float("nan") for b in figs["bots"]])
    right.set_xscale("log")
    right.set_xlabel("yardsticks per decision, median (log)")
    right.set_title("bot decision time")
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=110, format="png")
    plt.close(fig)
    files.write_atomic(path, image.getvalue())


def write_report(raw: dict[str, Any], out: Path) -> Path:
    figs = figures(raw)
    try:
        write_plot(figs, out / "perf.png")
        plot = True
    except ImportError:
        plot = False
    files.write_atomic(out / "perf.json", json.dumps(figs, indent=1) + "\n")
    path = out / "perf.md"
    files.write_atomic(path, render_markdown(figs, plot))
    return path
