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
* `plot_search_progress` — incumbent and bound against time of one fit, from its search trace
  (``solve_result_.trace``); takes a fitted estimator or a SolveResult and returns the Axes.
* `plot_branch_and_bound` — the tree of a toy branch-and-bound (`odtlib.teaching.branch_and_bound`), LP bound per
  node, pruned nodes marked.
* `plot_root_bounds` — the LP relaxation bound of weak and strong formulations against the integer optimum
  (`odtlib.teaching.root_bounds`).
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


#: settings that make an SVG small (text kept as text) and byte-for-byte reproducible (fixed element ids)
DETERMINISTIC_SVG = {"svg.fonttype": "none", "svg.hashsalt": "odtlib"}


def save_svg(fig, path: str | os.PathLike) -> Path:
    """Save ``fig`` as one SVG at ``path`` that redrawing the same data reproduces byte for byte: text stays text
    (no embedded glyphs), element ids come from a fixed salt and no date is written (used for the committed
    key figures, `odtlib.experiments.key_figures`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with plt.rc_context(DETERMINISTIC_SVG):
        fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    return path


def plot_search_progress(result_or_estimator, ax=None, title: str | None = None):
    """Incumbent and bound of one solve against time, as step lines, from its search trace; returns the Axes.

    ``result_or_estimator``: a fitted odtlib estimator (its ``solve_result_`` is used), a
    :class:`~odtlib.solvers.SolveResult`, or its ``to_dict()`` (as stored with experiment results). The time axis
    is the solver's clock (``time_limit`` counts on it); values are the model's objective, so a maximisation shows
    incumbents rising under bounds that fall; both lines run on to the end of the run (``solve_time``). When the
    solve proved optimality, a marker shows where the two met.
    See `odtlib.solvers.trace` for what each solver records (GLPK: the final point only).

    Raises ValueError when there is no solve result or its trace is empty (an infeasible model, a result not
    made by ``solve()``).
    """
    status, trace, solve_time = _status_and_trace(result_or_estimator)
    if not trace:
        raise ValueError("the search trace is empty: the solve found no incumbent and no bound (infeasible model?), "
                         "or the result was not made by odtlib.solvers.solve; nothing to plot")
    if solve_time > float(trace[-1][0]):   # the last values held until the run ended
        trace = [*trace, (solve_time, *trace[-1][1:])]
    times = np.array([float(point[0]) for point in trace])
    incumbents = np.array([np.nan if point[1] is None else float(point[1]) for point in trace])
    bounds = np.array([np.nan if point[2] is None else float(point[2]) for point in trace])
    _, ax = _axes(ax)
    ax.plot(times, incumbents, drawstyle="steps-post", marker=".", label="incumbent (best found)")
    ax.plot(times, bounds, drawstyle="steps-post", marker=".", label="bound (best proved)")
    if status == "optimal":
        proved = _proof_time(incumbents, bounds)
        ax.scatter([times[proved]], [incumbents[proved]], s=80, marker="*", color="black", zorder=3,
                   label=f"optimality proved ({times[proved]:.3g} s)")
    ax.set_xlabel("time since the solver started (s)")
    ax.set_ylabel("objective value")
    ax.set_xlim(left=0.0)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def _status_and_trace(result_or_estimator) -> tuple[str, list, float]:
    """(status, trace points, solve_time) of an estimator, a SolveResult or a SolveResult's dict."""
    result = result_or_estimator
    if hasattr(result, "fit") and hasattr(result, "get_params"):   # an estimator
        result = getattr(result, "solve_result_", None)
        if result is None:
            raise ValueError(f"{type(result_or_estimator).__name__} has no solve_result_ to plot: fit it first "
                             "(an estimator that runs no solver, such as SVMTreeClassifier, has none)")
    if isinstance(result, dict):
        return result.get("status", ""), list(result.get("trace") or []), float(result.get("solve_time") or 0.0)
    if not hasattr(result, "trace"):
        raise TypeError(f"expected a fitted estimator, a SolveResult or its dict, got {type(result).__name__}")
    return result.status, list(result.trace), float(result.solve_time)


def _proof_time(incumbents: np.ndarray, bounds: np.ndarray) -> int:
    """Index of the first point that has the final incumbent and bound (where the gap closed)."""
    same = (incumbents == incumbents[-1]) & (bounds == bounds[-1])
    return int(np.flatnonzero(same)[0])


#: colour of a branch-and-bound node by status (`odtlib.teaching`)
BNB_COLORS = {"branched": "white", "integral": "tab:green", "infeasible": "tab:grey",
              "pruned by bound": "tab:orange", "not explored (node limit)": "whitesmoke"}


