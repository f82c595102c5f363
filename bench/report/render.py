"""A run's results for people: the terminal tables and report.md, from the results document alone."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.records.documents import ResultsDocument, ResultsEstimate
from bench.records.schema import rules_of
from bench.report.plots import PLOTS, write_plots
from solver.files import make_folder, write_atomic
from solver.text import markdown as _markdown
from solver.text import markdown_code, show, terminal

# A figure of a results document is null where it is not finite (docs/json.md): shown as "—".


def _pm(estimate: ResultsEstimate, digits: int = 3) -> str:
    mean, se = estimate["mean"], estimate["se"]
    return "—" if mean is None or se is None else f"{mean:+.{digits}f} ± {se:.{digits}f}"


def _ci(estimate: ResultsEstimate) -> str:
    low, high = estimate["ci95"]
    return "—" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.1f}%"


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    """A table for the terminal, or for Markdown; every cell one line that only shows text
    (``solver.text.terminal``, ``solver.text.markdown``)."""
    cell = _markdown if markdown else terminal
    header, rows = [cell(str(x)) for x in header], [[cell(str(x)) for x in r] for r in rows]
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    fmt = lambda r: "  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows]


def _names(doc: ResultsDocument) -> list[str]:
    return [b["name"] for b in doc["bots"]]


def per_bot_table(doc: ResultsDocument, markdown: bool = False) -> list[str]:
    res = doc["results"]["by_bot"]
    timing = doc["timing"]["decision_time_by_bot"]
    order = sorted(_names(doc), key=lambda n: -(res[n]["units_per_hand"]["mean"] or 0.0))
    header = ["bot", "units/hand ± se", "95% CI", "n deals", "sessions won", "front", "middle", "back",
              "fouls", "scoops", "ms/decision", "p95 ms"]
    rows = []
    for name in order:
        r = res[name]
        u = r["units_per_hand"]
        rows.append([
            name, _pm(u), _ci(u), f"{u['n']:,}", _percent(r["session_win_share"]),
            *(_percent(r["row_win_rate"][row]) for row in ("front", "middle", "back")),
            _percent(r["foul_rate"]), _percent(r["scoop_rate"]),
            f"{timing[name]['median_ms']:.3f}", f"{timing[name]['p95_ms']:.3f}",
        ])  # fmt: skip
    return _table(header, rows, markdown)


def crosstable_lines(doc: ResultsDocument, markdown: bool = False) -> list[str]:
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


def same_arrangement_lines(doc: ResultsDocument) -> list[str]:
    names = _names(doc)
    cross = doc["results"]["crosstable"]
    return [
        f"{a} / {b}: {_percent(cross[a][b].get('same_arrangement'))}"
        for i, a in enumerate(names) for b in names[i + 1:] if b in cross[a]
    ]  # fmt: skip


def headline(doc: ResultsDocument) -> str:
    res = doc["results"]
    names = _names(doc)
    partial = doc.get("partial")
    mark = (f"PARTIAL ({partial['played_deal_count']:,} of {partial['planned_deal_count']:,} deals; the run was stopped) "
            if partial else "")
    return mark + (
        f"{' vs '.join(names)}: {doc['player_count']} players, {doc['session_count']:,} sessions of 8 hands "
        f"({res['deal_count']:,} deals, each replayed in {len(res['seatings'])} seatings), rules {rules_of(doc).name}, "
        f"seed entropy {doc['seed']}"
    )


def variance_lines(doc: ResultsDocument) -> list[str]:
    res = doc["results"]["by_bot"]
    parts = ", ".join(f"{n} {res[n]['variance_reduction']:.1f}×" for n in _names(doc))
    return [f"duplicate cut the variance of a deal's result by: {parts} (one seating alone against the average "
            "over every seating)"]


def speed_line(doc: ResultsDocument) -> str:
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


def unproven_lines(doc: ResultsDocument) -> list[str]:
    """What the report prints that its records cannot prove: the timings always (they are what
    the run measured), and the faults of a file that does not say its fault policy (written
    before results.json stored it: a forged fault could not be told from a ``foul`` run's)."""
    faults = sum("fault" in play for record in doc["records"] for row in record["plays"] for play in row)
    lines = ["timings (ms/decision, p95 ms, speeds) are what the run measured: no replay can prove them"]
    if faults and "on_fault" not in doc:
        lines.append(f"faults unproven: the file does not say its run's fault policy (--on-fault), so its {faults:,} "
                     "faulted plays may not be the run's; bench verify checks them against the run's journal")
    return lines


def _timeout_text(doc: ResultsDocument) -> str:
    limit = doc.get("decision_timeout")
    return "not recorded" if limit is None else f"{limit:g} s"


def render_terminal(doc: ResultsDocument) -> str:
    """The tables for the terminal; each line one line that only prints (``solver.text.terminal``)."""
    lines = [headline(doc), ""]
    lines += per_bot_table(doc)
    lines += ["", "crosstable: row bot against column bot, units per hand ± se (* = 95% interval excludes 0)"]
    lines += crosstable_lines(doc)
    lines += ["", "same arrangement of the same hand: " + "; ".join(same_arrangement_lines(doc))]
    lines += variance_lines(doc)
    lines.append(speed_line(doc))
    lines += unproven_lines(doc)
    return "\n".join(terminal(line) for line in lines)


def render_markdown(doc: ResultsDocument, plots: bool) -> str:
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


def write_report(doc: ResultsDocument, out: Path) -> tuple[Path, bool]:
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
