"""Tournament results: the versioned JSON document, terminal tables, report.md and plots.

Everything shown is computed from the document alone, so ``bench report results.json``
rebuilds the same report without replaying a hand.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.files import write_atomic
from bench.tournament import session_totals, summarise, timing_summary
from bench.versions import installed_version as _version
from solver.documents import json_ready
from solver.statistics import Z95

SCHEMA_VERSION = 2  # 2: bots with class and package; pairings_by_naturals; rows in reading order
READABLE_SCHEMAS = (1, 2)  # bench report recomputes the results of either from the records


def example_results() -> dict[str, Any]:
    """A small results.json that ships with the package (4 bots, 10 sessions), for the
    notebooks and for trying ``bench report``; made by
    ``bench tournament --bots greedy,heuristic,table,random --players 4 --sessions 10 --seed 7 --jobs 1``."""
    from importlib import resources

    return json.loads(resources.files("bench.data").joinpath("example_results.json").read_text(encoding="utf-8"))
PLOTS = ("crosstable.png", "means.png", "cumulative.png", "sessions.png")


def _rules_of(doc: dict[str, Any]):
    from solver.rules import Rules

    rules = doc.get("rules", "basic")
    return Rules.parse(rules) if isinstance(rules, str) else Rules.from_dict(rules)


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def unique_names(specs: list[str]) -> list[str]:
    """Display names: the spec, with ``#2``, ``#3`` for repeats.

    >>> unique_names(["greedy", "table", "greedy"])
    ['greedy', 'table', 'greedy#2']
    """
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


def build_document(
    *,
    command: str,
    specs: list[str],
    bot_specs: list[dict[str, Any]],
    players: int,
    sessions: int,
    entropy: int,
    records: list[dict[str, Any]],
    wall_seconds: float,
    backend: str,
    jobs: int,
    rules: Any = None,
    names: list[str] | None = None,
    deals_played: int | None = None,
) -> dict[str, Any]:
    """The results.json document of a tournament. ``names`` are the bots' names in the tables
    (their specs by default), ``deals_played`` the deals played in the ``wall_seconds`` timed
    (all of them by default; fewer in a resumed run, whose other deals came from its journal)."""
    names = unique_names(names if names is not None else specs)
    records = sorted(records, key=lambda r: r["deal"])
    seconds = [[[p["seconds"] for p in row] for row in r["plays"]] for r in records]
    clean = [r | {"plays": [[{k: v for k, v in p.items() if k != "seconds"} for p in row] for row in r["plays"]]}
             for r in records]
    from solver.rules import as_rules

    rules = as_rules(rules)
    summary = summarise(clean, names, players, rules)
    deals = len(records)
    timed = deals if deals_played is None else deals_played
    return {
        "schema_version": SCHEMA_VERSION,
        "command": command,
        "rules": rules.to_dict(),
        "bots": [{"name": n, "spec": s, "bot": b["name"], "params": b["params"], "class": b.get("class"),
                  "package": b.get("package"), "package_version": b.get("version"), "identity": b.get("identity")}
                 for n, s, b in zip(names, specs, bot_specs)],
        "players": players,
        "sessions": sessions,
        "hands_per_session": 8,
        "seed_entropy": entropy,
        "versions": {
            "chinese-poker-solver": _version("chinese-poker-solver"),
            "python": platform.python_version(),
            "numpy": _version("numpy"),
            "numba": _version("numba"),
            "joblib": _version("joblib"),
        },
        "git_commit": _git_commit(),
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count()},
        "results": summary,
        "timing": {
            "backend": backend,
            "jobs": jobs,
            "wall_seconds": wall_seconds,
            "deals_timed": timed,
            "deals_per_second": timed / wall_seconds if wall_seconds > 0 else None,
            "hands_per_second": timed * players / wall_seconds if wall_seconds > 0 else None,
            "hands_played_per_second": (summary["hands_played"] * timed / deals / wall_seconds
                                        if wall_seconds > 0 and deals else None),
            "decisions": timing_summary(records, names),
            "seconds": seconds,
        },
        "records": clean,
    }


def _shape_problem(value: Any, shape: Any, where: str) -> str | None:
    """What keeps ``value`` from having ``shape`` (a type, a tuple of types, a dict of shapes or
    a one-item list of a shape), or None."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return f"{where} is not a table"
        for key, inner in shape.items():
            if key not in value:
                return f"{where} has no {key!r}"
            problem = _shape_problem(value[key], inner, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(shape, list):
        if not isinstance(value, list):
            return f"{where} is not a list"
        for i, item in enumerate(value):
            problem = _shape_problem(item, shape[0], f"{where}[{i}]")
            if problem:
                return problem
        return None
    if not isinstance(value, shape) or (isinstance(value, bool) and shape in (int, (int, float))):
        return f"{where} is {type(value).__name__}, not {getattr(shape, '__name__', 'a number')}"
    return None


NUMBER = (int, float)
_PLAY = {"arrangement": str, "values": [int], "foul": bool}
_DOCUMENT = {
    "schema_version": int, "command": str, "rules": (str, dict), "players": int, "sessions": int,
    "seed_entropy": int, "bots": [{"name": str, "spec": str}],
    "versions": dict, "machine": {"platform": str}, "git_commit": (str, type(None)),
    "timing": {"backend": str, "jobs": int, "wall_seconds": NUMBER, "decisions": dict},
    "records": [{"deal": int, "plays": [[_PLAY]]}],
}


def document_problem(doc: Any) -> str | None:
    """What keeps ``doc`` from being a results.json that ``bench report`` can read, or None."""
    if not isinstance(doc, dict):
        return "it is not a table of results"
    if doc.get("schema_version") not in READABLE_SCHEMAS:
        versions = " or ".join(str(v) for v in READABLE_SCHEMAS)
        return f"its schema_version is {doc.get('schema_version')!r}, not {versions}"
    problem = _shape_problem(doc, _DOCUMENT, "results")
    if problem:
        return problem
    n_bots, players = len(doc["bots"]), doc["players"]
    if not 2 <= players <= 4 or not doc["records"] or n_bots < 1:
        return "it needs 2 to 4 players, at least one bot and at least one deal"
    for r in doc["records"]:
        if len(r["plays"]) != n_bots or any(len(row) != players for row in r["plays"]):
            return f"deal {r['deal']} does not hold one play per bot and seat"
        if any(len(p["values"]) != 3 for row in r["plays"] for p in row):
            return f"deal {r['deal']} has a play without three row values"
    names = [b["name"] for b in doc["bots"]]
    missing = [n for n in names if n not in doc["timing"]["decisions"]]
    if missing:
        return f"timing.decisions has no entry for bot {missing[0]!r}"
    return None


def refresh_results(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with its results computed again from its per-deal records."""
    names = [b["name"] for b in doc["bots"]]
    return doc | {"results": summarise(doc["records"], names, doc["players"], _rules_of(doc))}


# --- text -------------------------------------------------------------------------------------


def _pm(estimate: dict[str, Any], digits: int = 3) -> str:
    return f"{estimate['mean']:+.{digits}f} ± {estimate['se']:.{digits}f}"


def _ci(estimate: dict[str, Any]) -> str:
    low, high = estimate["ci95"]
    return f"[{low:+.3f}, {high:+.3f}]"


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    fmt = lambda r: "  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows]


def _names(doc: dict[str, Any]) -> list[str]:
    return [b["name"] for b in doc["bots"]]


def per_bot_table(doc: dict[str, Any], markdown: bool = False) -> list[str]:
    res = doc["results"]["bots"]
    timing = doc["timing"]["decisions"]
    order = sorted(_names(doc), key=lambda n: -res[n]["units_per_hand"]["mean"])
    header = ["bot", "units/hand ± se", "95% CI", "n deals", "sessions won", "front", "middle", "back",
              "fouls", "scoops", "ms/decision", "p95 ms"]
    rows = []
    for name in order:
        r = res[name]
        u = r["units_per_hand"]
        rows.append([
            name, _pm(u), _ci(u), f"{u['n']:,}", f"{100 * r['session_win_share']:.1f}%",
            *(f"{100 * r['row_win_rate'][row]:.1f}%" for row in ("front", "middle", "back")),
            f"{100 * r['foul_rate']:.1f}%", f"{100 * r['scoop_rate']:.1f}%",
            f"{timing[name]['median_ms']:.3f}", f"{timing[name]['p95_ms']:.3f}",
        ])  # fmt: skip
    return _table(header, rows, markdown)


def crosstable_lines(doc: dict[str, Any], markdown: bool = False) -> list[str]:
    names = _names(doc)
    cross = doc["results"]["crosstable"]
    rows = []
    for a in names:
        cells = [a]
        for b in names:
            if a == b or b not in cross[a]:
                cells.append("—")
            else:
                c = cross[a][b]
                cells.append(f"{_pm(c)}{' *' if c['significant'] else '  '}")
        rows.append(cells)
    return _table(["row vs column", *names], rows, markdown)


def same_arrangement_lines(doc: dict[str, Any]) -> list[str]:
    names = _names(doc)
    cross = doc["results"]["crosstable"]
    return [
        f"{a} / {b}: {100 * cross[a][b]['same_arrangement']:.1f}%"
        for i, a in enumerate(names) for b in names[i + 1:] if b in cross[a]
    ]  # fmt: skip


def headline(doc: dict[str, Any]) -> str:
    res = doc["results"]
    names = _names(doc)
    partial = doc.get("partial")
    mark = (f"PARTIAL ({partial['deals_played']:,} of {partial['deals_planned']:,} deals; the run was stopped) "
            if partial else "")
    return mark + (
        f"{' vs '.join(names)}: {doc['players']} players, {doc['sessions']:,} sessions of 8 hands "
        f"({res['deals']:,} deals, each replayed in {len(res['seatings'])} seatings), rules {_rules_of(doc).name}, "
        f"seed entropy {doc['seed_entropy']}"
    )


def variance_lines(doc: dict[str, Any]) -> list[str]:
    res = doc["results"]["bots"]
    parts = ", ".join(f"{n} {res[n]['variance_reduction']:.1f}×" for n in _names(doc))
    return [f"duplicate cut the variance of a deal's result by: {parts} (one seating alone against the average "
            "over every seating)"]


def speed_line(doc: dict[str, Any]) -> str:
    t = doc["timing"]
    deals = doc["results"]["deals"]
    timed = t.get("deals_timed", deals)
    if t.get("deals_per_second") is None:
        return f"{timed:,} deals played in {t['wall_seconds']:.1f} s on {t['backend']} with {t['jobs']} job(s)"
    what = f"{deals:,} deals" if timed == deals else \
        f"{timed:,} deals played in this part of a resumed run ({deals:,} in all)"
    return (f"{what} in {t['wall_seconds']:.1f} s on {t['backend']} with {t['jobs']} "
            f"job(s): {t['deals_per_second']:.1f} deals/s, {t['hands_per_second']:.0f} hands dealt and set/s, "
            f"{t['hands_played_per_second']:.0f} hands played/s over all seatings")


def render_terminal(doc: dict[str, Any]) -> str:
    lines = [headline(doc), ""]
    lines += per_bot_table(doc)
    lines += ["", "crosstable: row bot against column bot, units per hand ± se (* = 95% interval excludes 0)"]
    lines += crosstable_lines(doc)
    lines += ["", "same arrangement of the same hand: " + "; ".join(same_arrangement_lines(doc))]
    lines += variance_lines(doc)
    lines.append(speed_line(doc))
    return "\n".join(lines)


def render_markdown(doc: dict[str, Any], plots: bool) -> str:
    """report.md: the same tables, the plots, and how to read them."""
    lines = ["# Tournament report", "", headline(doc) + ".", "", f"Command: `{doc['command']}`", ""]
    lines += ["## Bots", ""] + per_bot_table(doc, markdown=True)
    lines += [
        "",
        "Units per hand are per hand played, averaged over every seating of a deal (duplicate), with the "
        "standard error over deals, its 95% interval and n, the number of deals. Sessions won: share of "
        "8-hand sessions finished first (ties share). Row columns: share of rows won against each opponent.",
        "",
        "## Crosstable",
        "",
        "Row bot against column bot, units per hand ± standard error; * marks a 95% interval that excludes 0.",
        "",
    ]
    lines += crosstable_lines(doc, markdown=True)
    lines += ["", "Same arrangement of the same hand: " + "; ".join(same_arrangement_lines(doc)) + ".", ""]
    lines += variance_lines(doc) + ["", speed_line(doc) + ".", ""]
    if plots:
        lines += ["## Plots", ""] + [f"![{p[:-4]}]({p})" for p in PLOTS] + [""]
    lines += ["## Run", "", f"- bots: {', '.join(b['spec'] for b in doc['bots'])}",
              *(f"- protocol bot {b['name']}: version {i.get('version') or 'none given'}, protocol {i.get('protocol')}, "
                f"file {i.get('file')}, sha256 {i.get('sha256')}"
                for b in doc["bots"] if isinstance(i := b.get("identity"), dict)),
              f"- versions: {', '.join(f'{k} {v}' for k, v in doc['versions'].items())}",
              f"- git commit: {doc['git_commit'] or 'unknown'}", f"- machine: {doc['machine']['platform']}, "
              f"{doc['machine']['cpus']} cpus", ""]
    return "\n".join(lines)


# --- plots ------------------------------------------------------------------------------------


def _save(fig, path: Path) -> Path:
    import io

    import matplotlib.pyplot as plt

    from bench.files import write_atomic

    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=110, format="png")
    plt.close(fig)
    write_atomic(path, image.getvalue())
    return path


def _crosstable_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt
    import numpy as np

    cross = doc["results"]["crosstable"]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 1.3 * len(names) + 1.5))
    grid = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if b in cross.get(a, {}):
                grid[i, j] = cross[a][b]["mean"]
    limit = np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 1.0
    image = ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit)
    for i in range(len(names)):
        for j in range(len(names)):
            if np.isfinite(grid[i, j]):
                c = cross[names[i]][names[j]]
                dark = abs(c["mean"]) > 0.6 * limit
                ax.text(j, i, f"{c['mean']:+.3f}\n±{Z95 * c['se']:.3f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_title("units per hand, row bot against column bot (±95%)")
    fig.colorbar(image, ax=ax)
    return fig


def _means_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt

    bots = doc["results"]["bots"]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.5))
    means = [bots[n]["units_per_hand"]["mean"] for n in names]
    errors = [Z95 * bots[n]["units_per_hand"]["se"] for n in names]
    ax.errorbar(means, range(len(names)), xerr=errors, fmt="o", capsize=4)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("units per hand (95% interval)")
    ax.set_title("mean result per bot")
    return fig


def _cumulative_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt
    import numpy as np

    from bench.tournament import seatings, table_scores

    seats = np.array(seatings(len(names), doc["players"]))
    seat_scores = table_scores(doc["records"], len(names), doc["players"], _rules_of(doc))[1].sum(axis=-1)
    fig, ax = plt.subplots(figsize=(7, 4))
    for index, name in enumerate(names):
        occupied = seats == index
        per_deal = (seat_scores * occupied).sum(axis=(1, 2)) / occupied.sum()
        ax.plot(np.arange(1, len(per_deal) + 1), np.cumsum(per_deal), label=name)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("deal")
    ax.set_ylabel("cumulative units (duplicate average)")
    ax.set_title("cumulative score")
    ax.legend()
    return fig


def _sessions_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt

    totals = session_totals(doc["records"], names, doc["players"], _rules_of(doc))
    fig, ax = plt.subplots(figsize=(1.5 * len(names) + 3, 4))
    if any(totals.values()):
        ax.boxplot([totals[n] for n in names])
        ax.set_xticks(range(1, len(names) + 1), names)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("session total (units over 8 hands)")
    ax.set_title("session totals")
    return fig


def write_plots(doc: dict[str, Any], out: Path) -> list[Path]:
    """The four PNG plots (``PLOTS``); raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    names = _names(doc)
    makers = {"crosstable.png": _crosstable_plot, "means.png": _means_plot, "cumulative.png": _cumulative_plot,
              "sessions.png": _sessions_plot}
    return [_save(makers[name](doc, names), out / name) for name in PLOTS]


def write_report(doc: dict[str, Any], out: Path) -> tuple[Path, bool]:
    """report.md (and the plots when matplotlib is installed) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    try:
        write_plots(doc, out)
        plots = True
    except ImportError:
        plots = False
        print("bench: matplotlib is not installed, so the report has no plots "
              "(from the project's folder: pip install '.[plots]')", file=sys.stderr)
    path = out / "report.md"
    write_atomic(path, render_markdown(doc, plots))
    return path, plots


def write_json(doc: dict[str, Any], path: Path) -> None:
    """results.json, written whole or not at all (``OSError`` when it cannot be)."""
    write_atomic(path, json.dumps(json_ready(doc, digits=6), indent=1, allow_nan=False) + "\n")
