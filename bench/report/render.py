"""A run's results for people: the terminal tables and report.md, from the results document alone."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from bench.records.documents import ResultsDocument, ResultsEstimate
from bench.records.schema import rules_of
from bench.report.plots import PLOTS, write_plots
from solver.files import make_folder, write_atomic
from solver.text import markdown as _markdown
from solver.text import markdown_code, show, terminal

# A figure of a results document is null where it is not finite (docs/json.md): shown as "—".
# A document made in memory (the tables printed at the end of a run) holds such a figure as
# nan or inf until it is written: shown as "—" too, so both print the same.


def _finite(value: float | None) -> float | None:
    """The figure, or None where it cannot be computed (null in a file, nan or inf in memory)."""
    return None if value is None or not math.isfinite(value) else value


def counted(number: int, noun: str) -> str:
    """A count and its noun, singular for one.

    Args:
        number: The count.
        noun: The noun in the singular; its plural adds an s.

    Returns:
        The count with thousands separated, then the noun.

    Examples:
        >>> counted(1, "session"), counted(1200, "deal")
        ('1 session', '1,200 deals')
    """
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _pm(estimate: ResultsEstimate, digits: int = 3) -> str:
    mean, se = _finite(estimate["mean"]), _finite(estimate["se"])
    return "—" if mean is None or se is None else f"{mean:+.{digits}f} ± {se:.{digits}f}"


def _ci(estimate: ResultsEstimate) -> str:
    low, high = (_finite(x) for x in estimate["ci95"])
    return "—" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def _percent(share: float | None) -> str:
    share = _finite(share)
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


def _faulted(doc: ResultsDocument) -> list[str]:
    """The bots with a fault (a decision that failed, scored as a foul under --on-fault foul)."""
    return [name for name in _names(doc) if doc["results"]["by_bot"][name]["fault_count"]]


def per_bot_table(doc: ResultsDocument, markdown: bool = False) -> list[str]:
    """The table of the bots, best first; a faults column beside the fouls when a bot has any."""
    res = doc["results"]["by_bot"]
    timing = doc["timing"]["decision_time_by_bot"]
    order = sorted(_names(doc), key=lambda n: -(_finite(res[n]["units_per_hand"]["mean"]) or 0.0))
    faults = bool(_faulted(doc))
    header = ["bot", "units/hand ± se", "95% CI", "n deals", "sessions won", "front", "middle", "back",
              "fouls", *(["faults"] if faults else []), "scoops", "ms/decision", "p95 ms"]
    rows = []
    for name in order:
        r = res[name]
        u = r["units_per_hand"]
        rows.append([
            name, _pm(u), _ci(u), f"{u['n']:,}", _percent(r["session_win_share"]),
            *(_percent(r["row_win_rate"][row]) for row in ("front", "middle", "back")),
            _percent(r["foul_rate"]), *([f"{r['fault_count']:,}"] if faults else []), _percent(r["scoop_rate"]),
            f"{timing[name]['median_ms']:.3f}", f"{timing[name]['p95_ms']:.3f}",
        ])  # fmt: skip
    return _table(header, rows, markdown)


def fault_lines(doc: ResultsDocument, markdown: bool = False) -> list[str]:
    """What each bot's faults were: how many of its plays, and where and why the first failed.

    Args:
        doc: A results document.
        markdown: report.md's lines: a bullet for each bot with a fault, and under it one for
            each of the first faults the document keeps (up to 3); otherwise one line for each
            bot, with its first fault.

    Returns:
        The lines, in the document's order of the bots: for the terminal as text, not yet
            escaped (``render_terminal`` does that); for report.md escaped as Markdown. None
            when no bot has a fault.
    """
    res = doc["results"]["by_bot"]
    plays = doc["results"]["deal_count"] * doc["player_count"]  # each bot sets every seat's hand of every deal
    where = lambda fault: f"deal {fault['deal']}, seat {fault['seat']}: {fault['error']}"  # noqa: E731
    lines = []
    for name in _faulted(doc):
        r, first = res[name], res[name]["first_faults"]
        count = f"{r['fault_count']:,} of {counted(plays, 'play')}, each scored as a foul"
        if not markdown:
            lines.append(f"faults: {name} {count}" + (f"; the first: {where(first[0])}" if first else ""))
            continue
        which = "" if not first else "; the first:" if len(first) == 1 else f"; the first {len(first)}:"
        lines.append(f"- {_markdown(name, start=True)}: {_markdown(count)}{which}")
        lines += [f"    - {_markdown(where(fault))}" for fault in first]
    return lines


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
                c, shown = cross[a][b], _pm(cross[a][b])
                cells.append(shown if shown == "—" else f"{shown}{' *' if c['significant'] else '  '}")
        rows.append(cells)
    return _table(["row vs column", *names], rows, markdown)


def field_lines(doc: ResultsDocument, markdown: bool = False) -> list[str]:
    """The field estimator's table (a run with ``--estimator field``).

    Args:
        doc: A results document.
        markdown: report.md's table rather than the terminal's.

    Returns:
        One row a bot, best first: its mean edge over the others (units a hand at the table)
            with its 95% interval, then its edge over each bot (against one opponent); no lines
            for a run without the field estimator.
    """
    field = doc.get("field")
    if field is None:
        return []
    names = _names(doc)
    order = sorted(names, key=lambda n: -(_finite(field["by_bot"][n]["mean"]) or 0.0))
    rows = []
    for a in order:
        cells = [a, _pm(field["by_bot"][a], 4), _ci(field["by_bot"][a])]
        for b in order:
            c = field["crosstable"][a].get(b)
            shown = "—" if c is None else _pm(c, 4)
            cells.append(shown if c is None or shown == "—" else f"{shown}{' *' if c['significant'] else '  '}")
        rows.append(cells)
    return _table(["bot", "over the others", "95% CI", *(f"vs {b}" for b in order)], rows, markdown)


def field_title(doc: ResultsDocument) -> str:
    """What the field estimator's table shows.

    Args:
        doc: A results document.

    Returns:
        One line: the field bot, its samples and the units; empty for a run without it.
    """
    field = doc.get("field")
    if field is None:
        return ""
    return (f"field estimator: every play of a hand against the same {counted(field['sample_count'], 'simulated opponent')} "
            f"set by {field['bot']}; over the others: units per hand at the table, vs: units per hand "
            "against one opponent, as in the crosstable; ± se over deals (* = 95% interval excludes 0)")


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
        f"{' vs '.join(names)}: {doc['player_count']} players, {counted(doc['session_count'], 'session')} of 8 hands "
        f"({counted(res['deal_count'], 'deal')}, each replayed in {counted(len(res['seatings']), 'seating')}), "
        f"rules {rules_of(doc).name}, seed entropy {doc['seed']}"
    )


def variance_lines(doc: ResultsDocument) -> list[str]:
    """How much duplicate cut the variance of each bot's result; where a bot's ratio is undefined
    (every deal came out the same for it, as for a bot that plays only itself, or one deal),
    a line that says why instead of "inf×"."""
    res = doc["results"]["by_bot"]
    ratios = {n: _finite(res[n]["variance_reduction"]) for n in _names(doc)}
    parts = ", ".join(f"{n} {r:.1f}×" for n, r in ratios.items() if r is not None)
    undefined = [n for n, r in ratios.items() if r is None]
    lines = []
    if parts:
        lines.append(f"duplicate cut the variance of a deal's result by: {parts} (one seating alone against the "
                     "average over every seating)")
    if undefined:
        why = ("one deal has no variance" if doc["results"]["deal_count"] < 2 else
               "every deal came out the same, so there was no variance to cut")
        which = f"ratio of {undefined[0]} is" if len(undefined) == 1 else f"ratios of {', '.join(undefined)} are"
        lines.append(f"the variance {which} undefined: {why}")
    return lines


def speed_line(doc: ResultsDocument) -> str:
    t = doc["timing"]
    deals = doc["results"]["deal_count"]
    timed = t["timed_deal_count"]
    jobs = counted(t["job_count"], "job")
    if t.get("deals_per_second") is None:
        return f"{counted(timed, 'deal')} played in {t['wall_seconds']:.1f} s on {t['backend']} with {jobs}"
    what = counted(deals, "deal") if timed == deals else \
        f"{counted(timed, 'deal')} played in this part of a resumed run ({deals:,} in all)"
    return (f"{what} in {t['wall_seconds']:.1f} s on {t['backend']} with {jobs}: "
            f"{t['deals_per_second']:.1f} deals/s, {t['hands_per_second']:.0f} hands dealt and set/s, "
            f"{t['hands_played_per_second']:.0f} hands played/s over all seatings")


def unproven_lines(doc: ResultsDocument) -> list[str]:
    """What the report prints that its records cannot prove: the timings always (they are what
    the run measured), and the faults of a file that does not say its fault policy (written
    before results.json stored it: a forged fault could not be told from a ``foul`` run's)."""
    faults = sum("fault" in play for record in doc["records"] for row in record["plays"] for play in row)
    lines = ["timings (ms/decision, p95 ms, speeds) are what the run measured: no replay can prove them"]
    if faults and "on_fault" not in doc:
        lines.append(f"faults unproven: the file does not say its run's fault policy (--on-fault), so its "
                     f"{counted(faults, 'faulted play')} may not be the run's; bench verify checks them against the "
                     "run's journal")
    return lines


def _cpus(count: int | None) -> str:
    return "cpus unknown" if count is None else counted(count, "cpu")


def _timeout_text(doc: ResultsDocument) -> str:
    limit = doc.get("decision_timeout")
    return "not recorded" if limit is None else f"{limit:g} s"


def render_terminal(doc: ResultsDocument) -> str:
    """The tables for the terminal; each line one line that only prints (``solver.text.terminal``)."""
    lines = [headline(doc), ""]
    lines += per_bot_table(doc)
    lines += fault_lines(doc)
    lines += ["", "crosstable: row bot against column bot, units per hand ± se (* = 95% interval excludes 0)"]
    lines += crosstable_lines(doc)
    if "field" in doc:
        lines += ["", field_title(doc)] + field_lines(doc)
    lines.append("")
    same = same_arrangement_lines(doc)
    if same:  # none for a bot alone
        lines.append("same arrangement of the same hand: " + "; ".join(same))
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
    ]
    faulted = fault_lines(doc, markdown=True)
    if faulted:
        lines += ["Faults: decisions that failed (the bot raised, answered badly, ran out of time or its process "
                  "died), each scored as a foul and counted in its fouls; each faulted play's record in results.json "
                  "holds its error.", ""] + faulted + [""]
    lines += [
        "## Crosstable",
        "",
        "Row bot against column bot, units per hand ± standard error; * marks a 95% interval that excludes 0.",
        "",
    ]
    lines += crosstable_lines(doc, markdown=True)
    if "field" in doc:
        lines += ["", "## Field estimator", "",
                  _markdown(field_title(doc)[0].upper() + field_title(doc)[1:]) + ". A bot's edge over another is "
                  "the difference of their plays' expected scores against the field's opponents, hand by hand, "
                  "so hands they set alike count exactly 0; \"over the others\" is a bot's edge over the bots "
                  "seated with it, summed over its opponents and averaged over the seatings, as the units per hand "
                  "are. bench report computes the figures again (docs/tournaments.md).", ""]
        lines += field_lines(doc, markdown=True)
    same = same_arrangement_lines(doc)
    lines += [""] + (["Same arrangement of the same hand: " + _markdown("; ".join(same)) + ".", ""] if same else [])
    for line in variance_lines(doc):
        lines += [_markdown(line), ""]
    lines += [_markdown(speed_line(doc)) + ".", ""]
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
              f"{_cpus(doc['machine']['cpu_count'])}", ""]
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