def plot_branch_and_bound(result, ax=None, title: str | None = None):
    """The branch-and-bound tree of `odtlib.teaching.branch_and_bound`, with the LP bound in every node; returns
    the Axes.

    Nodes are coloured by what happened to them (`BNB_COLORS`): branched on, integral (a new incumbent), LP
    infeasible, pruned by bound (its LP value was no better than the incumbent of that moment), or not explored
    (node limit). Edges carry the branching decision; node labels are the solve order (#) and the LP bound.
    """
    nodes = list(result.nodes)
    if not nodes:
        raise ValueError("the branch-and-bound result has no nodes")
    positions = _bnb_layout(nodes)
    _, ax = _axes(ax, figsize=(max(6.0, 0.9 * len(positions)), 1.1 * (1 + max(n.depth for n in nodes))))
    for node in nodes:
        if node.parent is not None:
            (x0, y0), (x1, y1) = positions[node.parent], positions[node.id]
            ax.plot([x0, x1], [y0, y1], color="grey", lw=1, zorder=1)
            ax.annotate(node.decision, ((x0 + x1) / 2, (y0 + y1) / 2), ha="center", va="center", fontsize=7,
                        backgroundcolor="white", zorder=2)
    for node in nodes:
        x, y = positions[node.id]
        bound = "infeasible" if node.status == "infeasible" else "?" if node.bound is None else f"{node.bound:.4g}"
        ax.annotate(f"#{node.id}\n{bound}", (x, y), ha="center", va="center", fontsize=7, zorder=4,
                    bbox={"boxstyle": "round", "facecolor": BNB_COLORS.get(node.status, "white"),
                          "edgecolor": "black"})
    for status, color in BNB_COLORS.items():
        if any(node.status == status for node in nodes):
            ax.scatter([], [], s=60, color=color, edgecolor="black", label=status)
    xs, ys = zip(*positions.values())
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    ax.set_ylim(min(ys) - 0.6, 0.6)
    ax.set_axis_off()
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    optimum = "none found" if result.objective is None else f"{result.objective:.4g}"
    proved = "" if getattr(result, "finished", True) else " (node limit reached: not proved)"
    ax.set_title(title or f"branch-and-bound: {len(nodes)} nodes, best integer value {optimum}{proved}",
                 fontsize=9)
    return ax


def _bnb_layout(nodes) -> dict[int, tuple[float, float]]:
    """x, y of every node: leaves spaced one unit apart in depth-first order, parents centred over children."""
    children: dict[int, list[int]] = {node.id: [] for node in nodes}
    for node in nodes:
        if node.parent is not None:
            children[node.parent].append(node.id)
    depth = {node.id: node.depth for node in nodes}
    positions: dict[int, tuple[float, float]] = {}

    def place(node_id: int, next_leaf: float) -> float:
        kids = sorted(children[node_id])
        for kid in kids:
            next_leaf = place(kid, next_leaf)
        if kids:
            x = (positions[kids[0]][0] + positions[kids[-1]][0]) / 2
        else:
            x, next_leaf = next_leaf, next_leaf + 1
        positions[node_id] = (x, -float(depth[node_id]))
        return next_leaf

    for root in (node.id for node in nodes if node.parent is None):
        place(root, max((x for x, _ in positions.values()), default=-1.0) + 1)
    return positions


def plot_root_bounds(frame: pd.DataFrame, ax=None, by: str | None = None, title: str | None = None):
    """Root (LP relaxation) bound of each formulation against the integer optimum, as bars; returns the Axes.

    ``frame``: `odtlib.teaching.root_bounds` output (columns ``formulation``, ``lp_bound``, ``mip_objective``,
    ``mip_status``), optionally with a grouping column ``by`` (e.g. ``"depth"``) when several instances are shown.
    The black marks are the best integer value found per group (solid when some formulation proved it optimal,
    hollow otherwise). For a maximisation, a bar's height above the mark is what branching has to close:
    the weaker formulation's bar is the taller one.
    """
    _require(frame, "formulation", "lp_bound", "mip_objective", "mip_status", by)
    groups = [(None, frame)] if by is None else list(frame.groupby(by, sort=True))
    names = list(dict.fromkeys(frame["formulation"]))
    width = 0.8 / len(names)
    colors = dict(zip(names, sns.color_palette(n_colors=len(names))))
    _, ax = _axes(ax, figsize=(1.5 + 1.6 * len(groups), 3.5))
    for position, (_, group) in enumerate(groups):
        for offset, name in enumerate(names):
            row = group[group["formulation"] == name]
            if not row.empty:
                ax.bar(position - 0.4 + width * (offset + 0.5), row["lp_bound"].iloc[0], width=width * 0.9,
                       color=colors[name], label=f"{name}: LP bound" if position == 0 else None)
        best = group["mip_objective"].max()
        proved = (group["mip_status"] == "optimal").any()
        ax.plot([position - 0.45, position + 0.45], [best, best], color="black", lw=2,
                ls="-" if proved else "--", label=("integer optimum" if proved else "best integer found")
                if position == 0 else None)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["" if key is None else f"{by} = {key}" for key, _ in groups])
    low = min(frame["mip_objective"].min(), frame["lp_bound"].min())
    high = max(frame["lp_bound"].max(), frame["mip_objective"].max())
    ax.set_ylim(low - 0.25 * (high - low + 1), high + 0.1 * (high - low + 1))
    ax.set_ylabel("objective value")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if title:
        ax.set_title(title)
    return ax
