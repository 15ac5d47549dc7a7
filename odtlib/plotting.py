"""Figures of the kind the papers show, from tidy DataFrames (one row per run), saved as PNG + SVG.

Every function takes a DataFrame (e.g. ``ResultStore.to_frame()``) and column names, draws on a new
or given matplotlib Axes and returns the Figure. Nothing here needs a display: save with
`save_figure` (works under the Agg backend, in notebooks and in headless batch runs).

* `performance_profile` — instances solved vs time, one line per method; optionally, to the right,
  instances whose final gap is below x (papers 001 Fig. 3a-b, 003 Figs. 6-12).
* `gap_vs_size` — optimality gap vs instance size (paper 001 Fig. 3c).
* `boxplot_by_depth` — a metric by depth and method (paper 002 Fig. 4).
* `accuracy_lines` — a metric across datasets/sizes, one line per method (paper 002 Fig. 5, 004 Figs. 1-2).
* `tpr_tnr_curve` — TNR reached for each TPR floor (paper 000 Table 14).
* `plot_tree` — a learned tree, with leaf class counts when known (delegates to `odtlib.Tree.plot`).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

FORMATS = ("png", "svg")


def save_figure(fig, paper: str, name: str, root: str | os.PathLike = "figures",
                formats: Sequence[str] = FORMATS, dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``<root>/<paper>/<name>.png`` and ``.svg``; returns the written paths."""
    if not name or any(sep in name for sep in ("/", "\\")):
        raise ValueError(f"name must be a plain file stem without folders, got {name!r}")
    folder = Path(root) / str(paper)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = folder / f"{name}.{fmt}"
        fig.savefig(path, format=fmt, dpi=dpi, bbox_inches="tight")
        paths.append(path)
    return paths


def _axes(ax, figsize=(6.0, 4.0)):
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax


def method_palette(methods) -> dict:
    """One fixed colour per method (sorted names), to pass as ``palette`` so a method keeps its colour
    in every figure of a notebook, even in panels where some methods are absent."""
    names = sorted({str(m) for m in methods})
    return dict(zip(names, sns.color_palette(n_colors=len(names))))


def _require(df: pd.DataFrame, *columns: str | None) -> None:
    missing = [c for c in columns if c is not None and c not in df.columns]
    if missing:
        raise KeyError(f"DataFrame has no column(s) {missing}; it has {list(df.columns)}")


def performance_profile(df: pd.DataFrame, time: str = "solve_runtime", method: str = "method",
                        solved: str = "solved", gap: str | None = None, time_limit: float | None = None,
                        log_time: bool = True, title: str | None = None, palette: dict | None = None):
    """Number of instances solved within t seconds, one step line per method.

    ``solved`` is a boolean column (e.g. ``df.solve_status == "optimal"``). With ``gap`` (relative gap,
    0-1, of every instance) a right panel shows how many instances end with a gap <= g, so the
    unsolved instances continue the curve past the time limit, as in paper 001 Fig. 3 / paper 003.
    ``palette`` maps method -> colour (see `method_palette`).
    """
    _require(df, time, method, solved, gap)
    palette = palette or method_palette(df[method])
    fig, axes = plt.subplots(1, 2 if gap else 1, figsize=(10 if gap else 6, 4), sharey=bool(gap),
                             squeeze=False)
    ax_time = axes[0, 0]
    positive = df.loc[df[time].astype(float) > 0, time].astype(float)
    start = (positive.min() / 2 if len(positive) else 1e-3) if log_time else 0.0
    for name, group in df.groupby(method, sort=True):
        times = np.sort(group.loc[group[solved].astype(bool), time].to_numpy(dtype=float))
        ax_time.step(np.r_[start, np.maximum(times, start)], np.arange(len(times) + 1), where="post",
                     label=str(name), color=palette.get(str(name)))
    ax_time.set_xlabel("time (s)")
    ax_time.set_ylabel("instances solved")
    ax_time.yaxis.set_major_locator(plt.matplotlib.ticker.MaxNLocator(integer=True))   # counts
    if log_time:
        ax_time.set_xscale("log")
    if time_limit:
        ax_time.axvline(time_limit, color="0.5", linestyle=":", linewidth=1, label=f"time limit ({time_limit:g} s)")
    ax_time.legend(title=method, fontsize="small")
    if gap:
        ax_gap = axes[0, 1]
        for name, group in df.groupby(method, sort=True):
            gaps = np.sort(group[gap].astype(float).fillna(1.0).clip(0, 1).to_numpy())
            ax_gap.step(np.r_[0.0, gaps], np.arange(len(gaps) + 1), where="post", label=str(name),
                        color=palette.get(str(name)))
        ax_gap.set_xlim(left=0.0)
        ax_gap.set_xlabel("final optimality gap")
        ax_gap.xaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
        ax_gap.set_ylabel("instances with gap <= x")
        if df[solved].astype(bool).all():
            ax_gap.text(0.5, 0.5, "every instance solved:\nno gap left", transform=ax_gap.transAxes,
                        ha="center", va="center", color="0.4")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def gap_vs_size(df: pd.DataFrame, size: str = "size", gap: str = "solve_gap", method: str = "method",
                ax=None, title: str | None = None, palette: dict | None = None):
    """Mean (and spread) of the final optimality gap against the instance size, one line per method."""
    _require(df, size, gap, method)
    fig, ax = _axes(ax)
    data = df.assign(**{gap: df[gap].astype(float).fillna(1.0) * 100, method: df[method].astype(str)})
    palette = palette or method_palette(data[method])
    sns.lineplot(data=data, x=size, y=gap, hue=method, hue_order=sorted(palette), palette=palette,
                 marker="o", errorbar=("pi", 100), ax=ax)
    ax.set_ylabel("optimality gap (%)")
    ax.set_xscale("log")
    if title:
        ax.set_title(title)
    return fig


