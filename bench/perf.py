"""``bench perf``: run the pytest-benchmark suite and turn its JSON into a report.

The suite lives in ``tests/benchmarks`` of a source checkout. The report gives every
figure with the run it came from; throughputs are compared as ratios measured in the
same run, because the machines are noisy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.versions import installed_version as _version

SUITE = Path(__file__).resolve().parents[1] / "tests" / "benchmarks"
BASELINES = ("eval7", "treys", "phevaluator", "pokerkit")


class PerfError(RuntimeError):
    """The suite could not be found or did not run."""


def run_suite(json_path: Path, select: str | None = None) -> None:
    """Run the benchmark suite, writing pytest-benchmark's JSON to ``json_path``."""
    if not SUITE.is_dir():
        raise PerfError(f"the benchmark suite is not here ({SUITE}); bench perf runs from a source checkout")
    try:
        import pytest_benchmark  # noqa: F401
    except ImportError:
        raise PerfError("bench perf needs pytest-benchmark; from the project's folder: pip install '.[test]'") from None
    command = [sys.executable, "-m", "pytest", str(SUITE), "-m", "perf", "-q", "-p", "no:cacheprovider",
               f"--benchmark-json={json_path}", "--benchmark-columns=median,iqr,rounds"]
    if select:
        command += ["-k", select]
    result = subprocess.run(command, cwd=SUITE.parents[1])
    if result.returncode != 0:
        raise PerfError(f"the benchmark suite failed (pytest exit status {result.returncode})")


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


def _by_name(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["name"]: b for b in raw["benchmarks"]}


def figures(raw: dict[str, Any]) -> dict[str, Any]:
    """The report's figures from pytest-benchmark's JSON."""
    b = _by_name(raw)

    def info(name: str, key: str) -> float | None:
        return b[name]["extra_info"].get(key) if name in b else None

    def median_ms(name: str) -> float | None:
        return b[name]["stats"]["median"] * 1e3 if name in b else None

    ours = info("test_eval5_one_core", "per_second")
    baselines = {}
    for name in BASELINES:
        rate = info(f"test_baseline_{name}", "per_second")
        if rate is not None:
            baselines[name] = {"per_second": rate, "ratio": ours / rate if ours else None, "version": _version(name)}
    evaluator = {
        "one_core_per_second": ours,
        "all_cores_per_second": info("test_eval5_all_cores", "per_second"),
        "baselines": baselines,
    }
    solve = {
        int(name.split("[")[1].rstrip("]")): {
            "median_ms": median_ms(name),
            **{k: v for k, v in bench["extra_info"].items()},
        }
        for name, bench in b.items() if name.startswith("test_solve_per_decision[")
    }
    solve_rules = {
        name.split("[")[1].rstrip("]"): {"median_ms": median_ms(name), **bench["extra_info"]}
        for name, bench in b.items() if name.startswith("test_solve_bonus_rules[")
    }
    bots = {
        name.split("[")[1].rstrip("]"): dict(bench["extra_info"])
        for name, bench in b.items() if name.startswith("test_one_decision[")
    }
    for prefix, key in (("test_batch_of_1000[", "batch_ms_per_hand"),
                        ("test_batch_of_1000_one_core[", "batch_one_core_ms_per_hand")):
        for name, bench in b.items():
            if name.startswith(prefix):
                bots.setdefault(name.split("[")[1].rstrip("]"), {})[key] = bench["extra_info"]["ms_per_hand"]
    fields = {name.split("[")[1].rstrip("]"): dict(bench["extra_info"])
              for name, bench in b.items() if name.startswith("test_four_player_field[")}
    return {
        "evaluator": evaluator,
        "all_splits_ms_per_hand": {k: info(f"test_all_splits_one_core[{k}]", "ms_per_hand") for k in ("canonical", "full")},
        "solve": dict(sorted(solve.items())),
        "solve_rules": solve_rules,
        "bots": bots,
        "tournament_fields": fields,
        "startup": dict(b["test_compile_then_warm_start"]["extra_info"]) if "test_compile_then_warm_start" in b else {},
        "protocol_decisions_per_second": info("test_protocol_decisions_per_second", "per_second"),
        "yardstick_ms": info("test_yardstick", "median_ms"),
        "solve_command": ({"cold_s": info("test_solve_command_end_to_end", "cold_s"),
                           "warm_s": b["test_solve_command_end_to_end"]["stats"]["median"]}
                          if "test_solve_command_end_to_end" in b else {}),
    }


