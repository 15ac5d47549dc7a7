"""The key figures: the figures behind the claims ledger, drawn from the committed stored results.

Each paper has one to two key figures, committed as ``figures/paper<NNN>/<name>.svg`` so that a reader of
the repository sees them without running anything. They are drawn from the ``full`` profile's stored runs
(``results/full/paper<NNN>/<experiment>.csv.gz``, read through `odtlib.experiments.claims.StoredResults`,
the same runs and the same selection of runs as the claims' compute functions) and rewritten only when asked:

* ``odtlib figures [--papers 001 004] [--results-dir PATH] [--output figures]`` (`write_key_figures`);
* `draw_key_figure` draws one without writing it (in a notebook, for instance).

A figure whose stored runs are still missing is written as a placeholder that says "no stored results yet"
and why, so the README's links never break and the placeholder disappears with the next ``odtlib figures``
after the runs are stored. The SVGs are deterministic (`odtlib.plotting.save_svg`): redrawing unchanged
results gives the same bytes, so regenerating them never dirties the tree by surprise.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from odtlib.experiments.claims import PAPERS, StoredResults
from odtlib.experiments.stored import CHECKOUT
from odtlib.plotting import method_palette, performance_profile, save_svg

#: where the committed key figures live: ``figures/`` of the checkout (in the README's links: `FIGURES_LINK`)
FIGURES_DIR = CHECKOUT / "figures"
FIGURES_LINK = "figures"
PLACEHOLDER = "no stored results yet"


class NotStoredYet(Exception):
    """Raised by a drawing function when the stored runs it needs are not there yet (the message says which)."""


@dataclass(frozen=True)
class KeyFigure:
    """One key figure: ``paper``, file stem ``name``, the stored ``experiment`` it reads, the claims it is
    behind, a one-line ``caption``; ``data(results) -> (frame, note)`` gathers the numbers it shows from the
    stored runs (raises `NotStoredYet`) and ``draw(frame, note) -> Figure`` draws them (``note``: how much of
    the full grid is stored)."""

    paper: str
    name: str
    experiment: str
    claims: tuple[str, ...]
    caption: str
    data: Callable[[StoredResults], tuple[pd.DataFrame, str]]
    draw: Callable[[pd.DataFrame, str], plt.Figure]

    def path(self, root: str | os.PathLike = FIGURES_DIR) -> Path:
        """``<root>/paper<NNN>/<name>.svg``."""
        return Path(root) / f"paper{self.paper}" / f"{self.name}.svg"


_REGISTRY: list[KeyFigure] = []


def key_figure(paper: str, name: str, experiment: str, claims: Iterable[str], caption: str,
               draw: Callable[[pd.DataFrame, str], plt.Figure]):
    """Register a data function (stored runs -> the figure's numbers) and its ``draw`` function as a key figure
    of ``paper`` (decorator)."""
    def register(data: Callable[[StoredResults], tuple[pd.DataFrame, str]]):
        _REGISTRY.append(KeyFigure(paper, name, experiment, tuple(claims), caption, data, draw))
        return data
    return register


def key_figures(papers: Iterable[str] | None = None) -> list[KeyFigure]:
    """The registered key figures (of ``papers`` only, if given), in paper order."""
    wanted = {str(p).zfill(3) for p in papers} if papers else set(PAPERS)
    return sorted((f for f in _REGISTRY if f.paper in wanted), key=lambda f: (f.paper, _REGISTRY.index(f)))


def draw_key_figure(figure: KeyFigure, results: StoredResults | None = None) -> plt.Figure:
    """Draw ``figure`` from ``results`` (default: the checkout's ``results/full``); a placeholder saying why
    when its stored runs are not there yet."""
    results = results if results is not None else StoredResults(figure.paper)
    try:
        if not results.has(figure.experiment):
            raise NotStoredYet(f"no stored runs of experiment '{figure.experiment}'")
        frame, note = figure.data(results)
    except NotStoredYet as why:
        return placeholder(figure, str(why))
    return figure.draw(frame, note)


def placeholder(figure: KeyFigure, reason: str) -> plt.Figure:
    """A small figure that names the key figure and says that its stored results are not there yet."""
    fig, ax = plt.subplots(figsize=(6.0, 1.6))
    ax.set_axis_off()
    ax.text(0.5, 0.62, f"Paper {figure.paper}: {figure.caption}", ha="center", va="center", fontsize=9,
            wrap=True)
    ax.text(0.5, 0.25, f"{PLACEHOLDER}: {reason}", ha="center", va="center", fontsize=9, color="0.4", wrap=True)
    return fig


def write_key_figures(papers: Iterable[str] | None = None, results_dir: str | os.PathLike | None = None,
                      root: str | os.PathLike | None = None) -> list[Path]:
    """(Re)write the key figures of ``papers`` as ``<root>/paper<NNN>/<name>.svg`` (default root: the checkout's
    ``figures/``) from the stored results in ``results_dir`` (default: the checkout's ``results/full``); returns
    the paths written."""
    root = FIGURES_DIR if root is None else root
    written = []
    for figure in key_figures(papers):
        fig = draw_key_figure(figure, StoredResults(figure.paper, results_dir))
        written.append(save_svg(fig, figure.path(root)))
        plt.close(fig)
    return written


def figure_links(paper: str, root: str = FIGURES_LINK) -> str:
    """Markdown links to a paper's key figures (``root`` relative to the README), for the claims summary."""
    return ", ".join(f"[{f.name}]({root}/paper{f.paper}/{f.name}.svg)" for f in key_figures([paper]))


# ------------------------------------------------------------------------------------------ drawing helpers
def _title(ax, title: str, note: str) -> None:
    """The figure's title with the stored runs' coverage below it."""
    ax.set_title(f"{title}\n{note}" if note else title, fontsize=9)


# ------------------------------------------------------------------------------------------------ paper 000
def draw_enhancement_times(times: pd.DataFrame, note: str) -> plt.Figure:
    """Bars of the solve time per dataset (index) with all enhancements and with none (columns "All",
    "Nothing"), each pair labelled with the ratio Nothing / All."""
    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    times[["All", "Nothing"]].plot.bar(ax=ax, color=["tab:blue", "tab:gray"], rot=0)
    for i, (all_s, nothing_s) in enumerate(zip(times["All"], times["Nothing"])):
        if np.isfinite(all_s) and np.isfinite(nothing_s) and all_s > 0:
            ax.annotate(f"{nothing_s / all_s:.1f}x", (i, max(all_s, nothing_s)), ha="center", va="bottom",
                        fontsize=8)
    ax.set_ylabel("solve time (s, HiGHS)")
    ax.set_xlabel("dataset (100 training rows, depth 2)")
    ax.legend(title="enhancements", fontsize=8)
    _title(ax, "Table 2: the enhancements' speed-up (paper at 200 rows: krkp 17x, bc 50x, ttt 59x)", note)
    fig.tight_layout()
    return fig


@key_figure("000", "enhancement_times", "runs", ["000-1"],
            "solve time of formulation (8) with all of Sec. 4.3's enhancements and with none (Table 2)",
            draw=draw_enhancement_times)
def enhancement_times(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Table 2's ablation runs of the full grid: solve time (s) per dataset and variant ('All', 'Nothing')."""
    from odtlib.experiments import paper000 as p000

    stored, total = p000.full_grid_runs(results, "ablation", lambda c: c["variant"] in ("All", "Nothing"))
    ok = stored[stored["status"] == "ok"] if len(stored) else stored
    if ok.empty:
        raise NotStoredYet(f"0 of {total} runs of Table 2's ablation stored")
    times = ok.assign(time_s=p000.solve_times(ok)).pivot_table(index="dataset", columns="variant", values="time_s")
    return times.reindex(columns=["All", "Nothing"]), f"{len(stored)} of {total} runs stored"


def draw_accuracy_vs_cart(gains: pd.DataFrame, note: str) -> plt.Figure:
    """Bars of the best optimal tree's accuracy gain over CART-D3 per dataset (index), one bar per column
    (without / with feature selection); a dataset without a result has no bar (not a bar of height 0)."""
    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    width = 0.8 / gains.shape[1]
    for i, (setting, color) in enumerate(zip(gains.columns, ["tab:blue", "tab:orange"])):
        known = gains[setting].notna().to_numpy()
        xs = np.arange(len(gains)) + (i - (gains.shape[1] - 1) / 2) * width
        ax.bar(xs[known], gains[setting][known], width=width, color=color, label=setting)
    ax.set_xticks(np.arange(len(gains)), gains.index, rotation=30)
    ax.axhline(0, color="0.3", linewidth=0.8)
    ax.set_ylabel("test accuracy gain over CART-D3 (points)")
    ax.legend(fontsize=8)
    _title(ax, "Tables 8-9: best optimal tree against CART of depth 3", note)
    fig.tight_layout()
    return fig


@key_figure("000", "accuracy_vs_cart", "runs", ["000-3", "000-4"],
            "best optimal tree's test accuracy minus CART-D3's per dataset (Tables 8-9)", draw=draw_accuracy_vs_cart)
def accuracy_vs_cart(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Tables 8-9: per public dataset, the best topology's mean test accuracy minus CART-D3's (points), without
    and with feature selection, as the claims 000-3 and 000-4 read them."""
    from odtlib.experiments import paper000 as p000

    gains, notes = {}, []
    for selection in (False, True):
        cells, coverage, _missing = p000.accuracy_cells(results, feature_selection=selection)
        gains["with feature selection" if selection else "no feature selection"] = p000.best_odt_gain(cells)
        notes.append(coverage.split(";")[0])
    frame = pd.DataFrame(gains)
    if frame.dropna(how="all").empty:
        raise NotStoredYet(f"no dataset has both an optimal tree and CART-D3 yet ({'; '.join(notes)})")
    return frame, "; ".join(notes)


# ------------------------------------------------------------------------------------------------ paper 001
TABLE2_METHODS = ("OCT", "BinOCT", "FlowOCT", "Benders")
EXACT = "exact optimum"


def draw_table2_accuracy(cells: pd.DataFrame, note: str) -> plt.Figure:
    """One column of markers per Table-2 cell (``dataset``, ``depth``): the paper's four methods and our exact
    optimum (black diamonds)."""
    labels = [f"{d} {int(depth)}" for d, depth in zip(cells["dataset"], cells["depth"])]
    x = np.arange(len(cells))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.32 * len(cells) + 1.5), 3.8))
    for method, marker in zip(TABLE2_METHODS, "v^<>"):
        ax.scatter(x, cells[method], marker=marker, s=18, label=f"{method} (paper)", alpha=0.8)
    ax.scatter(x, cells[EXACT], marker="D", s=26, color="black", label="exact optimum (ours)")
    ax.set_xticks(x, labels, rotation=70, fontsize=7, ha="right")
    ax.set_ylabel("test accuracy (%)")
    ax.legend(fontsize=7, ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.12), frameon=False)
    ax.set_title(f"Table 2, per dataset and depth; {note}", fontsize=8, pad=30)
    fig.tight_layout()
    return fig


@key_figure("001", "table2_accuracy", "exact_final", ["001-7", "001-8", "001-9", "001-10"],
            "test accuracy of an optimal tree beside Table 2's four methods", draw=draw_table2_accuracy)
def table2_accuracy(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Table 2's cells whose exact-optimum tuning fits and refits are all stored (as the claims read them): the
    paper's four columns and our mean test accuracy (%) of the exact optimum."""
    from odtlib.experiments import paper001 as p001

    cells, coverage = p001.exact_cells(results)
    if cells.empty:
        raise NotStoredYet(coverage)
    return cells[["dataset", "depth", *TABLE2_METHODS, EXACT]], coverage.split(";")[0]


# ------------------------------------------------------------------------------------------------ paper 002
def draw_fig4_time(times: pd.DataFrame, note: str) -> plt.Figure:
    """Grouped bars of our mean solve time per ``group`` (a depth, or "all") and ``method``, with the paper's
    mean (column ``paper``, NaN where it prints none) as a black tick on each bar."""
    methods = list(dict.fromkeys(times["method"]))
    groups = list(dict.fromkeys(times["group"]))
    palette = method_palette(methods)
    width = 0.8 / len(methods)
    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    for i, method in enumerate(methods):
        own = times[times["method"] == method].set_index("group").reindex(groups)
        xs = np.arange(len(groups)) + (i - (len(methods) - 1) / 2) * width
        ax.bar(xs, own["ours"], width=width, color=palette[method], label=method)
        for x, published in zip(xs, own["paper"]):
            if np.isfinite(published):
                ax.plot([x - width / 2, x + width / 2], [published] * 2, color="black", linewidth=1.5)
    ax.plot([], [], color="black", linewidth=1.5, label="paper (Gurobi, 600 s)")
    ax.set_xticks(np.arange(len(groups)), [f"depth {g}" if g != "all" else "all depths" for g in groups])
    ax.set_ylabel("mean solve time (s)")
    ax.legend(fontsize=7)
    _title(ax, "Fig. 4: ours on SCIP, unproved runs counted at the paper's 600 s", note)
    fig.tight_layout()
    return fig


@key_figure("002", "fig4_time", "direct", ["002-2", "002-3", "002-4"],
            "mean solve time of S-OCT with Benders cuts and OCT-H in the direct comparison (Fig. 4(a), 4(d))",
            draw=draw_fig4_time)
def fig4_time(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Fig. 4(a)/(d): per method of the claims and per depth (and over all depths), our mean solve time with
    unproved runs counted at the paper's 600 s (as the claims count them), and the paper's mean."""
    from odtlib.experiments import paper002 as p002
    from odtlib.experiments.reference import reference_table

    runs, _total, coverage = p002.stored_runs(results, "direct", lambda c: c["method"] in p002.CLAIM_METHODS)
    ok = runs[runs["status"] == "ok"] if len(runs) else runs
    if ok.empty:
        raise NotStoredYet(coverage)
    limit = p002.PROFILES["full"].time_limit
    frame = p002.direct_frame(ok, limit)
    frame = frame.assign(t=p002.time_at_paper_limit(frame), group=frame["depth"].astype(int).astype(str))
    ours = pd.concat([frame, frame.assign(group="all")]).groupby(["method", "group"], sort=False)["t"].mean()
    paper = reference_table("002", "text_numbers")
    paper = paper[paper["source"].isin(["Fig4a", "Fig4d"])].set_index(["method", "depth"])["mean"].astype(float)
    times = ours.rename("ours").reset_index()
    times["paper"] = [paper.get((m, g), np.nan) for m, g in zip(times["method"], times["group"])]
    order = {m: i for i, m in enumerate(p002.CLAIM_METHODS)}
    times = times.sort_values(["method", "group"], key=lambda c: c.map(order) if c.name == "method" else c)
    return times, f"{coverage.removeprefix('full run: ')}; {limit:g} s limit, one thread"


# ------------------------------------------------------------------------------------------------ paper 003
def draw_proved_instances(instances: pd.DataFrame, note: str) -> plt.Figure:
    """Instances proved optimal within t seconds (``solve_runtime``, ``solved``), one step line per ``method``."""
    return performance_profile(instances, time="solve_runtime", method="method", solved="solved",
                               title=f"Fig. 6: instances proved against time; {note}")


@key_figure("003", "proved_instances", "instances", ["003-1", "003-2", "003-3", "003-4"],
            "instances proved optimal against time, one line per method (Fig. 6)", draw=draw_proved_instances)
def proved_instances(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Fig. 6: the finished runs of the full grid's instances (method, solve time, proved or not)."""
    from odtlib.experiments import paper003 as p003

    instances = p003.stored_instances(results)
    if instances.empty:
        raise NotStoredYet("no stored run of the instances experiment")
    finished = instances[~instances["failed"]]
    limit = p003.PROFILES["full"].time_limit
    return finished[["method", "solve_runtime", "solved"]], f"{len(finished)} runs, SCIP, {limit:g} s limit"


def draw_eqp_sets(counts: pd.DataFrame, note: str) -> plt.Figure:
    """Horizontal bars of ``n_eqp_sets`` per ``dataset`` on a log scale, datasets without any in red."""
    counts = counts.sort_values("n_eqp_sets")
    y = np.arange(len(counts))
    fig, ax = plt.subplots(figsize=(6.0, max(3.0, 0.16 * len(counts) + 1.0)))
    colors = ["tab:red" if n == 0 else "tab:blue" for n in counts["n_eqp_sets"]]
    ax.barh(y, counts["n_eqp_sets"].clip(lower=0.5), color=colors)   # a zero shows as a short red stub
    ax.set_yticks(y, counts["dataset"], fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("EQP sets with |F*| <= 2 (log scale; red: none)")
    none = int((counts["n_eqp_sets"] == 0).sum())
    _title(ax, f"Sec. 6.3: {none} of {len(counts)} datasets have no EQP set (paper: 10 of 33)", note)
    fig.tight_layout()
    return fig


@key_figure("003", "eqp_sets", "eqp_sets", ["003-8"],
            "equivalent-point (EQP) sets of split-set size at most 2 per dataset (Sec. 6.3)", draw=draw_eqp_sets)
def eqp_sets(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Sec. 6.3: per dataset, the EQP sets with |F*| <= 2 summed over its encodings (as claim 003-8 counts)."""
    from odtlib.experiments import paper003 as p003

    frame = results.frame("eqp_sets")
    frame = frame[(frame["status"] == "ok") & (frame["max_split"].astype(int) == p003.EQP_MAX_SPLIT)]
    if frame.empty:
        raise NotStoredYet("no EQP count stored")
    counts = frame.groupby("dataset")["n_eqp_sets"].sum().astype(int).reset_index()
    return counts, f"{len(frame)} dataset-encodings counted"


# ------------------------------------------------------------------------------------------------ paper 004
def draw_s1o_vs_cart(gains: pd.DataFrame, note: str) -> plt.Figure:
    """One row per ``label``: our gain (``ours``, filled) and the paper's (``paper``, hollow), joined by a line."""
    gains = gains.sort_values("ours")
    y = np.arange(len(gains))
    fig, ax = plt.subplots(figsize=(6.0, 0.2 * len(gains) + 1.4))
    ax.hlines(y, gains["paper"], gains["ours"], color="0.8", linewidth=1)
    ax.scatter(gains["paper"], y, facecolors="none", edgecolors="tab:gray", s=22, label="paper")
    ax.scatter(gains["ours"], y, color="tab:blue", s=22, label="ours")
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set_yticks(y, gains["label"], fontsize=7)
    ax.set_xlabel("S1O minus CART, mean test accuracy (points)")
    ax.legend(fontsize=7, loc="lower right")
    _title(ax, f"Tables 1-5: {len(gains)} (dataset, depth) cells with both methods stored", note)
    fig.tight_layout()
    return fig


@key_figure("004", "s1o_vs_cart", "medium", ["004-1", "004-6"],
            "S1O's test accuracy gain over CART per dataset, ours beside the paper's (Tables 1-5)",
            draw=draw_s1o_vs_cart)
def s1o_vs_cart(results: StoredResults) -> tuple[pd.DataFrame, str]:
    """Tables 1-5: per dataset, S1O's split-mean test accuracy minus CART's (points), ours and the paper's, at
    depth 2 (Tables 2-5) and depth 3 (Table 1), on the datasets where both methods have a stored run."""
    from odtlib.experiments import paper004 as p004

    rows, notes = [], []
    for depth, tables in ((2, (2, 3, 4, 5)), (3, (1,))):
        means, datasets, coverage = p004.medium_means(results, (p004.S1O, p004.CART), depth, tables)
        paper = pd.concat([p004.paper_table(t) for t in tables])
        paper = paper.pivot_table(index="dataset", columns="method", values="test_acc")
        for dataset in datasets:
            rows.append({"label": f"{dataset} (d={depth})",
                         "ours": means.loc[dataset, p004.S1O] - means.loc[dataset, p004.CART],
                         "paper": paper.loc[dataset, p004.S1O] - paper.loc[dataset, p004.CART]})
        notes.append(f"depth {depth}: {coverage}")
    gains = pd.DataFrame(rows).dropna(subset=["ours"])
    if gains.empty:
        raise NotStoredYet("; ".join(notes))
    limit = p004.PROFILES["full"].time_limit
    return gains, "; ".join(notes) + f" (HiGHS, {limit:g} s per solve)"
