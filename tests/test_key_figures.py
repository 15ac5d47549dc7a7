"""The key figures: committed under figures/ within the size budget, drawn from hand-made numbers and hand-made
stored runs, placeholders while nothing is stored, identical bytes when redrawn, and never written by a demo."""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from odtlib.cli import main  # noqa: E402
from odtlib.experiments import key_figures as kf  # noqa: E402
from odtlib.experiments import paper002 as p002  # noqa: E402
from odtlib.experiments import paper004 as p004  # noqa: E402
from odtlib.experiments.claims import StoredResults  # noqa: E402
from odtlib.experiments.store import config_key  # noqa: E402
from odtlib.experiments.stored import CHECKOUT, export_results, results_file  # noqa: E402

FIGURES = CHECKOUT / "figures"
BUDGET_BYTES = 2 * 1024 * 1024     # the "at most about 2 MB in all"


# --------------------------------------------------------------------------------------- the committed files
def test_every_key_figure_is_committed_and_all_fit_the_budget():
    figures = kf.key_figures()
    assert {f.paper for f in figures} == {"000", "001", "002", "003", "004"}
    assert all(1 <= sum(f.paper == p for f in figures) <= 3 for p in {f.paper for f in figures})
    for figure in figures:
        assert figure.path(FIGURES).is_file(), f"run: odtlib figures --papers {figure.paper}"
    total = sum(path.stat().st_size for path in FIGURES.rglob("*") if path.is_file())
    assert total <= BUDGET_BYTES
    for svg in FIGURES.glob("paper*/*.svg"):
        text = svg.read_text(encoding="utf-8")
        assert "<dc:date>" not in text          # no date in the metadata: redrawing gives the same bytes
        assert "<text" in text                  # text kept as text (svg.fonttype none), no glyph outlines


def test_the_readme_shows_key_figures_that_exist():
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert 3 <= len(shown) <= 4
    assert all((CHECKOUT / path).is_file() and path.startswith("figures/paper") for path in shown)


# ------------------------------------------------------------------------------- drawing hand-made numbers
def test_enhancement_times_draws_both_bars_and_the_ratio():
    times = pd.DataFrame({"All": [2.0, 4.0], "Nothing": [6.0, 5.0]}, index=["bc", "ttt"])
    fig = kf.draw_enhancement_times(times, "2 of 2 runs stored")
    ax = fig.axes[0]
    heights = sorted(round(p.get_height(), 6) for p in ax.patches)
    assert heights == [2.0, 4.0, 5.0, 6.0]
    # ratios Nothing / All: 6 / 2 = 3.0 and 5 / 4 = 1.25, printed to one decimal
    assert sorted(t.get_text() for t in ax.texts) == ["1.2x", "3.0x"]


def test_accuracy_vs_cart_draws_one_bar_per_dataset_and_setting():
    gains = pd.DataFrame({"no feature selection": [2.5, -1.0], "with feature selection": [4.0, np.nan]},
                         index=["bc", "krkp"])
    ax = kf.draw_accuracy_vs_cart(gains, "").axes[0]
    assert sorted(p.get_height() for p in ax.patches) == [-1.0, 2.5, 4.0]   # krkp has no bar with selection


def test_table2_accuracy_puts_ours_beside_the_papers_columns():
    cells = pd.DataFrame({"dataset": ["monk3", "monk1"], "depth": [2, 3], "OCT": [92.3, 70.0],
                          "BinOCT": [92.3, 80.0], "FlowOCT": [92.3, 81.0], "Benders": [92.3, 82.0],
                          "exact optimum": [95.0, 83.5]})
    ax = kf.draw_table2_accuracy(cells, "2 of 32 cells").axes[0]
    ours = ax.collections[-1].get_offsets()
    assert ours.tolist() == [[0.0, 95.0], [1.0, 83.5]]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["monk3 2", "monk1 3"]


def test_fig4_time_draws_a_tick_for_every_published_mean():
    times = pd.DataFrame({"method": ["A", "A", "B", "B"], "group": ["2", "all", "2", "all"],
                          "ours": [10.0, 20.0, 30.0, 40.0], "paper": [12.0, np.nan, 25.0, 35.0]})
    ax = kf.draw_fig4_time(times, "").axes[0]
    assert sorted(p.get_height() for p in ax.patches) == [10.0, 20.0, 30.0, 40.0]
    ticks = [line for line in ax.lines if len(line.get_ydata())]
    assert sorted(line.get_ydata()[0] for line in ticks) == [12.0, 25.0, 35.0]   # three published means