GOALS_MS_AT = 37.0  # goals given in milliseconds were set on a machine whose yardstick took this long


def yardstick_rows(figs: dict[str, Any]) -> list[tuple[str, float | None, float | None]]:
    """(figure, milliseconds, goal in yardsticks) for the figures with a speed goal."""
    solve = figs["solve"].get(1000, {})
    rules = figs.get("solve_rules", {})
    table = figs["bots"].get("table", {})
    exhaustive = figs["bots"].get("exhaustive", {})
    cold = (figs.get("solve_command") or {}).get("cold_s")
    return [
        ("solve, 1,000 opponents, basic", solve.get("median_ms"), 0.40),
        ("solve, 1,000 opponents, 1-6", rules.get("1-6", {}).get("median_ms"), 1.35),
        ("solve, 1,000 opponents, 2-4", rules.get("2-4", {}).get("median_ms"), 1.35),
        ("exhaustive bot, one decision", exhaustive.get("median_ms"), 0.40),
        ("table bot, one hand a call", table.get("median_ms"), 0.05 / GOALS_MS_AT),
        ("table bot, per hand in a batch, one core", table.get("batch_one_core_ms_per_hand"), 0.01 / GOALS_MS_AT),
        ("solve command, first run (empty cache)", cold * 1e3 if cold else None, None),
    ]


def _f(x: float | None, spec: str, scale: float = 1.0, suffix: str = "") -> str:
    return "—" if x is None else f"{x * scale:{spec}}{suffix}"


