"""The plots of a run's report (PNG, with matplotlib, an optional dependency: ``pip install '.[plots]'``)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bench.records.deals import seatings
from bench.records.documents import ResultsDocument
from bench.records.schema import rules_of
from bench.report.summary import records_of, session_totals, table_scores
from solver.files import write_atomic
from solver.statistics import Z95
from solver.text import plot_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure  # an optional dependency, imported where a plot is drawn

PLOTS = ("crosstable.png", "means.png", "cumulative.png", "sessions.png")


def _save(fig: Figure, path: Path) -> Path:
    import matplotlib.pyplot as plt  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=110, format="png")
    plt.close(fig)
    write_atomic(path, image.getvalue())
    return path


def _number(value: float | None) -> float:
    """A figure of the document as a number to draw: a null (a figure that is not finite,
    as results.json writes it) as NaN, which is not drawn."""
    return float("nan") if value is None else value


def _labels(names: list[str]) -> list[str]:
    """Bot names as plot labels (``solver.text.plot_label``)."""
    return [plot_label(name) for name in names]


def _crosstable_plot(doc: ResultsDocument, names: list[str]) -> Figure:
    import matplotlib.pyplot as plt  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    cross = doc["results"]["crosstable"]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 1.3 * len(names) + 1.5))
    grid = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if b in cross.get(a, {}):
                grid[i, j] = _number(cross[a][b]["mean"])
    limit = np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 1.0
    image = ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit)
    for i in range(len(names)):
        for j in range(len(names)):
            if np.isfinite(grid[i, j]):
                c = cross[names[i]][names[j]]
                dark = abs(grid[i, j]) > 0.6 * limit
                ax.text(j, i, f"{grid[i, j]:+.3f}\n±{Z95 * _number(c['se']):.3f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    ax.set_xticks(range(len(names)), _labels(names), rotation=30, ha="right")
    ax.set_yticks(range(len(names)), _labels(names))
    ax.set_title("units per hand, row bot against column bot (±95%)")
    fig.colorbar(image, ax=ax)
    return fig


def _means_plot(doc: ResultsDocument, names: list[str]) -> Figure:
    import matplotlib.pyplot as plt  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    bots = doc["results"]["by_bot"]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.5))
    means = [_number(bots[n]["units_per_hand"]["mean"]) for n in names]
    errors = [Z95 * _number(bots[n]["units_per_hand"]["se"]) for n in names]
    ax.errorbar(means, range(len(names)), xerr=errors, fmt="o", capsize=4)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(names)), _labels(names))
    ax.set_xlabel("units per hand (95% interval)")
    ax.set_title("mean result per bot")
    return fig


def _cumulative_plot(doc: ResultsDocument, names: list[str]) -> Figure:
    import matplotlib.pyplot as plt  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    seats = np.array(seatings(len(names), doc["player_count"]))
    seat_scores = table_scores(records_of(doc), len(names), doc["player_count"], rules_of(doc)).scores.sum(axis=-1)
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


def _sessions_plot(doc: ResultsDocument, names: list[str]) -> Figure:
    import matplotlib.pyplot as plt  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    totals = session_totals(records_of(doc), names, doc["player_count"], rules_of(doc))
    fig, ax = plt.subplots(figsize=(1.5 * len(names) + 3, 4))
    if any(totals.values()):
        ax.boxplot([totals[n] for n in names])
        ax.set_xticks(range(1, len(names) + 1), _labels(names))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("session total (units over 8 hands)")
    ax.set_title("session totals")
    return fig


def write_plots(doc: ResultsDocument, out: Path) -> list[Path]:
    """The four PNG plots (``PLOTS``); raises ImportError without matplotlib."""
    import matplotlib  # noqa: PLC0415  (optional, the plots extra, and heavy: loaded only to draw)

    matplotlib.use("Agg")
    names = [b["name"] for b in doc["bots"]]
    makers = {"crosstable.png": _crosstable_plot, "means.png": _means_plot, "cumulative.png": _cumulative_plot,
              "sessions.png": _sessions_plot}
    return [_save(makers[name](doc, names), out / name) for name in PLOTS]