def test_proved_instances_counts_the_proved_runs_per_method():
    instances = pd.DataFrame({"method": ["A", "A", "A", "B"], "solve_runtime": [1.0, 5.0, 30.0, 2.0],
                              "solved": [True, True, False, True]})
    ax = kf.draw_proved_instances(instances, "").axes[0]
    final = {line.get_label(): line.get_ydata()[-1] for line in ax.lines if line.get_label() in ("A", "B")}
    assert final == {"A": 2, "B": 1}          # A proves 2 of its 3 runs, B its one


def test_eqp_sets_marks_the_datasets_without_any_in_red():
    counts = pd.DataFrame({"dataset": ["iris", "wine", "monk3"], "n_eqp_sets": [0, 12, 39]})
    ax = kf.draw_eqp_sets(counts, "3 counted").axes[0]
    red = matplotlib.colors.to_rgba("tab:red")
    assert [p.get_facecolor() == red for p in ax.patches] == [True, False, False]   # sorted: iris first
    assert "1 of 3 datasets" in ax.get_title()


def test_s1o_vs_cart_sorts_by_our_gain():
    gains = pd.DataFrame({"label": ["Iris (d=2)", "Wine (d=2)"], "ours": [5.0, -1.0], "paper": [6.2, 3.0]})
    ax = kf.draw_s1o_vs_cart(gains, "").axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Wine (d=2)", "Iris (d=2)"]


# ----------------------------------------------------------------------------- gathering hand-made stored runs
def _record(config: dict, metrics: dict, runtime: float | None = None) -> dict:
    return {"key": config_key(config), "status": "ok", "config": config, "metrics": metrics,
            "solve_result": None if runtime is None else {"runtime": runtime, "status": "ok"}}


@pytest.fixture
def tiny_results(tmp_path) -> Path:
    """Stored runs of three experiments: paper 002, Iris depth 2, SOCT-benders-last-1 proved in 10 s and OCT-H
    stopped at 120 s; paper 003, EQP counts of two datasets (monk3: 39 + 0 in two encodings, iris: 0); paper 004,
    Iris depth 2 split 0: S1O 95 %, CART 90 %."""
    direct = {c["method"]: c for c in p002.full_configs("direct")
              if c["dataset"] == "Iris" and c["depth"] == 2 and c["method"] in ("SOCT-benders-last-1", "OCT-H")}
    export_results([
        _record(direct["SOCT-benders-last-1"], {"incumbent": 150.0, "bound": 150.0, "proved": True,
                                                 "relative_gap": 0.0, "in_sample_accuracy": 1.0,
                                                 "no_incumbent": False}, runtime=10.0),
        _record(direct["OCT-H"], {"incumbent": 140.0, "bound": 150.0, "proved": False, "relative_gap": 0.07,
                                  "in_sample_accuracy": 0.93, "no_incumbent": False}, runtime=120.0),
    ], results_file(tmp_path, "002", "direct"))
    eqp = [{"check": "eqp_sets", "dataset": d, "encoding": e, "max_split": 2} for d, e in
           (("monk3", "onehot"), ("monk3", "QB-5"), ("iris", "QB-5"))]
    export_results([_record(c, {"n_eqp_sets": n}) for c, n in zip(eqp, (39, 0, 0))],
                   results_file(tmp_path, "003", "eqp_sets"))
    medium = {c["method"]: c for c in p004.medium_grid(p004.get_profile("full"))
              if c["dataset"] == "Iris" and c["depth"] == 2 and c["split"] == 0 and c["method"] in ("S1O", "CART")}
    export_results([_record(medium["S1O"], {"test_acc": 95.0}), _record(medium["CART"], {"test_acc": 90.0})],
                   results_file(tmp_path, "004", "medium"))
    return tmp_path


def _figure(paper: str, name: str) -> kf.KeyFigure:
    return next(f for f in kf.key_figures([paper]) if f.name == name)