def render_markdown(raw: dict[str, Any], figs: dict[str, Any], plot: bool) -> str:
    machine = raw.get("machine_info", {})
    cpu = machine.get("cpu", {})
    lines = [
        "# Benchmark report",
        "",
        f"Machine: {cpu.get('brand_raw') or machine.get('processor') or machine.get('machine')}, "
        f"{cpu.get('count', '?')} cores; Python {machine.get('python_version')}; numpy {_version('numpy')}, "
        f"numba {_version('numba')}. Run {raw.get('datetime', '')}, commit "
        f"{(raw.get('commit_info') or {}).get('id', 'unknown')}.",
        "",
        "## Row evaluation (5 cards, random rows)",
        "",
        "| evaluator | rows per second | ours is |",
        "|---|---|---|",
        f"| this project, one core | {_f(figs['evaluator']['one_core_per_second'], ',.0f', 1e-6, ' M')} | |",
        f"| this project, all cores | {_f(figs['evaluator']['all_cores_per_second'], ',.0f', 1e-6, ' M')} | |",
    ]
    for name, base in figs["evaluator"]["baselines"].items():
        lines.append(f"| {name} {base['version']} (Python loop) | {_f(base['per_second'], ',.2f', 1e-6, ' M')} | "
                     f"{_f(base['ratio'], ',.0f', 1, '×')} |")
    splits = figs["all_splits_ms_per_hand"]
    lines += ["", "## All 72,072 splits of a hand, evaluated and foul-checked (one core, 1,000 hands a call)", "",
              f"canonical scan {_f(splits['canonical'], '.3f', 1, ' ms')} per hand; "
              f"full scan {_f(splits['full'], '.3f', 1, ' ms')} per hand.", "",
              "## solve, per decision (default opponent model, warm, one core)", "",
              "| samples | median | deal | arrange opponents | score | EV standard error |", "|---|---|---|---|---|---|"]
    for samples, s in figs["solve"].items():
        lines.append(f"| {samples:,} | {s['median_ms']:.1f} ms | {s['deal_ms']:.1f} ms | {s['arrange_ms']:.1f} ms | "
                     f"{s['score_ms']:.1f} ms | {s['ev_se']:.3f} |")
    for rules, s in figs.get("solve_rules", {}).items():
        lines.append(f"| 1,000 under {rules} | {s['median_ms']:.1f} ms | {s['deal_ms']:.1f} ms | {s['arrange_ms']:.1f} ms | "
                     f"{s['score_ms']:.1f} ms | {s['ev_se']:.3f} |")
    lines += ["", "## Bots, per decision", "",
              "| bot | median | p95 | in a batch of 1,000, per hand | the same on one core |", "|---|---|---|---|---|"]
    for name, s in sorted(figs["bots"].items()):
        lines.append(f"| {name} | {_f(s.get('median_ms'), '.3f', 1, ' ms')} | {_f(s.get('p95_ms'), '.3f', 1, ' ms')} | "
                     f"{_f(s.get('batch_ms_per_hand'), '.4f', 1, ' ms') if 'batch_ms_per_hand' in s else ''} | "
                     f"{_f(s.get('batch_one_core_ms_per_hand'), '.4f', 1, ' ms') if 'batch_one_core_ms_per_hand' in s else ''} |")
    if figs["tournament_fields"]:
        lines += ["", "## Tournaments: 4-player fields of one bot, one worker", "",
                  "| field | deals per second | hands per second |", "|---|---|---|"]
        for name, s in sorted(figs["tournament_fields"].items()):
            lines.append(f"| {name} | {s['deals_per_second']:.1f} | {s['hands_per_second']:.1f} |")
    if figs.get("yardstick_ms"):
        stick = figs["yardstick_ms"]
        lines += ["", "## Against the yardstick", "",
                  f"The yardstick, numpy sorting 2 million random doubles, took {stick:.1f} ms in this run. A ratio "
                  "to it, measured in the same run, moves far less than milliseconds on a busy machine; it does not "
                  "carry over between machines whose sort and kernels differ in speed by different factors.", "",
                  "| figure | measured | yardsticks | goal, yardsticks |", "|---|---|---|---|"]
        for label, ms, goal in yardstick_rows(figs):
            lines.append(f"| {label} | {_f(ms, '.4g', 1, ' ms')} | {_f(ms / stick if ms is not None else None, '.4g')} | "
                         f"{_f(goal, '.4g')} |")
    if figs.get("protocol_decisions_per_second"):
        lines += ["", "## Protocol bots", "",
                  f"A bot in its own process that answers at once (tests/protocol/echo_bot.py): "
                  f"{figs['protocol_decisions_per_second']:,.0f} decisions per second on one worker, the "
                  "protocol's own cost (JSON both ways, the pipe, the checks)."]
    start = figs["startup"]
    if start:
        lines += ["", "## Start-up", "",
                  f"Kernels in a fresh process with an empty Numba cache: {start['cold_wall_s']:.1f} s wall "
                  f"({start['cold_first_calls_s']:.1f} s compiling); with a warm cache: {start['warm_wall_s']:.2f} s "
                  f"({start['warm_first_calls_s']:.2f} s loading)."]
    if figs["solve_command"]:
        lines.append(f"The `solve` command end to end: {figs['solve_command']['warm_s']:.2f} s warm, "
                     f"{figs['solve_command']['cold_s']:.1f} s on first run (compiling).")
    if plot:
        lines += ["", "![benchmarks](perf.png)"]
    return "\n".join(lines) + "\n"


def write_plot(figs: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    names = ["ours (1 core)"] + [f"{n}" for n in figs["evaluator"]["baselines"]]
    rates = [figs["evaluator"]["one_core_per_second"]] + [b["per_second"] for b in figs["evaluator"]["baselines"].values()]
    left.barh(names, [r / 1e6 for r in rates])
    left.set_xscale("log")
    left.set_xlabel("million 5-card rows per second (log)")
    left.set_title("evaluator throughput")
    bots = sorted(figs["bots"])
    right.barh(bots, [figs["bots"][b].get("median_ms", float("nan")) for b in bots])
    right.set_xscale("log")
    right.set_xlabel("ms per decision, median (log)")
    right.set_title("bot decision time")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(raw: dict[str, Any], out: Path) -> Path:
    figs = figures(raw)
    try:
        write_plot(figs, out / "perf.png")
        plot = True
    except ImportError:
        plot = False
    (out / "perf.json").write_text(json.dumps({"machine_info": raw.get("machine_info"), "datetime": raw.get("datetime"),
                                               "commit_info": raw.get("commit_info"), "figures": figs}, indent=1))
    path = out / "perf.md"
    path.write_text(render_markdown(raw, figs, plot), encoding="utf-8")
    return path
