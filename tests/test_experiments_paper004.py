"""Paper 004's protocol helpers: the paper's tables under our dataset names, the 75/25 splits, the printed
data-selection parameters, the baselines (Fair and BinOCT reach the univariate optimum of a brute force),
the grids of the profiles and the tables built from run records."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import brute_force_tree
from paths import data_mirror

from odtlib.data.papers import list_paper_datasets
from odtlib.experiments import paper004 as p004

needs_mirror = pytest.mark.skipif(not data_mirror().is_dir(), reason="no UCI mirror (ODTLIB_DATA_MIRROR)")


# ------------------------------------------------------------------------------------- the paper's tables
def test_tables_use_our_dataset_names_and_the_printed_order():
    assert p004.table_datasets(3)[:2] == ["Banknote-authentication", "Echocardiogram"]   # printed "Banknote-authen"
    assert p004.paper_table(3)["printed"].iloc[0] == "Banknote-authen"
    every = {d for t in range(1, 9) for d in p004.table_datasets(t)}
    assert every == set(list_paper_datasets("004"))
    assert p004.table_methods(5) == ["S1O", "CART", "BinOCT", "OCT-H", "Fair"]
    table7 = p004.paper_table(7).set_index(["dataset", "method"])
    assert table7.loc[("Avila", "OCT-H"), "paper_reason"].startswith("N/A")
    assert table7.loc[("Avila", "CART"), "paper_reason"] == ""


def test_selection_parameters_are_the_printed_ones():
    assert p004.selection_params(7, "skin-segmentation") == {
        "selected_data_pct": 0.42, "epsilon": 0.03, "alpha1": 1000.0, "alpha2": 0.1, "epsilon_prime": 0.0,
        "beta1": 0.2, "beta2": 0.05}
    assert p004.selection_params(8, "HTRU")["alpha1"] == 100000.0
    assert p004.selection_params(6, "Wall-following-robot-2")["epsilon"] == 0.0008
    with pytest.raises(KeyError, match="no data-selection parameters for 'Iris'"):
        p004.selection_params(7, "Iris")


def test_split_is_a_stratified_75_25_partition_fixed_by_its_number():
    y = np.repeat(["a", "b", "c"], [40, 24, 16])
    train, test = p004.split(y, 0)
    assert len(test) == 20 and sorted(np.concatenate([train, test])) == list(range(80))
    assert [int(np.sum(y[test] == k)) for k in "abc"] == [10, 6, 4]
    np.testing.assert_array_equal(p004.split(y, 0)[1], test)
    assert not np.array_equal(p004.split(y, 1)[1], test)


# ----------------------------------------------------------------------------------------- the baselines
def _all_threshold_columns(X: np.ndarray) -> np.ndarray:
    """[x_j >= v] for every feature and every distinct value above its smallest: any univariate split."""
    return np.column_stack([X[:, j] >= v for j in range(X.shape[1]) for v in np.unique(X[:, j])[1:]]).astype(int)


@pytest.mark.parametrize("method", ["Fair", "BinOCT"])
@pytest.mark.parametrize("seed", [0, 1])
def test_fair_and_binoct_reach_the_univariate_optimum(method, seed):
    # Fair is UnivariateOCT (module docstring); BinOCT sees only the class-change thresholds, which lose
    # nothing: both must reach the brute force over every threshold of every feature.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(18, 3)) / 4
    y = (X[:, 0] + X[:, 1] * rng.random(18) > 0.6).astype(int) + (X[:, 2] > 0.7)
    model = p004.make_model(method, 2, time_limit=60).fit(X, y)
    assert model.solve_result_.status == "optimal"
    assert int((model.predict(X) == y).sum()) == brute_force_tree(_all_threshold_columns(X), y, 2)[1]


def test_make_model_runs_the_papers_setup():
    cart = p004.make_model("CART", 3)
    assert cart.max_depth == 3 and cart.get_params()["min_samples_leaf"] == 1          # scikit-learn defaults
    octh = p004.make_model("OCT-H", 2, time_limit=9)
    assert (octh.depth, octh.max_splits, octh.ccp_alpha, octh.warm_start, octh.time_limit) == (2, None, 0.0, True, 9)
    with pytest.raises(ValueError, match="method must be one of"):
        p004.make_model("OCT", 2)
    s1o_ds = p004.make_model("S1O-DS", 2, params={"warm_start": "svm", "beta1": 0.3, "epsilon": 0.02})
    assert s1o_ds.estimator.warm_start == "svm"               # the MIP's parameters go to SVM1ODT,
    assert (s1o_ds.estimator.epsilon, s1o_ds.estimator.depth) == (0.02, 2)
    assert (s1o_ds.selector.beta1, s1o_ds.selector.depth) == (0.3, 2)    # the selection's to LPDataSelector


def test_tune_selection_keeps_the_grid_point_best_on_all_held_out_rows(monkeypatch):
    # a stand-in S1O-DS whose epsilon decides its rule: 0.1 predicts its training majority, 0.2 the rule x > 0.6
    class Rule:
        def __init__(self, params):
            self.params = params

        def fit(self, X, y):
            self.majority = np.bincount(y).argmax()
            return self

        def predict(self, X):
            return np.full(len(X), self.majority) if self.params["epsilon"] == 0.1 else (X[:, 0] > 0.6).astype(int)

    monkeypatch.setattr(p004, "SELECTION_GRID", ({"epsilon": 0.1}, {"epsilon": 0.2}))
    monkeypatch.setattr(p004, "make_model", lambda method, depth, solver, time_limit, params: Rule(params))
    X = np.linspace(0, 1, 30)[:, None]
    y = (X[:, 0] > 0.6).astype(int)                  # 12 ones, 18 zeros: each stratified third has 4 and 6
    best, scores = p004.tune_selection(X, y, 2, {"beta1": 0.2}, rows=None)
    assert best == {"beta1": 0.2, "epsilon": 0.2}
    assert scores == pytest.approx([0.6, 1.0])


@needs_mirror
def test_subset_split_datasets_are_those_with_many_level_categorical_attributes():
    names = p004.subset_split_datasets()
    assert {"Monks-1", "Balance-scale", "Heart-disease"} <= set(names)
    assert not {"Iris", "Congress", "Wine"} & set(names)


# -------------------------------------------------------------------------------------------- the grids
def test_paper_profile_runs_every_available_dataset_of_the_tables():
    paper = p004.get_profile("paper")
    medium = pd.DataFrame(list(p004.medium_grid(paper)))
    cells = set(zip(medium["dataset"], medium["depth"]))
    expected = {(d, p004.TABLE_DEPTH[t]) for t in p004.MEDIUM_TABLES for d in p004.table_datasets(t)}
    assert cells == expected - {("Spectf-heart", 2)}                        # not in the mirror
    assert set(medium.loc[medium["method"] == "BinOCT", "dataset"]) == set(p004.table_datasets(5))
    assert medium["tune"].all() and (medium["time_limit"] == 900).all()
    assert sorted(medium["split"].unique()) == list(range(5))
    assert len(medium) == paper.n_medium
    selection = pd.DataFrame(list(p004.selection_grid(paper)))
    assert set(selection.loc[selection["table"] == 6, "method"]) == {"S1O-DS", "CART", "OCT-H", "Fair"}
    assert set(selection.loc[selection["table"] == 8, "method"]) == {"S1O-DS", "CART", "OCT-H"}
    assert (selection["time_limit"] == 4 * 3600).all() and selection["rows"].isna().all()
    assert p004.get_profile("quick", time_limit=7).selection_time_limit == 7
    with pytest.raises(ValueError, match="profile must be one of"):
        p004.get_profile("huge")


def test_quick_profile_is_small():
    quick = p004.get_profile("quick")
    assert quick.n_medium == 4 * 4 and not quick.tune
    assert [(c["dataset"], c["method"]) for c in p004.selection_grid(quick)] == [
        ("skin-segmentation", "S1O-DS"), ("skin-segmentation", "CART")]


# ------------------------------------------------------------------------------------------- the tables
def _records() -> pd.DataFrame:
    rows = [("Iris", 2, "S1O", s, "ok", 98.0, 96.0 + s, 1.0, True, np.nan) for s in range(2)]
    rows += [("Iris", 2, "CART", s, "ok", 96.0, 92.0, 0.0, None, np.nan) for s in range(2)]
    rows += [("Iris", 2, "OCT-H", 0, "ok", 99.0, 90.0, 5.0, False, np.nan),
             ("Iris", 2, "OCT-H", 1, "failed", np.nan, np.nan, np.nan, None, np.nan)]
    rows += [("Congress", 2, "S1O", 0, "ok", 98.0, 90.0, 1.0, True, np.nan),
             ("Congress", 2, "CART", 0, "ok", 96.0, 94.0, 0.0, None, np.nan),
             ("Congress", 2, "OCT-H", 0, "ok", np.nan, np.nan, np.nan, None, "model too large")]
    return pd.DataFrame(rows, columns=["dataset", "depth", "method", "split", "status", "train_acc", "test_acc",
                                       "fit_time", "proved", "no_result"])


def test_summary_means_splits_and_says_why_a_cell_is_missing():
    table = p004.summary(_records()).set_index(["dataset", "method"])
    assert table.loc[("Iris", "S1O"), "test_acc"] == 96.5 and table.loc[("Iris", "S1O"), "n_splits"] == 2
    assert table.loc[("Iris", "OCT-H"), ["n_splits", "n_failed", "n_unproved"]].tolist() == [1, 1, 1]
    assert "failed" in table.loc[("Iris", "OCT-H"), "reason"]
    assert table.loc[("Congress", "OCT-H"), "reason"] == "no tree found (model too large)"
    assert table.loc[("Iris", "CART"), "reason"] == ""


def test_compare_table_puts_ours_beside_table2_with_verdicts():
    ours = p004.summary(_records())
    paper = p004.compare_table(ours, 2, "test_acc", p004.get_profile("paper")).set_index(["dataset", "method"])
    assert paper.loc[("Iris", "S1O"), "paper"] == 98.6 and paper.loc[("Iris", "S1O"), "ours"] == 96.5
    assert paper.loc[("Iris", "S1O"), "verdict"] == "within tolerance"                # |96.5 - 98.6| <= 3
    assert paper.loc[("Congress", "S1O"), "verdict"] == "lower"
    assert paper.loc[("Iris", "OCT-H"), "verdict"].startswith("not comparable: ours: 1 of 2")
    assert ("Congress", "Fair") in paper.index and paper.loc[("Congress", "Fair"), "verdict"].endswith("our side")
    assert "Heart-disease" not in paper.index.get_level_values("dataset")            # not run: not shown
    quick = p004.compare_table(ours, 2, "test_acc", p004.get_profile("quick")).set_index(["dataset", "method"])
    assert quick.loc[("Iris", "S1O"), "verdict"].endswith("would be: within tolerance")
    large = pd.DataFrame({"dataset": ["EEG"], "depth": [2], "method": ["CART"], "test_acc": [59.0], "reason": [""]})
    table7 = p004.compare_table(large, 7, "test_acc", p004.get_profile("quick")).set_index("method")
    assert table7.loc["CART", "verdict"] == (                                                # 59.0 vs 58.6
        "not comparable: quick profile (1 split(s), the paper's parameters, 60 s); would be: within tolerance")


def test_claims_compare_mean_test_accuracy_on_the_datasets_run():
    ours = p004.summary(_records())
    table = p004.claims(ours, others=("CART", "OCT-H")).set_index("comparison")
    cart = table.loc["S1O vs CART"]
    assert cart["datasets"] == 2 and cart["ours_gain"] == pytest.approx((96.5 + 90) / 2 - (92 + 94) / 2)
    assert cart["paper_gain"] == pytest.approx((98.6 + 98.0) / 2 - (92.4 + 93.5) / 2) and cart["claim_holds_paper"]
    assert table.loc["S1O vs OCT-H", "datasets"] == 1                                  # Congress' OCT-H gave no tree


def test_s1o_takes_the_parameters_of_the_best_cross_validated_accuracy(monkeypatch):
    # two grid points on separable data with an overlap: the 5-fold CV scores both, the refit uses the best
    rng = np.random.default_rng(0)
    X = rng.random((24, 2))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    monkeypatch.setattr(p004, "load", lambda dataset: (X, y))
    monkeypatch.setattr(p004, "S1O_GRID", ({"epsilon": 0.01, "alpha1": 1000.0, "alpha2": 0.1},
                                           {"epsilon": 0.5, "alpha1": 30.0, "alpha2": 0.1}))
    out = p004.run_medium(dict(dataset="toy", depth=1, method="S1O", split=0, solver="highs", time_limit=1,
                               tune=True, tuning_time_limit=1))
    scores = out["metrics"]["cv_scores"]
    assert len(scores) == 2 and all(0 <= s <= 1 for s in scores)
    best = p004.S1O_GRID[int(np.argmax(scores))]
    assert out["metrics"]["selected"] == ", ".join(f"{k}={v:g}" for k, v in best.items())
    assert out["metrics"]["n_train"] == 18 and out["metrics"]["test_acc"] >= 80


@pytest.mark.parametrize("error", [ValueError("OCTH: ... over the limit of 2,000,000 (OCTH.max_variables) ..."),
                                   RuntimeError("OCTH: the solver returned no tree (status 'time_limit')")])
def test_a_mip_without_a_tree_is_recorded_as_the_papers_na(monkeypatch, error):
    class NoTree:
        def fit(self, X, y):
            raise error

    y = np.repeat([0, 1], 20)
    monkeypatch.setattr(p004, "load", lambda dataset: (np.linspace(0, 1, 40)[:, None], y))
    monkeypatch.setattr(p004, "make_model", lambda *args, **kwargs: NoTree())
    out = p004.run_selection(dict(table=7, dataset="EEG", method="OCT-H", split=0, solver="highs", time_limit=1,
                                  rows=None))
    assert out["metrics"] == {"no_result": str(error), "n_train": 30, "n_test": 10}
    error = ValueError("X has 3 features, the model 2")                # any other error is a failed run
    with pytest.raises(ValueError, match="3 features"):
        p004.run_selection(dict(table=7, dataset="EEG", method="OCT-H", split=0, solver="highs", time_limit=1))
