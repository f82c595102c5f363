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

from bench.tournament import session_totals, summarise, timing_summary
from bench.versions import installed_version as _version
from bots.identity import seat_names
from solver.documents import json_ready
from solver.files import make_folder, write_atomic
from solver.statistics import Z95
from solver.text import markdown as _markdown
from solver.text import markdown_code, plot_label, show, terminal

SCHEMA_VERSION = 3  # 3: document, counts named as counts, seed, arrangements as rows, maps named by key
DOCUMENT = "results"


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


def arrangement_rows(text: str) -> dict[str, str] | None:
    """A play's arrangement as the documents hold it: its rows (None for a failed decision).

    >>> arrangement_rows("5S 5D 2H / 7H 7C 6H 6C 9H / KS KD TS TC JD")["middle"]
    '7H 7C 6H 6C 9H'
    >>> arrangement_rows("fault") is None
    True
    """
    if text == "fault":
        return None
    front, middle, back = text.split(" / ")
    return {"front": front, "middle": middle, "back": back}


def arrangement_text(rows: dict[str, str] | None) -> str:
    """The rows of a play as one line, front / middle / back (``"fault"`` for None)."""
    return "fault" if rows is None else f"{rows['front']} / {rows['middle']} / {rows['back']}"


def records_out(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records as a document holds them: each play's arrangement as its rows."""
    return [r | {"plays": [[p | {"arrangement": arrangement_rows(p["arrangement"])} for p in row]
                           for row in r["plays"]]} for r in records]


def records_in(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records as the tournament code takes them (the inverse of :func:`records_out`)."""
    return [r | {"plays": [[p | {"arrangement": arrangement_text(p["arrangement"])} for p in row]
                           for row in r["plays"]]} for r in records]


def results_section(summary: dict[str, Any]) -> dict[str, Any]:
    """``bench.tournament.summarise`` in the document's words: counts named as counts, the
    per-bot tables keyed by bot name under ``by_bot``."""
    def bot(r: dict[str, Any]) -> dict[str, Any]:
        rest = {k: v for k, v in r.items() if k not in ("faults", "pairings_by_naturals")}
        return rest | {"natural_pairing_count": r["pairings_by_naturals"], "fault_count": r["faults"]["count"],
                       "first_faults": r["faults"]["first"]}

    return {"deal_count": summary["deals"], "complete_session_count": summary["sessions"],
            "seatings": summary["seatings"], "played_hand_count": summary["hands_played"],
            "zero_sum": summary["zero_sum"], "by_bot": {n: bot(r) for n, r in summary["bots"].items()},
            "crosstable": summary["crosstable"]}


def _bot_entries(names: list[str], specs: list[str], bot_specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": n, "spec": s, "bot": b["name"], "params": b["params"], "class": b.get("class"),
             "package": b.get("package"), "package_version": b.get("version"), "identity": b.get("identity")}
            | {key: b[key] for key in ("sha256_by_file", "replayable") if key in b}
            for n, s, b in zip(names, specs, bot_specs)]


def _provenance() -> dict[str, Any]:
    """The software and machine a run was played with."""
    return {
        "version_by_package": {
            "chinese-poker-solver": _version("chinese-poker-solver"),
            "python": platform.python_version(),
            "numpy": _version("numpy"),
            "numba": _version("numba"),
            "joblib": _version("joblib"),
        },
        "git_commit": _git_commit(),
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "cpu_count": os.cpu_count()},
    }


def _timing(records: list[dict[str, Any]], names: list[str], players: int, played_hands: int, *, backend: str,
            jobs: int, wall_seconds: float, timed: int) -> dict[str, Any]:
    """How long the run took: speeds over the ``timed`` deals, and each bot's decision times."""
    deals = len(records)
    per_second = (lambda n: n / wall_seconds) if wall_seconds > 0 else (lambda n: None)
    return {
        "backend": backend,
        "job_count": jobs,
        "wall_seconds": wall_seconds,
        "timed_deal_count": timed,
        "deals_per_second": per_second(timed),
        "hands_per_second": per_second(timed * players),
        "hands_played_per_second": per_second(played_hands * timed / deals) if deals else None,
        "decision_time_by_bot": {name: {"median_ms": t["median_ms"], "p95_ms": t["p95_ms"],
                                        "decision_count": t["decisions"]}
                                 for name, t in timing_summary(records, names).items()},
        "seconds": [[[p["seconds"] for p in row] for row in r["plays"]] for r in records],
    }


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
    on_fault: str | None = None,
    decision_timeout: float | None = None,
) -> dict[str, Any]:
    """The results.json document of a tournament. ``names`` are the bots' names in the tables
    (their specs by default), told apart by ``bots.identity.seat_names`` when two claim one,
    ``deals_played`` the deals played in the ``wall_seconds`` timed
    (all of them by default; fewer in a resumed run, whose other deals came from its journal).
    ``on_fault`` and ``decision_timeout`` are the run's, as its journal's header gives them:
    the fault policy says which faults its records can hold (``bench.records``)."""
    from solver.rules import as_rules

    names = seat_names(names if names is not None else specs)
    records = sorted(records, key=lambda r: r["deal"])
    clean = [r | {"plays": [[{k: v for k, v in p.items() if k != "seconds"} for p in row] for row in r["plays"]]}
             for r in records]
    rules = as_rules(rules)
    summary = summarise(clean, names, players, rules)
    timed = len(records) if deals_played is None else deals_played
    return {
        "schema_version": SCHEMA_VERSION,
        "document": DOCUMENT,
        "command": command,
        "rules": rules.to_dict(),
        "bots": _bot_entries(names, specs, bot_specs),
        "player_count": players,
        "session_count": sessions,
        "hands_per_session": 8,
        "seed": entropy,
        **({"on_fault": on_fault} if on_fault is not None else {}),
        **({"decision_timeout": decision_timeout} if decision_timeout is not None else {}),
        **_provenance(),
        "results": results_section(summary),
        "timing": _timing(records, names, players, summary["hands_played"], backend=backend, jobs=jobs,
                          wall_seconds=wall_seconds, timed=timed),
        "records": records_out(clean),
    }


def records_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A results document's records as the tournament code takes them."""
    return records_in(doc["records"])


def refresh_results(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with its results computed again from its per-deal records."""
    names = [b["name"] for b in doc["bots"]]
    return doc | {"results": results_section(summarise(records_of(doc), names, doc["player_count"], _rules_of(doc)))}


# --- text -------------------------------------------------------------------------------------


def _pm(estimate: dict[str, Any], digits: int = 3) -> str:
    return f"{estimate['mean']:+.{digits}f} ± {estimate['se']:.{digits}f}"


def _ci(estimate: dict[str, Any]) -> str:
    low, high = estimate["ci95"]
    return f"[{low:+.3f}, {high:+.3f}]"


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    """A table for the terminal, or for Markdown; every cell one line that only shows text
    (:func:`solver.text.terminal`, :func:`solver.text.markdown`)."""
    cell = _markdown if markdown else terminal
    header, rows = [cell(str(x)) for x in header], [[cell(str(x)) for x in r] for r in rows]
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    fmt = lambda r: "  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows]


def _names(doc: dict[str, Any]) -> list[str]:
    return [b["name"] for b in doc["bots"]]


def per_bot_table(doc: dict[str, Any], markdown: bool = False) -> list[str]:
    res = doc["results"]["by_bot"]
    timing = doc["timing"]["decision_time_by_bot"]
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
    mark = (f"PARTIAL ({partial['played_deal_count']:,} of {partial['planned_deal_count']:,} deals; the run was stopped) "
            if partial else "")
    return mark + (
        f"{' vs '.join(names)}: {doc['player_count']} players, {doc['session_count']:,} sessions of 8 hands "
        f"({res['deal_count']:,} deals, each replayed in {len(res['seatings'])} seatings), rules {_rules_of(doc).name}, "
        f"seed entropy {doc['seed']}"
    )


def variance_lines(doc: dict[str, Any]) -> list[str]:
    res = doc["results"]["by_bot"]
    parts = ", ".join(f"{n} {res[n]['variance_reduction']:.1f}×" for n in _names(doc))
    return [f"duplicate cut the variance of a deal's result by: {parts} (one seating alone against the average "
            "over every seating)"]


def speed_line(doc: dict[str, Any]) -> str:
    t = doc["timing"]
    deals = doc["results"]["deal_count"]
    timed = t["timed_deal_count"]
    if t.get("deals_per_second") is None:
        return f"{timed:,} deals played in {t['wall_seconds']:.1f} s on {t['backend']} with {t['job_count']} job(s)"
    what = f"{deals:,} deals" if timed == deals else \
        f"{timed:,} deals played in this part of a resumed run ({deals:,} in all)"
    return (f"{what} in {t['wall_seconds']:.1f} s on {t['backend']} with {t['job_count']} "
            f"job(s): {t['deals_per_second']:.1f} deals/s, {t['hands_per_second']:.0f} hands dealt and set/s, "
            f"{t['hands_played_per_second']:.0f} hands played/s over all seatings")


def unproven_lines(doc: dict[str, Any]) -> list[str]:
    """What the report prints that its records cannot prove: the timings always (they are what
    the run measured), and the faults of a file that does not say its fault policy (written
    before results.json stored it: a forged fault could not be told from a ``foul`` run's)."""
    faults = sum("fault" in play for record in doc["records"] for row in record["plays"] for play in row)
    lines = ["timings (ms/decision, p95 ms, speeds) are what the run measured: no replay can prove them"]
    if faults and "on_fault" not in doc:
        lines.append(f"faults unproven: the file does not say its run's fault policy (--on-fault), so its {faults:,} "
                     "faulted plays may not be the run's; bench verify checks them against the run's journal")
    return lines


def _timeout_text(doc: dict[str, Any]) -> str:
    limit = doc.get("decision_timeout")
    return "not recorded" if limit is None else f"{limit:g} s"


def render_terminal(doc: dict[str, Any]) -> str:
    """The tables for the terminal; each line one line that only prints (:func:`solver.text.terminal`)."""
    lines = [headline(doc), ""]
    lines += per_bot_table(doc)
    lines += ["", "crosstable: row bot against column bot, units per hand ± se (* = 95% interval excludes 0)"]
    lines += crosstable_lines(doc)
    lines += ["", "same arrangement of the same hand: " + "; ".join(same_arrangement_lines(doc))]
    lines += variance_lines(doc)
    lines.append(speed_line(doc))
    lines += unproven_lines(doc)
    return "\n".join(terminal(line) for line in lines)


def render_markdown(doc: dict[str, Any], plots: bool) -> str:
    """report.md: the same tables, the plots, and how to read them."""
    lines = ["# Tournament report", "", _markdown(headline(doc), start=True) + ".", "",
             f"Command: {markdown_code(doc['command'])}", ""]
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
    lines += ["", "Same arrangement of the same hand: " + _markdown("; ".join(same_arrangement_lines(doc))) + ".", ""]
    lines += [_markdown(line) for line in variance_lines(doc)] + ["", _markdown(speed_line(doc)) + ".", ""]
    lines += [_markdown(line[0].upper() + line[1:]) + "." for line in unproven_lines(doc)] + [""]
    if plots:
        lines += ["## Plots", ""] + [f"![{p[:-4]}]({p})" for p in PLOTS] + [""]
    m = _markdown
    lines += ["## Run", "", f"- bots: {m(', '.join(b['spec'] for b in doc['bots']))}",
              *(f"- protocol bot {m(b['name'])}: version {m(str(i.get('version') or 'none given'))}, "
                f"protocol {m(str(i.get('protocol')))}, file {m(str(i.get('file')))}, sha256 {m(str(i.get('sha256')))}"
                for b in doc["bots"] if isinstance(i := b.get("identity"), dict)),
              f"- versions: {m(', '.join(f'{k} {v}' for k, v in doc['version_by_package'].items()))}",
              f"- fault policy: {m(str(doc.get('on_fault', 'not recorded')))}; decision timeout: "
              f"{_timeout_text(doc)}",
              f"- git commit: {m(str(doc['git_commit'] or 'unknown'))}", f"- machine: {m(str(doc['machine']['platform']))}, "
              f"{m(str(doc['machine']['cpu_count']))} cpus", ""]
    return "\n".join(lines)


# --- plots ------------------------------------------------------------------------------------


def _save(fig, path: Path) -> Path:
    import io

    import matplotlib.pyplot as plt

    from solver.files import write_atomic

    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=110, format="png")
    plt.close(fig)
    write_atomic(path, image.getvalue())
    return path


def _labels(names: list[str]) -> list[str]:
    """Bot names as plot labels (:func:`solver.text.plot_label`)."""
    return [plot_label(name) for name in names]


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
    ax.set_xticks(range(len(names)), _labels(names), rotation=30, ha="right")
    ax.set_yticks(range(len(names)), _labels(names))
    ax.set_title("units per hand, row bot against column bot (±95%)")
    fig.colorbar(image, ax=ax)
    return fig


def _means_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt

    bots = doc["results"]["by_bot"]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.5))
    means = [bots[n]["units_per_hand"]["mean"] for n in names]
    errors = [Z95 * bots[n]["units_per_hand"]["se"] for n in names]
    ax.errorbar(means, range(len(names)), xerr=errors, fmt="o", capsize=4)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(names)), _labels(names))
    ax.set_xlabel("units per hand (95% interval)")
    ax.set_title("mean result per bot")
    return fig