def boxplot_by_depth(df: pd.DataFrame, value: str, depth: str = "depth", method: str | None = "method",
                     ax=None, log: bool = False, title: str | None = None):
    """Distribution of ``value`` (accuracy, time...) per depth, one box per method."""
    _require(df, value, depth, method)
    fig, ax = _axes(ax)
    sns.boxplot(data=df, x=depth, y=value, hue=method, ax=ax)
    if log:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    return fig


def accuracy_lines(df: pd.DataFrame, x: str, y: str = "test_accuracy", method: str = "method",
                   ax=None, title: str | None = None):
    """``y`` (mean over seeds, with a 95 % interval) against ``x`` (dataset, size, depth), per method."""
    _require(df, x, y, method)
    fig, ax = _axes(ax)
    sns.lineplot(data=df, x=x, y=y, hue=method, style=method, marker="o", ax=ax)
    if df[x].dtype == object or isinstance(df[x].dtype, pd.CategoricalDtype):
        ax.tick_params(axis="x", labelrotation=45)
    if title:
        ax.set_title(title)
    return fig


def tpr_tnr_curve(df: pd.DataFrame, tpr: str = "test_tpr", tnr: str = "test_tnr", hue: str | None = "depth",
                  ax=None, title: str | None = None):
    """TNR against TPR (e.g. per training-TPR floor), one line per ``hue`` value (paper 000 Sec. 5.8)."""
    _require(df, tpr, tnr, hue)
    fig, ax = _axes(ax)
    sns.lineplot(data=df, x=tpr, y=tnr, hue=hue, marker="o", sort=True, ax=ax)
    ax.set_xlabel("TPR (sensitivity)")
    ax.set_ylabel("TNR (specificity)")
    if title:
        ax.set_title(title)
    return fig


def plot_tree(tree, ax=None, **kwargs):
    """Draw a learned tree (an `odtlib.Tree` or its ``to_dict()``) via `Tree.plot`; returns the Figure.

    ``kwargs`` go to `Tree.plot`: ``groups`` (an encoder's ``groups_``) word the splits in terms of the
    original attributes, ``simplify=False`` keeps redundant splits; leaves show their class counts when the
    tree has them (`Tree.with_leaf_counts`).
    """
    if isinstance(tree, dict):
        from odtlib.tree import Tree

        tree = Tree.from_dict(tree)
    ax = tree.plot(ax=ax, **kwargs)
    return ax.figure