def test_fig4_data_counts_unproved_runs_at_600_s(tiny_results):
    times, note = _figure("002", "fig4_time").data(StoredResults("002", tiny_results))
    ours = times.set_index(["method", "group"])
    assert ours.loc[("SOCT-benders-last-1", "2"), "ours"] == 10.0
    assert ours.loc[("OCT-H", "2"), "ours"] == 600.0          # stopped at our 120 s: counted at the paper's 600 s
    assert ours.loc[("OCT-H", "all"), "ours"] == 600.0
    assert ours.loc[("SOCT-benders-last-1", "2"), "paper"] == 97.35    # Fig. 4(a), depth 2
    assert ours.loc[("OCT-H", "all"), "paper"] == 215.45               # Fig. 4(d)
    assert "2 of" in note


def test_eqp_data_sums_the_encodings(tiny_results):
    counts, _note = _figure("003", "eqp_sets").data(StoredResults("003", tiny_results))
    assert dict(zip(counts["dataset"], counts["n_eqp_sets"])) == {"iris": 0, "monk3": 39}


def test_s1o_data_takes_the_gain_beside_the_papers(tiny_results):
    gains, _note = _figure("004", "s1o_vs_cart").data(StoredResults("004", tiny_results))
    assert gains["label"].tolist() == ["Iris (d=2)"]
    assert gains["ours"].iloc[0] == pytest.approx(5.0)       # 95 - 90
    assert gains["paper"].iloc[0] == pytest.approx(6.2)      # Table 2, Iris: S1O 98.6, CART 92.4


def test_placeholders_while_nothing_is_stored_and_identical_bytes_when_redrawn(tiny_results, tmp_path):
    first = kf.write_key_figures(results_dir=tiny_results, root=tmp_path / "a")
    again = kf.write_key_figures(results_dir=tiny_results, root=tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in first] == [p.relative_to(tmp_path / "b") for p in again]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, again))
    placeholders = {p.stem for p in first if kf.PLACEHOLDER in p.read_text(encoding="utf-8")}
    # papers 000 and 001 have nothing stored here, nor paper 003's instances
    assert placeholders == {"enhancement_times", "accuracy_vs_cart", "table2_accuracy", "proved_instances"}


def test_cli_rewrites_only_the_papers_asked(tiny_results, tmp_path, capsys):
    assert main(["figures", "--papers", "003", "--results-dir", str(tiny_results),
                 "--output", str(tmp_path / "figs")]) == 0
    assert sorted(p.name for p in (tmp_path / "figs").rglob("*.svg")) == ["eqp_sets.svg", "proved_instances.svg"]
    assert "eqp_sets.svg" in capsys.readouterr().out


# --------------------------------------------------------------------------------------- the demo's path
def test_a_notebook_report_writes_its_figures_into_the_output_not_into_figures(tmp_path):
    import matplotlib.pyplot as plt

    from odtlib.experiments import ReportWriter

    before = sorted((p, p.stat().st_mtime_ns) for p in FIGURES.rglob("*"))
    report = ReportWriter(tmp_path / "out", paper="001", title="demo")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    png = report.figure("table2_accuracy", fig)
    assert png.is_relative_to(tmp_path / "out")
    assert sorted((p, p.stat().st_mtime_ns) for p in FIGURES.rglob("*")) == before


@pytest.mark.parametrize("update", [False, True])
def test_reproduce_redraws_the_papers_key_figures_only_when_asked(tmp_path, monkeypatch, update):
    from odtlib.experiments import batch
    from odtlib.experiments.batch import NotebookRun

    def fake_reproduce(papers, **kwargs):       # the notebooks themselves are tested elsewhere
        return [NotebookRun(paper, tmp_path / f"{paper}.ipynb", tmp_path / f"{paper}.out.ipynb", "ok", 0.1)
                for paper in papers]

    drawn = []
    monkeypatch.setattr(batch, "reproduce", fake_reproduce)
    monkeypatch.setattr(kf, "write_key_figures", lambda papers, results_dir=None: drawn.append(list(papers)) or [])
    argv = ["reproduce", "--papers", "002", "tutorial_mip_trees", "--profile", "full", "--output", str(tmp_path)]
    assert main(argv + (["--update-figures"] if update else [])) == 0
    assert drawn == ([["002"]] if update else [])        # the teaching notebook has no key figures