def _cumulative_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt
    import numpy as np

    from bench.tournament import seatings, table_scores

    seats = np.array(seatings(len(names), doc["player_count"]))
    seat_scores = table_scores(records_of(doc), len(names), doc["player_count"], _rules_of(doc))[1].sum(axis=-1)
    fig, ax = plt.subplots(figsize=(7, 4))
    for index, name in enumerate(names):
        occupied = seats == index
        per_deal = (seat_scores * occupied).sum(axis=(1, 2)) / occupied.sum()
        ax.plot(np.arange(1, len(per_deal) + 1), np.cumsum(per_deal), label=plot_label(name))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("deal")
    ax.set_ylabel("cumulative units (duplicate average)")
    ax.set_title("cumulative score")
    ax.legend()
    return fig


def _sessions_plot(doc: dict[str, Any], names: list[str]):
    import matplotlib.pyplot as plt

    totals = session_totals(records_of(doc), names, doc["player_count"], _rules_of(doc))
    fig, ax = plt.subplots(figsize=(1.5 * len(names) + 3, 4))
    if any(totals.values()):
        ax.boxplot([totals[n] for n in names])
        ax.set_xticks(range(1, len(names) + 1), _labels(names))
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
    make_folder(out)
    try:
        write_plots(doc, out)
        plots = True
    except ImportError:
        plots = False
        show("bench: matplotlib is not installed, so the report has no plots "
             "(from the project's folder: pip install '.[plots]')", sys.stderr)
    path = out / "report.md"
    write_atomic(path, render_markdown(doc, plots))
    return path, plots


def write_json(doc: dict[str, Any], path: Path) -> None:
    """results.json, written whole or not at all (``OSError`` when it cannot be)."""
    write_atomic(path, json.dumps(json_ready(doc, digits=6), indent=1, allow_nan=False) + "\n")
