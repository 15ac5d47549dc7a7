"""The experiment protocol of paper 000 (Günlük, Kalagnanam, Li, Menickelly & Scheinberg 2019, Section 5),
shared by its notebook.

Every fit of the paper is one *run*: a dataset, a random split, a training size and a method.

* **Split** ``s`` (seeded by s): a random 10 % of the rows is the test set, the other 90 % the training
  pool. The optimal tree (ODT) trains on the first ``min(n_train, pool)`` rows of the pool (the paper:
  min{90 %, 600}), CART on the whole pool. Tables 2-5 only time the solve of a random subsample of
  ``n_train`` rows: the same run, its test score is a by-product. ``stage="validate"`` (Table 13) holds
  out a further 20 % of the pool as validation set and trains on the rest.
* **Methods**: ``ODT`` = :class:`~odtlib.models.CategoricalODT` with a topology, a branching rule
  (``max_card``: 1 simple, 2 comb-con — the paper's default —, None comb-unc), the numerical treatment
  (``ordinal``: True = "n", False = "c"), CART feature selection (groups used by an unrestricted CART tree
  fitted on the pool, Section 5.1), an enhancement ``variant`` (Tables 2-3) and, for Table 14, a ``floor`` on
  the training rate of malignant tumours while maximising the rate of benign ones (see :func:`tradeoff_table`).
  The variant ``Subtree-Benders`` is the subtree decomposition of :mod:`odtlib.models.categorical.subtree_bounds`,
  not in the paper; it runs on ``DECOMPOSITION_SOLVER``, in Tables 2-3 and for the topologies a profile
  solves by decomposition in Tables 8-11 (``decomposed_topologies``). ``CART-D3`` = scikit-learn's
  ``DecisionTreeClassifier(max_depth=3)``; ``CART`` = a pruned tree (Table 13). The paper ran R's rpart.

Runs are plain dicts, so identical runs needed by several tables (e.g. Table 6's comb-con row is Table 9's
depth-2 row) are stored once. `PROFILES` sizes the grids: ``smoke`` (CI), ``quick`` (minutes on 2
cores), ``full`` (the runs behind the claims ledger, about 4 CPU-hours, stored in results/full/paper000/) and
``paper`` (the full protocol, for a Dask cluster). The section "the toy" holds the ten days that open the notebook
and its exercises (formulation (8) by hand); the section "claims" the compute functions of
``odtlib/reference/claims_000.toml``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from odtlib.experiments.claims import Measured, StoredResults, metric
from odtlib.experiments.protocol import failure_note, paper_data, profile_getter, replaced_by_reruns, results_of
from odtlib.experiments.reference import compare, reference_table
from odtlib.models import CategoricalODT
from odtlib.models._base import DEPRECATED, SEED_RENAMED, RenamedParameters

__all__ = [
    "PAPER", "EXPERIMENTS",
    "DATASETS", "TOPOLOGIES", "VARIANTS", "DECOMPOSITION", "DECOMPOSITION_SOLVER", "BRANCHING", "Profile", "PROFILES",
    "get_profile", "load", "split_rows", "make_model", "run", "run_config", "grids", "results_of", "table1_ours",
    "PrunedCART", "time_table", "time_ratios", "accuracy_table", "branching_table", "treatment_table",
    "train_size_table", "topology_selection", "tradeoff_table", "paper_accuracy_long", "AVAILABLE", "NO_TREE",
    "ordered_configs", "large_difference_reason", "explain_differences", "full_run_coverage", "CLAIMS_EXPERIMENT",
    "not_compared_reason", "compare_table6", "compare_table7", "table7_times", "compare_table12", "compare_table13",
    "compare_table14", "TOY_DAYS", "TOY_VARIANTS", "toy_days", "toy_instance",
    "full_grid_runs", "accuracy_cells", "best_odt_gain", "solve_times", "with_tradeoff_rechecks",
]

PAPER = "000"

DATASETS = ("a1a", "bc", "heloc", "krkp", "mush", "ttt", "monks-1", "votes", "heart", "student")
AVAILABLE = tuple(d for d in DATASETS if d != "heloc")        # heloc is not public (see paper_datasets.toml)
TOPOLOGIES = ("depth2", "depth2.5", "depth3", "imbalanced")
VARIANTS = tuple(CategoricalODT.PAPER_METHODS)   # Tables 2-3: the estimator's named configurations
DECOMPOSITION = "Subtree-Benders"   # not in the paper: All's master switches with subtree_benders=True
DECOMPOSITION_SOLVER = "scip"       # its cuts are lazy rows there (HiGHS: a restart loop, 1.2-12.5x slower, Table 2)
BRANCHING = {"simple": 1, "comb-con": 2, "comb-unc": None}    # Table 6 -> max_card
NO_TREE = "no tree found"           # a run whose solve stopped before a first tree: shown so, never as 0 % accuracy
TEST_FRACTION = 0.1
VALIDATION_FRACTION = 0.2


@dataclass(frozen=True)
class Profile:
    """Which runs of the paper to make, and with which per-solve time limits (seconds)."""

    name: str
    notes: str
    ablation: tuple[tuple[str, int], ...]          # Tables 2-3: (dataset, n) at ``ablation_topology``
    ablation_topology: str
    ablation_variants: tuple[str, ...]             # of VARIANTS and DECOMPOSITION
    timing_datasets: tuple[str, ...]               # Tables 4-5
    timing_sizes: tuple[int, ...]
    timing_topologies: tuple[str, ...]
    accuracy_datasets: tuple[str, ...]             # Tables 8-11
    accuracy_topologies: tuple[str, ...]           # ... solved by formulation (8) ("All")
    feature_selection: tuple[bool, ...]
    accuracy_limits: tuple[float, ...]             # the paper: 30 min (Tables 8-9) and 5 min (10-11)
    splits: tuple[int, ...]
    n_train: int
    branching: tuple[tuple[str, str], ...]         # Table 6: (dataset, topology)
    treatment: tuple[tuple[str, str], ...]         # Table 7: (dataset, topology)
    train_sizes: tuple[tuple[str, str, int], ...]  # Table 12: (dataset, topology, n_train)
    selection_datasets: tuple[str, ...]            # Table 13
    selection_topologies: tuple[str, ...]
    tradeoff_topologies: tuple[str, ...]           # Table 14 (bc)
    floors: tuple[float, ...]
    tradeoff_splits: tuple[int, ...]
    time_limit: float                              # Tables 6, 7, 12, 13, 14
    timing_limit: float                            # Tables 2-5
    decomposition_limit: float | None = None       # Tables 2-3, Subtree-Benders (None: ``timing_limit``)
    decomposed_topologies: tuple[str, ...] = ()    # Tables 8-11 solved by the subtree decomposition instead
    decomposed_n_train: int | None = None          # ... on this many ODT training rows (None: ``n_train``)
    decomposed_feature_selection: tuple[bool, ...] | None = None   # ... with these (None: ``feature_selection``)
    tolerance: float = 3.0                         # accuracy points counted as agreement
    compared: bool = True                          # False: a code-path check, accuracies never compared
    selection_splits: tuple[int, ...] | None = None  # Table 13's splits (None: ``splits``)
    decomposed_selection: bool = False             # Table 13's ODT runs by the subtree decomposition
    tradeoff_limit: float | None = None            # Table 14's per-solve limit (None: ``time_limit``)
    # Table 14 run again on this solver at the same limit: a run the first solver stopped at the limit is read
    # from its recheck when the recheck proves its optimum (`with_tradeoff_rechecks`)
    tradeoff_recheck_solver: str | None = None

    def __post_init__(self):
        both = set(self.accuracy_topologies) & set(self.decomposed_topologies)
        if both:
            raise ValueError(f"topologies {sorted(both)} are both in accuracy_topologies and decomposed_topologies; "
                             "Tables 8-11 show one ODT column per topology, so keep each in one of them")

    def with_time_limit(self, seconds: float) -> Profile:
        """Every limit of the profile set to ``seconds``."""
        return replace(self, time_limit=float(seconds), timing_limit=float(seconds), decomposition_limit=None,
                       accuracy_limits=(float(seconds),))


FULL_NOTES = (
    "The claims at scale on 2 cores (one solver thread per run). Tables 8-9 (the 30-min tables; 10-11 are the "
    "same cells, a proved optimum does not depend on the limit): all 9 public datasets, all 4 topologies, 5 splits, "
    "600 ODT training rows, without and with feature selection, every topology by the subtree decomposition on SCIP "
    "(formulation (8) on HiGHS proves no depth-3 tree of 600 rows), 60 s standing for 30 min; CART-D3 on the "
    "5 splits. Table 13: the same datasets and topologies, validated on splits 0-2 (a stratified sample: every "
    "dataset and topology present; the test runs are Tables 8-9's). Table 6: mush, depth 2, 3 branching rules, 5 "
    "splits (formulation (8), HiGHS, 60 s). Table 14: bc, depth 2, floors 100/99/98 %, splits 0-2 (HiGHS, 300 s: "
    "at 60 s the floor-100 % run on split 0 kept a poor incumbent, 48.5 % test accuracy). "
    "Tables 2 and 4-5 by formulation (8) on HiGHS, 300 s per solve: All and Nothing at depth 2 on 100 rows of bc, "
    "krkp and ttt (Table 2's depth 3 is out of reach), and krkp and bc at depth 2 on 200 and 600 rows without and "
    "with feature selection. Not run: Tables 7 and 12 (no claim rests on them). Order: the timing runs, then "
    "split by split (CART first), so a partial run already covers every claim on its first splits. 695 configs, "
    "587 distinct runs. Estimate about 4.2 CPU-h (5 h if every time-limited run hits its limit), from runs timed "
    "on this machine under a load of 4-8 on 2 cores, where a run got about a quarter of a core: the decomposition "
    "on 600 rows took 1.2 s (bc), 2.3 s (krkp), 9 s (a1a) at depth 2, 6-12 s at depth 2.5 and 3-5 s at depth 3 "
    "(a1a: 60 s), and hit 60 s at the imbalanced topology (bc, krkp); formulation (8) on 600 rows of mush took 52-53 "
    "s per branching rule. Counting 22 s per decomposition run (the 60-s imbalanced and a1a runs dominate) gives "
    "360 x 22 s = 2.2 h for Tables 8-9 and 108 x 22 s = 0.7 h for Table 13; the 14 formulation-(8) timing runs "
    "at most 14 x 300 s = 1.2 h (about 0.6 h expected: with feature selection krkp's 200 rows proved in 54 s); "
    "Table 6 "
    "15 x 55 s = 0.25 h; Table 14 at most 9 x 300 s = 0.75 h (0.5 h expected). About 2.1 h of wall time with 2 "
    "jobs. Table 14 again on SCIP at the same 300 s (9 runs): HiGHS proved no optimum at the 98 % floor within "
    "300 s; SCIP proved all nine in 33-80 s each (8.4 min in all, on the loaded machine). A HiGHS run stopped at "
    "the limit is read from its SCIP run when that one proves.")

PROFILES = {
    "smoke": Profile(
        "smoke", "CI check of the code path: monks-1, 40 training rows, depth 2 (and depth 3 by the subtree "
        "decomposition for Tables 8-11), 10 s per solve.",
        ablation=(("monks-1", 40),), ablation_topology="depth2", ablation_variants=(*VARIANTS, DECOMPOSITION),
        timing_datasets=(), timing_sizes=(), timing_topologies=(),
        accuracy_datasets=("monks-1",), accuracy_topologies=("depth2",), feature_selection=(True,),
        accuracy_limits=(10,), splits=(0,), n_train=40, decomposed_topologies=("depth3",),
        branching=(("monks-1", "depth2"),), treatment=(), train_sizes=(),
        selection_datasets=(), selection_topologies=(),
        tradeoff_topologies=(), floors=(), tradeoff_splits=(),
        time_limit=10, timing_limit=10, compared=False),
    "quick": Profile(
        "quick", "Table 2's depth-3 instances on 200 rows (All, and the subtree decomposition on SCIP with up to "
        "120 s; not the other four variants); Tables 8-9's depth-3 column (without and with feature selection) by "
        "the decomposition on SCIP on 200 training rows; otherwise depth 2 (and 2.5 for Table 13), 100 training "
        "rows; one split, 20 s per solve.",
        ablation=(("a1a", 200), ("bc", 200), ("krkp", 200), ("mush", 200), ("ttt", 200)),
        ablation_topology="depth3", ablation_variants=("All", DECOMPOSITION), decomposition_limit=120,
        timing_datasets=("krkp", "bc"), timing_sizes=(50, 100), timing_topologies=("depth2",),
        accuracy_datasets=("bc", "krkp", "mush", "ttt", "monks-1", "votes", "heart", "student"),
        accuracy_topologies=("depth2",), feature_selection=(True,), accuracy_limits=(20,),
        decomposed_topologies=("depth3",), decomposed_n_train=200, decomposed_feature_selection=(True, False),
        splits=(0,), n_train=100,
        branching=(("mush", "depth2"),), treatment=(("bc", "depth2"), ("student", "depth2")),
        train_sizes=(("krkp", "depth2", 100), ("krkp", "depth2", 200)),
        selection_datasets=("monks-1",), selection_topologies=("depth2", "depth2.5"),
        tradeoff_topologies=("depth2",), floors=(1.0, 0.98, 0.95), tradeoff_splits=(0,),
        time_limit=20, timing_limit=20, tolerance=5.0),
    "paper": Profile(
        "paper", "The paper's protocol: 5 splits, all topologies, 30 min (5 min) limits; for a Dask cluster.",
        ablation=(("a1a", 200), ("bc", 200), ("krkp", 200), ("mush", 200), ("ttt", 200),
                  ("a1a", 100), ("bc", 300), ("krkp", 400), ("mush", 500), ("ttt", 300)),
        ablation_topology="depth3", ablation_variants=(*VARIANTS, DECOMPOSITION),
        timing_datasets=("krkp", "bc", "a1a"), timing_sizes=(100, 200, 300, 400, 500, 600),
        timing_topologies=TOPOLOGIES,
        accuracy_datasets=AVAILABLE, accuracy_topologies=TOPOLOGIES, feature_selection=(False, True),
        accuracy_limits=(1800, 300), splits=(0, 1, 2, 3, 4), n_train=600,
        branching=tuple((d, t) for d in ("a1a", "mush") for t in ("depth2", "depth3")),
        treatment=tuple((d, t) for d in ("a1a", "bc", "student") for t in TOPOLOGIES),
        train_sizes=tuple((d, t, n) for d in ("a1a", "krkp", "mush") for t in TOPOLOGIES
                          for n in (600, 1200, 1800, 2400)),
        selection_datasets=AVAILABLE, selection_topologies=TOPOLOGIES,
        tradeoff_topologies=("depth2", "depth3"), floors=(1.0, 0.995, 0.99, 0.985, 0.98, 0.97, 0.96, 0.95),
        tradeoff_splits=tuple(range(30)), time_limit=1800, timing_limit=7200, tolerance=2.0),
    "full": Profile(
        "full", FULL_NOTES,
        ablation=(("bc", 100), ("krkp", 100), ("ttt", 100)), ablation_topology="depth2",
        ablation_variants=("All", "Nothing"),
        timing_datasets=("krkp", "bc"), timing_sizes=(200, 600), timing_topologies=("depth2",),
        accuracy_datasets=AVAILABLE, accuracy_topologies=(), feature_selection=(False, True), accuracy_limits=(60,),
        decomposed_topologies=TOPOLOGIES, decomposed_n_train=600, splits=(0, 1, 2, 3, 4), n_train=600,
        branching=(("mush", "depth2"),), treatment=(), train_sizes=(),
        selection_datasets=AVAILABLE, selection_topologies=TOPOLOGIES, selection_splits=(0, 1, 2),
        decomposed_selection=True,
        tradeoff_topologies=("depth2",), floors=(1.0, 0.99, 0.98), tradeoff_splits=(0, 1, 2), tradeoff_limit=300,
        tradeoff_recheck_solver="scip", time_limit=60, timing_limit=300, tolerance=3.0),
}


get_profile = profile_getter(PROFILES)


# ----------------------------------------------------------------------------------------------- data
def load(dataset: str):
    """Paper 000's encoding of ``dataset`` (Table 1): (X 0/1 DataFrame, y 0/1 Series, groups), cached."""
    return paper_data("000", dataset)


def split_rows(n_rows: int, split: int, n_train: int | None = None,
               stage: str = "test") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices (ODT training rows, CART training rows = the pool, scored rows) of one split.

    A permutation seeded by ``split``: its first 10 % are the test rows, the rest the pool. With
    ``stage="validate"`` the last 20 % of the pool are scored instead and the pool shrinks accordingly.
    The ODT trains on the first ``n_train`` rows of the pool (all of it when None or larger).
    """
    order = np.random.default_rng(split).permutation(n_rows)
    n_test = max(1, round(TEST_FRACTION * n_rows))
    test, pool = order[:n_test], order[n_test:]
    if stage == "validate":
        n_validation = max(1, round(VALIDATION_FRACTION * len(pool)))
        pool, scored = pool[:-n_validation], pool[-n_validation:]
    elif stage == "test":
        scored = test
    else:
        raise ValueError(f"stage must be 'test' or 'validate', got {stage!r}")
    odt = pool if n_train is None else pool[:n_train]
    return np.sort(odt), np.sort(pool), np.sort(scored)


def cart_selected_groups(X: pd.DataFrame, y: pd.Series, groups, seed: int) -> list[str]:
    """Section 5.1's feature selection: the groups an unrestricted CART tree uses on these rows."""
    from odtlib.feature_selection import cart_feature_groups

    indexed = [SimpleNamespace(name=g.name, columns=list(X.columns.get_indexer(g.columns))) for g in groups]
    return cart_feature_groups(X.to_numpy(), y.to_numpy(), indexed, seed=seed)


# ----------------------------------------------------------------------------------------------- runs
def make_model(config: dict, groups, selected: list[str] | None = None):
    """The estimator of one run: ``CategoricalODT`` or scikit-learn's CART (``CART-D3`` / ``CART``)."""
    from sklearn.tree import DecisionTreeClassifier

    method = config["method"]
    if method == "CART-D3":
        return DecisionTreeClassifier(max_depth=3, random_state=config["split"])
    if method == "CART":   # rpart's defaults minsplit = 20, minbucket = 7; pruning by cross-validation
        return PrunedCART(random_state=config["split"])
    if method != "ODT":
        raise ValueError(f"method must be 'ODT', 'CART-D3' or 'CART', got {method!r}")
    floor = config.get("floor")
    variant = config.get("variant", "All")
    decomposition = {"subtree_benders": True} if variant == DECOMPOSITION else {}
    return CategoricalODT.paper_method(
        "All" if decomposition else variant, **decomposition, topology=config["topology"], groups=groups,
        max_card=config.get("max_card", 2), ordinal_splits=config.get("ordinal", True), feature_selection=selected,
        maximize="accuracy" if floor is None else "sensitivity", floor=floor,  # floor on y = 0 (malignant)
        solver=config["solver"], time_limit=config["time_limit"], threads=config.get("threads", 1),
        random_state=config["split"])


class PrunedCART(RenamedParameters, ClassifierMixin, BaseEstimator):
    """CART as Table 13 uses it: rpart-like leaf sizes, cost-complexity pruning chosen by cross-validation.

    Parameters: ``random_state`` (the tree's; ``seed`` is its deprecated old name), ``min_samples_split`` and
    ``min_samples_leaf`` (rpart's minsplit = 20 and minbucket = 7), ``cv`` (folds of the search over the pruning
    parameter) and ``n_alphas`` (at most this many candidate α, quantiles of the pruning path).
    Fitted attributes: ``estimator_`` (the pruned ``DecisionTreeClassifier``), ``ccp_alpha_`` (its α)
    and ``classes_``.
    """

    _renamed_parameters = SEED_RENAMED

    def __init__(self, random_state: int = 0, min_samples_split: int = 20, min_samples_leaf: int = 7, cv: int = 5,
                 n_alphas: int = 20, seed=DEPRECATED):
        self.random_state = random_state
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.cv = cv
        self.n_alphas = n_alphas
        self.seed = seed

    def fit(self, X, y):
        """Search α on the pruning path of the full tree by ``cv``-fold accuracy; keep the best tree."""
        from sklearn.model_selection import GridSearchCV
        from sklearn.tree import DecisionTreeClassifier

        self._warn_renamed_parameters()
        base = DecisionTreeClassifier(min_samples_split=self.min_samples_split,
                                      min_samples_leaf=self.min_samples_leaf,
                                      random_state=self._parameter("random_state"))
        alphas = base.cost_complexity_pruning_path(X, y).ccp_alphas
        alphas = np.unique(np.quantile(alphas, np.linspace(0, 1, min(len(alphas), self.n_alphas))))
        search = GridSearchCV(base, {"ccp_alpha": list(alphas)}, cv=self.cv).fit(X, y)
        self.estimator_ = search.best_estimator_
        self.ccp_alpha_ = float(search.best_params_["ccp_alpha"])
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        """Predictions of the pruned tree."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def get_n_leaves(self) -> int:
        """Leaves of the pruned tree."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "estimator_")
        return int(self.estimator_.get_n_leaves())


def _rates(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[float, float]:
    """(TPR, TNR) with 1 = positive; NaN for a class absent from y_true."""
    pos, neg = y_true == 1, y_true == 0
    tpr = float(np.mean(y_pred[pos] == 1)) if pos.any() else math.nan
    tnr = float(np.mean(y_pred[neg] == 0)) if neg.any() else math.nan
    return tpr, tnr


def run(config: dict) -> dict:
    """One run (see the module docstring). Metrics: ``train_accuracy``, ``test_accuracy`` (or
    ``validation_accuracy``), training/test TPR and TNR, ``n_leaves``, ``n_train_rows``, ``n_groups_used``
    (after feature selection) and ``fit_time``; plus the solver's result and the tree (ODT)."""
    X, y, groups = load(config["dataset"])
    stage = config.get("stage", "test")
    odt_rows, pool, scored = split_rows(len(y), config["split"], config.get("n_train"), stage)
    fit_rows = odt_rows if config["method"] == "ODT" else pool
    selected = None
    if config["method"] == "ODT" and config.get("feature_selection"):
        selected = cart_selected_groups(X.iloc[pool], y.iloc[pool], groups, seed=config["split"])
    model = make_model(config, groups, selected)
    X_fit, y_fit, X_scored, y_scored = X.iloc[fit_rows], y.iloc[fit_rows], X.iloc[scored], y.iloc[scored]
    tic = time.perf_counter()
    model.fit(X_fit, y_fit)
    fit_time = time.perf_counter() - tic
    train_pred, scored_pred = np.asarray(model.predict(X_fit)), np.asarray(model.predict(X_scored))
    train_tpr, train_tnr = _rates(y_fit.to_numpy(), train_pred)
    scored_tpr, scored_tnr = _rates(y_scored.to_numpy(), scored_pred)
    name = "test" if stage == "test" else "validation"
    tree = getattr(model, "tree_", None)
    n_leaves = tree.n_leaves if hasattr(tree, "n_leaves") else model.get_n_leaves()
    metrics = {"train_accuracy": float(np.mean(train_pred == y_fit.to_numpy())),
               f"{name}_accuracy": float(np.mean(scored_pred == y_scored.to_numpy())),
               "train_tpr": train_tpr, "train_tnr": train_tnr, f"{name}_tpr": scored_tpr,
               f"{name}_tnr": scored_tnr, "n_leaves": int(n_leaves), "n_train_rows": len(fit_rows),
               "n_groups_used": len(selected) if selected is not None else len(groups), "fit_time": fit_time}
    is_odt = config["method"] == "ODT"
    return {"metrics": metrics, "solve_result": model.solve_result_ if is_odt else None,
            "tree": model.tree_ if is_odt else None}


def run_config(dataset: str, method: str = "ODT", *, split: int = 0, n_train: int | None = None,
               topology: str | None = "depth2", max_card: int | None = 2, ordinal: bool = True,
               feature_selection: bool = True, variant: str = "All", floor: float | None = None,
               stage: str = "test", solver: str = "highs", time_limit: float = 60, threads: int = 1) -> dict:
    """A run's config dict, with CART's irrelevant ODT keys blanked so equal runs share one key."""
    config = {"dataset": dataset, "method": method, "split": split, "n_train": n_train, "stage": stage,
              "topology": topology, "max_card": max_card, "ordinal": ordinal,
              "feature_selection": feature_selection, "variant": variant, "floor": floor,
              "solver": solver, "time_limit": time_limit, "threads": threads}
    if method != "ODT":
        config.update(n_train=None, topology=None, max_card=None, ordinal=None, feature_selection=None,
                      variant=None, floor=None, solver=None, time_limit=None)
    return config


def grids(profile: Profile, solver: str = "highs", threads: int = 1) -> dict[str, list[dict]]:
    """The runs of every table of the profile: {experiment: configs}. Equal configs (shared by several
    tables) are run once by ``run_grid`` since they have the same key."""
    common = dict(solver=solver, threads=threads)
    odt = dict(time_limit=profile.time_limit, n_train=profile.n_train, **common)
    out: dict[str, list[dict]] = {}
    limits = {DECOMPOSITION: profile.decomposition_limit or profile.timing_limit}
    out["ablation"] = [run_config(d, n_train=n, topology=profile.ablation_topology, feature_selection=False,
                                  variant=v, time_limit=limits.get(v, profile.timing_limit),
                                  solver=DECOMPOSITION_SOLVER if v == DECOMPOSITION else solver, threads=threads)
                       for d, n in profile.ablation for v in profile.ablation_variants]
    out["timing"] = [run_config(d, n_train=n, topology=t, feature_selection=fs,
                                time_limit=profile.timing_limit, **common)
                     for d in profile.timing_datasets for t in profile.timing_topologies
                     for n in profile.timing_sizes for fs in (False, True)]
    out["accuracy"] = [run_config(d, split=s, n_train=profile.n_train, topology=t, feature_selection=fs,
                                  time_limit=limit, **common)
                       for d in profile.accuracy_datasets for s in profile.splits for limit in profile.accuracy_limits
                       for fs in profile.feature_selection for t in profile.accuracy_topologies]
    out["accuracy"] += [run_config(d, split=s, n_train=profile.decomposed_n_train or profile.n_train, topology=t,
                                   feature_selection=fs, variant=DECOMPOSITION, time_limit=limit,
                                   solver=DECOMPOSITION_SOLVER, threads=threads)
                        for d in profile.accuracy_datasets for s in profile.splits for limit in profile.accuracy_limits
                        for fs in profile.decomposed_feature_selection or profile.feature_selection
                        for t in profile.decomposed_topologies]
    out["accuracy"] += [run_config(d, "CART-D3", split=s) for d in profile.accuracy_datasets for s in profile.splits]
    out["branching"] = [run_config(d, split=s, topology=t, max_card=card, **odt)
                        for d, t in profile.branching for s in profile.splits for card in BRANCHING.values()]
    out["treatment"] = [run_config(d, split=s, topology=t, ordinal=o, **odt)
                        for d, t in profile.treatment for s in profile.splits for o in (True, False)]
    out["train_size"] = [run_config(d, split=s, topology=t, time_limit=profile.time_limit, n_train=n, **common)
                         for d, t, n in profile.train_sizes for s in profile.splits]
    selection = dict(odt, variant=DECOMPOSITION, solver=DECOMPOSITION_SOLVER) if profile.decomposed_selection else odt
    selection_splits = profile.selection_splits or profile.splits
    out["validation"] = [run_config(d, split=s, topology=t, stage="validate", **selection)
                         for d in profile.selection_datasets for s in selection_splits
                         for t in profile.selection_topologies]
    out["selection_test"] = ([run_config(d, split=s, topology=t, **selection) for d in profile.selection_datasets
                              for s in selection_splits for t in profile.selection_topologies]
                             + [run_config(d, "CART", split=s) for d in profile.selection_datasets
                                for s in selection_splits])
    tradeoff = dict(odt, time_limit=profile.tradeoff_limit or profile.time_limit)
    out["tradeoff"] = [run_config("bc", split=s, topology=t, floor=f, **tradeoff)
                       for t in profile.tradeoff_topologies for f in profile.floors for s in profile.tradeoff_splits]
    recheck_solver = profile.tradeoff_recheck_solver
    out["tradeoff_recheck"] = [dict(c, solver=recheck_solver) for c in out["tradeoff"]] if recheck_solver else []
    return out


RUN_ORDER = ("ablation", "timing", "accuracy", "branching", "tradeoff", "tradeoff_recheck", "selection_test",
             "validation", "treatment", "train_size")


def ordered_configs(grid: dict[str, list[dict]]) -> list[dict]:
    """Every run of ``grid`` (from `grids`) in the order a long run should make them: the timing runs of
    Tables 2-5 first, then split by split (CART before the optimal trees) Tables 8-11, 6, 14 and 13, so an
    interrupted run already covers every claim on its first splits. Equal runs stay repeated (one key)."""
    ranked = [((-1 if name in ("ablation", "timing") else config["split"]), config["method"] == "ODT",
               RUN_ORDER.index(name), index, config)
              for name, configs in grid.items() for index, config in enumerate(configs)]
    return [entry[-1] for entry in sorted(ranked, key=lambda entry: entry[:4])]


# --------------------------------------------------------------------------------------------- tables
def table1_ours(datasets=DATASETS) -> pd.DataFrame:
    """Table 1 from our data (long: dataset, quantity, value, reason); unavailable data give NaN + why."""
    from odtlib.data.papers import paper_dataset_spec

    rows = []
    for name in datasets:
        spec = paper_dataset_spec("000", name)
        if spec.unavailable:
            values, reason = dict.fromkeys(("n_samples", "pct_positive", "n_binary_features", "n_groups")), \
                "ours: not available (not public, see note)"
        else:
            X, y, groups = load(name)
            values = {"n_samples": len(y), "pct_positive": round(100 * float(y.mean())),
                      "n_binary_features": X.shape[1], "n_groups": len(groups)}
            reason = ""
        rows += [{"dataset": name, "quantity": q, "value": v, "reason": reason} for q, v in values.items()]
    return pd.DataFrame(rows)


def _solved(frame: pd.DataFrame) -> pd.Series:
    return (frame["status"] == "ok") & (frame["solve_status"] == "optimal")


def time_table(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean solve time (s) per ``keys`` over the finished runs and whether each of them proved optimality
    (``marker`` "*" if not, like the paper's tables), with the limit-censored times kept as lower bounds.
    ``n_failed`` counts the runs that raised (no time); ``reason`` says so."""
    df = runs.assign(time_s=pd.to_numeric(runs["solve_runtime"], errors="coerce"), solved=_solved(runs),
                     failed=runs["status"] != "ok")
    finished = df[~df["failed"]]
    out = finished.groupby(keys, dropna=False).agg(time_s=("time_s", "mean"), solved=("solved", "all"),
                                                    runs=("time_s", "size"))
    n_failed = df.groupby(keys, dropna=False)["failed"].sum().rename("n_failed")
    out = out.join(n_failed, how="outer").reset_index()
    out["runs"] = out["runs"].fillna(0).astype(int)
    out["n_failed"] = out["n_failed"].astype(int)
    out["solved"] = out["solved"].fillna(False).astype(bool) & (out["runs"] > 0)
    out["marker"] = np.where(out["solved"], "", "*")
    out["reason"] = [failure_note(f, f + r) for f, r in zip(out["n_failed"], out["runs"])]
    return out


def time_ratios(times: pd.DataFrame, group: list[str], column: str, reference: str) -> pd.DataFrame:
    """``time_s`` divided by the time of the row with ``column == reference`` in the same ``group``: the
    scale-free quantity on which free solvers and CPLEX can be compared."""
    base = times[times[column] == reference].set_index(group)["time_s"].rename("reference_time")
    out = times.join(base, on=group)
    out["ratio"] = out["time_s"] / out["reference_time"]
    return out


def _percent(df: pd.DataFrame, columns) -> pd.DataFrame:
    df = df.copy()
    for column in columns:
        if column in df:
            df[column] = 100 * pd.to_numeric(df[column], errors="coerce")
    return df


def _method_name(row) -> str:
    return f"ODT-{row['topology']}" if row["method"] == "ODT" else row["method"]


def _no_tree(frame: pd.DataFrame) -> pd.Series:
    """The runs whose solver stopped before finding a first tree (they raise, so they are stored as failed)."""
    error = frame["error"] if "error" in frame else pd.Series("", index=frame.index)
    return (frame["status"] != "ok") & error.fillna("").astype(str).str.contains("returned no tree")


def _no_tree_note(n_runs: int) -> str:
    return f"ours: {NO_TREE} in {int(n_runs)} run(s) (the solve stopped before a first tree)" if n_runs else ""


def _not_optimal_reason(frame: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Per row (failed runs included): "" or why the cell is not comparable — runs of the cell that found no
    tree, runs that failed otherwise, else ODT runs not proved optimal."""
    cell = [frame[k] for k in keys]
    no_tree = _no_tree(frame).groupby(cell, dropna=False).transform("sum")
    failed = (frame["status"] != "ok").groupby(cell, dropna=False).transform("sum") - no_tree
    unproved = ((frame["method"] == "ODT") & (frame["status"] == "ok") & ~_solved(frame))
    unproved = unproved.groupby(cell, dropna=False).transform("sum")
    return pd.Series(["; ".join(filter(None, (_no_tree_note(n), failure_note(f))))
                      or (f"ours: {int(u)} ODT run(s) stopped at the time limit" if u else "")
                      for n, f, u in zip(no_tree, failed, unproved)], index=frame.index)


def _finished_with_reasons(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The finished runs with accuracies in % and the ``reason`` of their cell (counting its failed runs)."""
    reasons = _not_optimal_reason(runs, keys)
    ok = _percent(runs[runs["status"] == "ok"], ["train_accuracy", "test_accuracy"])
    return ok.assign(reason=reasons[ok.index])


def accuracy_table(runs: pd.DataFrame, paper_minutes: dict | None = None) -> pd.DataFrame:
    """Tables 8-11 in our runs: one row per run with ``method`` named as in the paper (ODT-depth2, CART-D3),
    accuracies in %, the paper's ``odt_time_limit_min`` and ``feature_selection`` ("yes"/"no") keys and a
    ``reason`` when the solve was not proved optimal. CART rows are repeated for every (limit, selection).
    ``paper_minutes`` maps our time limits (s) to the paper's limit they stand for (default: our minutes)."""
    failures = _not_optimal_reason(runs, ["dataset", "method", "topology", "time_limit", "feature_selection"])
    ok = runs[(runs["status"] == "ok") | _no_tree(runs)].copy()      # a run without a tree: NaN, "no tree found"
    failures = failures[ok.index].where(failures[ok.index].str.contains(f"failed|{NO_TREE}"), "")
    ok = _percent(ok, ["train_accuracy", "test_accuracy"])
    ok["method"] = [_method_name(r) for r in ok.to_dict("records")]
    odt = ok[ok["method"] != "CART-D3"].copy()
    limits = pd.to_numeric(odt["time_limit"])
    odt["odt_time_limit_min"] = limits.map(paper_minutes) if paper_minutes else limits / 60
    odt["feature_selection"] = np.where(odt["feature_selection"].astype(bool), "yes", "no")
    odt["reason"] = [f or ("" if s == "optimal" else "ours: stopped at the time limit")
                     for f, s in zip(failures[odt.index], odt["solve_status"])]
    cart = ok[ok["method"] == "CART-D3"].drop(columns=["feature_selection"])
    cells = odt[["odt_time_limit_min", "feature_selection"]].drop_duplicates()
    cart = cart.merge(cells, how="cross").assign(reason="")
    return pd.concat([odt, cart], ignore_index=True)


def paper_accuracy_long(profile: Profile) -> pd.DataFrame:
    """Tables 8-11 of the paper stacked (dataset, method, odt_time_limit_min, feature_selection, train_acc,
    test_acc), restricted to the profile's datasets and topologies (decomposed ones included)."""
    paper = pd.concat([reference_table("000", f"table{t}") for t in (8, 9, 10, 11)], ignore_index=True)
    methods = [f"ODT-{t}" for t in (*profile.accuracy_topologies, *profile.decomposed_topologies)] + ["CART-D3"]
    keep = paper["dataset"].isin(profile.accuracy_datasets) & paper["method"].isin(methods)
    return paper[keep].reset_index(drop=True)


# Why a cell differs from the paper's by more than twice the tolerance (checked on this machine, issue 29 item 8;
# the notebook's discussion gives the numbers): the datasets whose data, not the method, keep us below the paper
# and the baselines that are not the paper's.
DATA_REASONS = {
    "heart": "SPECT heart: over 30 of our splits CART-D3 (78.3 %) and the depth-2 tree (79.4 %) stay at the 79.4 % "
             "majority rate, sd 7-8 points per 27-row test set; the paper's 88-91 % is not reachable on this data",
}
BASELINE_REASONS = {
    "CART-D3": "scikit-learn's CART splits one 0/1 column per node; rpart (the paper's) can split a categorical "
               "feature by a subset of its values",
    "CART": "scikit-learn's CART pruned by cross-validation, not rpart's default complexity threshold",
}


def large_difference_reason(dataset: str, method: str, difference: float, tolerance: float, profile: Profile,
                            ours_reason: str = "") -> str:
    """One line on why a cell differs from the paper's by more than twice ``tolerance`` ("" for a smaller
    difference or a missing one): our own reason first (no tree, failed or unproved runs), then the data, a
    baseline below the paper's, and the profile's reduced protocol (fewer training rows, fewer splits)."""
    if pd.isna(difference) or abs(difference) <= 2 * tolerance:
        return ""
    if ours_reason:
        return ours_reason
    if dataset in DATA_REASONS:
        return DATA_REASONS[dataset]
    if method in BASELINE_REASONS and difference < 0:      # our baseline weaker than the paper's
        return BASELINE_REASONS[method]
    if profile.n_train < 600:
        return (f"ours: {profile.n_train} training rows and {len(profile.splits)} split(s); on 600 rows and 5 "
                "splits our depth-2 trees are within 3 points of Table 9 (heart aside)")
    if len(profile.splits) < 5:
        return f"ours: {len(profile.splits)} split(s), the paper's 5; 5-split means vary by 3-8 points on small data"
    return "ours: other random splits than the paper's (5-split means vary by 3-8 points on small test sets)"


def explain_differences(table: pd.DataFrame, tolerance: float, profile: Profile, method: str | None = None
                        ) -> pd.DataFrame:
    """``table`` (from `compare`) with a ``reason`` column: `large_difference_reason` of every row, using the
    row's ``method`` column (or ``method``) and its not-comparable reason."""
    methods = table["method"] if "method" in table else pd.Series(method or "ODT", index=table.index)
    ours = table["verdict"].astype(str).str.extract(r"^not comparable: (.*)$")[0].fillna("")
    reasons = [large_difference_reason(d, m, diff, tolerance, profile, o)
               for d, m, diff, o in zip(table["dataset"], methods, table["difference"], ours)]
    return table.assign(reason=reasons)


def branching_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 6: our runs with ``branching`` (simple / comb-con / comb-unc), ``depth`` (2, 3) and accuracies
    in %."""
    names = {card: name for name, card in BRANCHING.items()}
    ok = _finished_with_reasons(runs, ["dataset", "topology", "max_card"])
    ok["branching"] = [names[None if pd.isna(c) else int(c)] for c in ok["max_card"]]
    ok["depth"] = ok["topology"].str.replace("depth", "").astype(float).astype(int)
    return ok


def treatment_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 7: our runs with ``feature_treatment`` ("n" ordinal constraints, "c" plain categorical),
    accuracies in % and solve time."""
    ok = _finished_with_reasons(runs, ["dataset", "topology", "ordinal"])
    ok["feature_treatment"] = np.where(ok["ordinal"].astype(bool), "n", "c")
    ok["time_s"] = pd.to_numeric(ok["solve_runtime"], errors="coerce")
    return ok


def train_size_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 12: our runs with ``n_train`` and accuracies in %."""
    return _finished_with_reasons(runs, ["dataset", "topology", "n_train"])


def not_compared_reason(profile: Profile) -> str:
    """Why none of the profile's accuracies stands beside the paper's ("" when they do: every profile but smoke)."""
    return "" if profile.compared else f"ours: {profile.name} profile, a code-path check on {profile.n_train} rows"


def _test_accuracy_vs_paper(ours: pd.DataFrame, table: str, keys: list[str], profile: Profile) -> pd.DataFrame:
    """Our mean test accuracy (%) per ``keys`` beside the paper's ``table`` (`compare`, the profile's tolerance),
    each difference above twice the tolerance explained (`explain_differences`), and our mean training accuracy
    (``ours_train_acc``) beside it; only the cells we ran. ``ours``: one row per finished run, with the ``keys``,
    ``test_accuracy``/``train_accuracy`` in % and the cell's ``reason`` (`_finished_with_reasons`)."""
    ours = ours.assign(test_acc=ours["test_accuracy"], train_acc=ours["train_accuracy"])
    ours["reason"] = ours["reason"].where(ours["reason"] != "", not_compared_reason(profile))
    compared = compare(ours, reference_table("000", table), on=keys, value="test_acc", tolerance=profile.tolerance,
                       ours_reason="reason")
    compared = explain_differences(compared, profile.tolerance, profile, method="ODT")
    train = ours.groupby(keys, dropna=False)["train_acc"].mean().rename("ours_train_acc").reset_index()
    return compared[compared["n_ours"] > 0].merge(train, how="left")


def compare_table6(runs: pd.DataFrame, profile: Profile) -> pd.DataFrame:
    """Table 6 (Section 5.2, the rule of Section 4.5): test accuracy (%) of simple / comb-con / comb-unc branching
    per dataset and depth, paper vs ours (`_test_accuracy_vs_paper`)."""
    return _test_accuracy_vs_paper(branching_table(runs), "table6", ["dataset", "depth", "branching"], profile)


def compare_table7(runs: pd.DataFrame, profile: Profile) -> pd.DataFrame:
    """Table 7 (Section 5.3, the constraints of Section 4.4): test accuracy (%) with numerical groups as ordered
    buckets ("n") or plain categories ("c"), per dataset and topology, paper vs ours (`_test_accuracy_vs_paper`)."""
    keys = ["dataset", "feature_treatment", "topology"]
    return _test_accuracy_vs_paper(treatment_table(runs), "table7", keys, profile)


def table7_times(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 7's solve times: our mean seconds per (dataset, topology, feature_treatment) beside the paper's (CPLEX,
    8 cores; not comparable in absolute terms), for the cells we ran."""
    keys = ["dataset", "topology", "feature_treatment"]
    ours = treatment_table(runs).groupby(keys)["time_s"].mean()
    paper = reference_table("000", "table7").set_index(keys)["time_s"]
    times = pd.DataFrame({"ours time (s)": ours, "paper time (s, CPLEX)": paper})
    return times.dropna(subset=["ours time (s)"])


def compare_table12(runs: pd.DataFrame, profile: Profile) -> pd.DataFrame:
    """Table 12 (Section 5.5): test accuracy (%) against the number of training rows per dataset and topology,
    paper vs ours (`_test_accuracy_vs_paper`)."""
    return _test_accuracy_vs_paper(train_size_table(runs), "table12", ["dataset", "topology", "n_train"], profile)


def topology_selection(validation: pd.DataFrame, tested: pd.DataFrame) -> pd.DataFrame:
    """Table 13: per (dataset, split) the topology with the best validation accuracy (ties: fewer leaves),
    its test accuracy (the run trained on the full training part) and leaves, beside pruned CART's.
    Returns per dataset: odt_test_acc, odt_avg_leaves, cart_test_acc, cart_avg_leaves (accuracies in %)."""
    ok = validation[validation["status"] == "ok"]
    ranked = ok.sort_values(["dataset", "split", "validation_accuracy", "n_leaves"],
                            ascending=[True, True, False, True])
    chosen = ranked.groupby(["dataset", "split"]).head(1)[["dataset", "split", "topology"]]
    odt = tested[(tested["method"] == "ODT") & (tested["status"] == "ok")].merge(chosen)
    cart = tested[(tested["method"] == "CART") & (tested["status"] == "ok")]
    summary = odt.groupby("dataset").agg(odt_test_acc=("test_accuracy", "mean"), odt_avg_leaves=("n_leaves", "mean"),
                                         topologies=("topology", lambda t: ", ".join(sorted(set(t)))))
    cart_summary = cart.groupby("dataset").agg(cart_test_acc=("test_accuracy", "mean"),
                                               cart_avg_leaves=("n_leaves", "mean"))
    out = summary.join(cart_summary, how="outer").reset_index()
    out[["odt_test_acc", "cart_test_acc"]] *= 100
    return out


TABLE13_QUANTITIES = ("odt_test_acc", "cart_test_acc", "odt_avg_leaves", "cart_avg_leaves")


def compare_table13(selected: pd.DataFrame, profile: Profile) -> pd.DataFrame:
    """Table 13 (Section 5.6): per dataset the validated topology's test accuracy (%) and leaves beside pruned
    CART's (`topology_selection`), paper vs ours, one row per dataset and ``quantity``; accuracies within the
    profile's tolerance, leaves within one leaf; each difference above twice the tolerance explained."""
    paper = reference_table("000", "table13")
    tables = [compare(selected, paper, on="dataset", value=quantity,
                      tolerance=profile.tolerance if "acc" in quantity else 1.0).assign(quantity=quantity)
              for quantity in TABLE13_QUANTITIES]
    table = pd.concat(tables)
    table = table[table["n_ours"] > 0]
    methods = np.where(table["quantity"].str.startswith("cart"), "CART", "ODT")
    return explain_differences(table.assign(method=methods), profile.tolerance, profile)


def with_tradeoff_rechecks(tradeoff: pd.DataFrame, rechecks: pd.DataFrame) -> pd.DataFrame:
    """Table 14's runs, each one stopped at the limit replaced by its recheck (the same split, floor and limit on
    the profile's ``tradeoff_recheck_solver``) when the recheck proved its optimum; a ``rechecked`` column marks
    the replacements."""
    keys = ["topology", "floor", "split"]
    if tradeoff.empty or rechecks.empty:
        return replaced_by_reruns(tradeoff, rechecks, keys)
    stopped = tradeoff[~_solved(tradeoff)].set_index(keys).index
    proved = rechecks[_solved(rechecks)]
    return replaced_by_reruns(tradeoff, proved[proved.set_index(keys).index.isin(stopped)], keys)


def tradeoff_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 14 in the paper's terms, per (depth, training-TPR floor ``train_tpr`` in %): mean achieved
    training TPR and TNR and test TPR / TNR (%), over the splits.

    Table 14 calls the malignant tumours positive, while Table 1's "65 % positive" counts the benign ones,
    which is our y = 1. So the paper's TPR is our rate on y = 0 (``tnr`` in our metrics) and its TNR our
    rate on y = 1; the runs maximise the benign rate subject to the floor on the malignant one.
    """
    reasons = _not_optimal_reason(runs, ["topology", "floor"])
    ok = runs[runs["status"] == "ok"]
    out = pd.DataFrame({
        "depth": ok["topology"].str.replace("depth", "").astype(float).astype(int),
        "train_tpr": (100 * pd.to_numeric(ok["floor"])).round(1),        # the floor: the paper's first column
        "train_tpr_achieved": 100 * pd.to_numeric(ok["train_tnr"]),
        "train_tnr": 100 * pd.to_numeric(ok["train_tpr"]),
        "test_tpr": 100 * pd.to_numeric(ok["test_tnr"]),
        "test_tnr": 100 * pd.to_numeric(ok["test_tpr"]),
        "split": ok["split"],
        "reason": reasons[ok.index],
    })
    values = ["train_tpr_achieved", "train_tnr", "test_tpr", "test_tnr"]
    return out.groupby(["depth", "train_tpr"]).agg(
        **{c: (c, "mean") for c in values}, runs=("split", "size"), reason=("reason", "first")).reset_index()


def compare_table14(tradeoff: pd.DataFrame, profile: Profile) -> pd.DataFrame:
    """Table 14 (Section 5.8, bc): training TNR and test TPR / TNR (%) per depth and training-TPR floor, paper vs
    ours (`tradeoff_table`), one row per cell and ``quantity``; each difference above twice the tolerance
    explained."""
    reason = tradeoff["reason"].where(tradeoff["reason"] != "", not_compared_reason(profile))
    tradeoff, paper = tradeoff.assign(reason=reason), reference_table("000", "table14")
    tables = [compare(tradeoff, paper, on=["depth", "train_tpr"], value=quantity, tolerance=profile.tolerance,
                      ours_reason="reason").assign(quantity=quantity)
              for quantity in ("train_tnr", "test_tpr", "test_tnr")]
    table = pd.concat(tables)
    return explain_differences(table[table["n_ours"] > 0].assign(dataset="bc"), profile.tolerance, profile,
                               method="ODT")


# ------------------------------------------------------------------------------------------------ the toy
# Ten days for the notebook's opening section and the exercises: whether to play outside, from three categorical
# features. The rule behind rows 1-9 is "play when the outlook is overcast or the humidity is normal"; rows 9 and
# 10 are the same day with opposite labels, so every tree misclassifies one of them.
TOY_DAYS = (
    ("sunny", "high", "weak", 0), ("sunny", "normal", "strong", 1), ("overcast", "high", "weak", 1),
    ("rain", "high", "strong", 0), ("rain", "normal", "weak", 1), ("overcast", "normal", "strong", 1),
    ("sunny", "high", "strong", 0), ("rain", "high", "weak", 0), ("overcast", "high", "strong", 1),
    ("overcast", "high", "strong", 0),
)

#: the routing of Section 4.3 switched on step by step (pruned c (14) and Proposition 3's relaxation stay on, so
#: the three models branch on the same binaries: the z of the nodes that are not adjacent to a leaf)
TOY_VARIANTS = {
    "plain (5)-(6)": {"strengthen": False, "anchor": False},
    "strengthened (11)-(12)": {"strengthen": True, "anchor": False},
    "(11)-(12) + anchors (13)": {"strengthen": True, "anchor": True},
}


def toy_days() -> pd.DataFrame:
    """The ten days of `TOY_DAYS` as a frame (features outlook, humidity, wind; label play)."""
    return pd.DataFrame(list(TOY_DAYS), columns=["outlook", "humidity", "wind", "play"])


def toy_instance(days: pd.DataFrame | None = None):
    """What `~odtlib.models.categorical.categorical_odt.build_model` takes, for ``days`` (default
    `toy_days`): the one-hot 0/1 matrix A, the positive rows (play = 1), the groups (one per feature, columns
    ordered by value, so the first value is the anchor j(g) of (13)) and the names of A's columns."""
    from odtlib.encoders import CategoricalEncoding
    from odtlib.models.categorical.categorical_odt import resolve_groups

    days = toy_days() if days is None else days
    features = days.drop(columns="play")
    encoding = CategoricalEncoding().fit(features)
    encoded = encoding.transform(features)
    columns = [str(c) for c in encoded.columns]
    return encoded.to_numpy(), days["play"].to_numpy() == 1, resolve_groups(encoding.groups_, columns), columns


# the result stores of this paper and the run function that fills each (odtlib.experiments.protocol)
EXPERIMENTS = {"runs": run}


# --------------------------------------------------------------------------------------------- claims
# The compute functions of odtlib/reference/claims_000.toml: each reads the stored runs of the full profile
# (experiment "runs": the notebook stores every table's runs in one experiment) and keeps only the runs of the
# full grid's configs, so runs of other limits or profiles never mix in.

CLAIMS_EXPERIMENT = "runs"


def full_grid_runs(results: StoredResults, table: str, keep=lambda config: True) -> tuple[pd.DataFrame, int]:
    """The stored runs of the full profile's ``table`` (a key of `grids`) whose config ``keep`` selects, and how
    many such runs the grid has."""
    from odtlib.experiments.store import config_key

    expected = {config_key(c) for c in grids(PROFILES["full"])[table] if keep(c)}
    frame = results.frame(CLAIMS_EXPERIMENT)
    if frame.empty:
        return frame, len(expected)
    return frame[frame["key"].isin(expected)].copy(), len(expected)


def _coverage(stored: pd.DataFrame, total: int) -> str:
    return f"{len(stored)} of {total} runs stored"


def _with_tree(frame: pd.DataFrame) -> pd.DataFrame:
    """The finished runs (status ok: each has a tree, possibly not proved optimal), accuracies in %."""
    return _percent(frame[frame["status"] == "ok"], ["train_accuracy", "test_accuracy", "train_tpr", "test_tpr",
                                                     "test_tnr"])


def _run_notes(stored: pd.DataFrame) -> str:
    """How many runs found no tree, failed otherwise or stopped at the limit (each counted when nonzero)."""
    no_tree = int(_no_tree(stored).sum())
    failed = int((stored["status"] != "ok").sum()) - no_tree
    unproved = int(((stored["method"] == "ODT") & (stored["status"] == "ok") & ~_solved(stored)).sum())
    parts = [f"{NO_TREE} in {no_tree}" if no_tree else "", f"{failed} failed" if failed else "",
             f"{unproved} ODT run(s) stopped at the limit (incumbent tree kept)" if unproved else ""]
    return "; ".join(p for p in parts if p)


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def accuracy_cells(results: StoredResults, feature_selection: bool) -> tuple[pd.DataFrame, str, list[str]]:
    """Tables 8-9 in the stored full run: per public dataset (rows) and method (ODT-<topology>, CART-D3), the
    mean test accuracy (%) over the stored splits; the coverage note; the datasets missing a cell."""
    stored, total = full_grid_runs(results, "accuracy", lambda c: c["method"] == "CART-D3"
                                    or bool(c["feature_selection"]) == feature_selection)
    coverage = _joined(_coverage(stored, total), _run_notes(stored) if len(stored) else "")
    methods = [f"ODT-{t}" for t in TOPOLOGIES] + ["CART-D3"]
    if stored.empty:
        return pd.DataFrame(index=list(AVAILABLE), columns=methods, dtype=float), coverage, list(AVAILABLE)
    ok = _with_tree(stored)
    ok["name"] = [_method_name(r) for r in ok.to_dict("records")]
    cells = ok.groupby(["dataset", "name"])["test_accuracy"].mean().unstack()
    cells = cells.reindex(index=list(AVAILABLE), columns=methods)
    missing = [d for d in AVAILABLE if cells.loc[d].isna().any()]
    return cells, coverage, missing


def _missing_reason(what: str, coverage: str, missing: list[str]) -> str:
    return f"full run: {coverage}; {what} has no result yet on {len(missing)} dataset(s) ({', '.join(missing[:4])}" \
           f"{', ...' if len(missing) > 4 else ''})"


def best_odt_gain(cells: pd.DataFrame) -> pd.Series:
    """Per dataset: the best topology's mean test accuracy minus CART-D3's (points), as Tables 8-11 are read."""
    return cells.filter(like="ODT-").max(axis=1) - cells["CART-D3"]


@metric("000")
def datasets_beating_cart(results: StoredResults, feature_selection: bool = False, margin: float = 1.0) -> Measured:
    """Tables 8-9: on how many public datasets the best topology's mean test accuracy beats CART-D3's by more
    than ``margin`` points, once every dataset has a result of every topology and of CART-D3."""
    cells, coverage, missing = accuracy_cells(results, feature_selection)
    if missing:
        return Measured(None, reason=_missing_reason("a topology or CART-D3", coverage, missing))
    gains = best_odt_gain(cells)
    winners = [d for d in gains.index if gains[d] > margin]
    return Measured(len(winners), n=len(gains), note=f"ahead by more than {margin:g} point(s) on "
                                                     f"{', '.join(winners) or 'none'}; {coverage}")


@metric("000")
def mean_gain_over_cart(results: StoredResults, feature_selection: bool = True) -> Measured:
    """Tables 8-9: the mean over the public datasets of the best topology's mean test accuracy minus CART-D3's."""
    cells, coverage, missing = accuracy_cells(results, feature_selection)
    if missing:
        return Measured(None, reason=_missing_reason("a topology or CART-D3", coverage, missing))
    gains = best_odt_gain(cells)
    return Measured(round(float(gains.mean()), 2), n=len(gains),
                    note=f"largest gain {gains.max():.1f} ({gains.idxmax()}), smallest {gains.min():.1f} "
                         f"({gains.idxmin()}); {coverage}")


@metric("000")
def odt_test_accuracy(results: StoredResults, dataset: str = "monks-1", topology: str = "imbalanced",
                      feature_selection: bool = False) -> Measured:
    """Tables 8-9: one topology's mean test accuracy (%) on one dataset over the stored splits."""
    stored, total = full_grid_runs(results, "accuracy", lambda c: c["dataset"] == dataset and c["method"] == "ODT"
                                    and c["topology"] == topology
                                    and bool(c["feature_selection"]) == feature_selection)
    ok = _with_tree(stored) if len(stored) else stored
    coverage = _joined(_coverage(stored, total), _run_notes(stored) if len(stored) else "")
    if ok.empty:
        return Measured(None, reason=f"full run: {coverage}; no tree of {dataset}, {topology} yet")
    return Measured(round(float(ok["test_accuracy"].mean()), 2), n=len(ok),
                    note=f"splits {', '.join(str(int(s)) for s in sorted(ok['split']))}; {coverage}")


@metric("000")
def branching_gain(results: StoredResults, dataset: str = "mush", topology: str = "depth2") -> Measured:
    """Table 6: comb-con's (max_card 2) mean test accuracy minus simple branching's (max_card 1), over the splits
    where both have a tree."""
    stored, total = full_grid_runs(results, "branching", lambda c: c["dataset"] == dataset
                                    and c["topology"] == topology and c["max_card"] in (1, 2))
    coverage = _joined(_coverage(stored, total), _run_notes(stored) if len(stored) else "")
    ok = _with_tree(stored) if len(stored) else stored
    if ok.empty:
        return Measured(None, reason=f"full run: {coverage}")
    paired = ok.pivot_table(index="split", columns="max_card", values="test_accuracy").dropna()
    if paired.empty or not {1, 2} <= set(paired.columns):
        return Measured(None, reason=f"full run: {coverage}; no split has a tree of both rules yet")
    gain = paired[2] - paired[1]
    return Measured(round(float(gain.mean()), 2), n=len(paired),
                    note=f"comb-con {paired[2].mean():.1f} % against simple {paired[1].mean():.1f} % on "
                         f"{len(paired)} split(s); {coverage}")


@metric("000")
def datasets_not_worse_than_pruned_cart(results: StoredResults) -> Measured:
    """Table 13: on how many public datasets the validated topology's mean test accuracy is at least pruned
    CART's, once every dataset has a validated choice and a CART run."""
    validation, n_validation = full_grid_runs(results, "validation")
    tested, n_tested = full_grid_runs(results, "selection_test")
    coverage = f"{len(validation) + len(tested)} of {n_validation + n_tested} runs stored"
    if validation.empty or tested.empty:
        return Measured(None, reason=f"full run: {coverage}")
    table = topology_selection(validation, tested).set_index("dataset").reindex(list(AVAILABLE))
    missing = [d for d in AVAILABLE if table.loc[d, ["odt_test_acc", "cart_test_acc"]].isna().any()]
    if missing:
        return Measured(None, reason=_missing_reason("the validated tree or pruned CART", coverage, missing))
    losers = [d for d in AVAILABLE if table.loc[d, "odt_test_acc"] < table.loc[d, "cart_test_acc"]]
    notes = _run_notes(pd.concat([validation, tested]))
    return Measured(len(AVAILABLE) - len(losers), n=len(AVAILABLE),
                    note=_joined(f"pruned CART ahead on {', '.join(losers) or 'none'}", coverage, notes))


@metric("000")
def tradeoff_test_tpr(results: StoredResults, topology: str = "depth2", floors=(1.0, 0.99, 0.98)) -> Measured:
    """Table 14: the mean test TPR (%, malignant = positive: our ``test_tnr``, see `tradeoff_table`) over the
    given training-TPR floors, over the stored runs proved optimal (an incumbent stopped at the limit may be the
    trivial all-malignant tree, whose test TPR says nothing)."""
    floors = [float(f) for f in floors]

    def keep(config):
        return config["topology"] == topology and float(config["floor"]) in floors

    stored, total = full_grid_runs(results, "tradeoff", keep)
    rechecks, _ = full_grid_runs(results, "tradeoff_recheck", keep)
    coverage = _joined(_coverage(stored, total), _run_notes(stored) if len(stored) else "")
    stored = with_tradeoff_rechecks(stored, rechecks)
    if stored["rechecked"].any():
        coverage = _joined(coverage, f"{int(stored['rechecked'].sum())} of them proved by the recheck on "
                                     f"{PROFILES['full'].tradeoff_recheck_solver}")
    proved = _with_tree(stored[_solved(stored)]) if len(stored) else stored
    if proved.empty or set(pd.to_numeric(proved["floor"])) != set(floors):
        return Measured(None, reason=f"full run: {coverage}; not every floor has a proved-optimal run yet (a tree "
                                     "stopped at the limit may keep every training sample malignant)")
    per_floor = proved.groupby(pd.to_numeric(proved["floor"]))[["test_tnr", "train_tpr"]].mean()
    return Measured(round(float(per_floor["test_tnr"].mean()), 2), n=len(proved),
                    note=_joined(", ".join(f"floor {100 * f:g} %: test TPR {r.test_tnr:.1f}, training TNR "
                                           f"{r.train_tpr:.1f}" for f, r in per_floor.iterrows()),
                                 f"proved-optimal runs only ({len(proved)})", coverage))


def solve_times(frame: pd.DataFrame) -> pd.Series:
    return pd.to_numeric(frame["solve_runtime"], errors="coerce")


@metric("000")
def enhancement_speedup(results: StoredResults, datasets=("bc", "krkp", "ttt"), n_train: int = 100) -> Measured:
    """Table 2: the smallest ratio over ``datasets`` of the solve time of 'Nothing' to that of 'All'. A
    'Nothing' run stopped at the limit makes its ratio, and so the smallest, a lower bound; an 'All' run not
    proved optimal leaves its ratio undetermined."""
    stored, total = full_grid_runs(results, "ablation", lambda c: c["dataset"] in datasets
                                    and c["n_train"] == n_train and c["variant"] in ("All", "Nothing"))
    coverage = _coverage(stored, total)
    if len(stored) < total or (stored["status"] != "ok").any():
        return Measured(None, reason=_joined(f"full run: {coverage}", _run_notes(stored) if len(stored) else ""))
    runs = stored.assign(time_s=solve_times(stored), proved=_solved(stored)).set_index(["dataset", "variant"])
    unproved_all = [d for d in datasets if not runs.loc[(d, "All"), "proved"]]
    if unproved_all:
        return Measured(None, reason=f"'All' not proved optimal within the limit on {', '.join(unproved_all)}: "
                                     f"the ratio is undetermined; {coverage}")
    ratios = {d: runs.loc[(d, "Nothing"), "time_s"] / runs.loc[(d, "All"), "time_s"] for d in datasets}
    censored = [d for d in datasets if not runs.loc[(d, "Nothing"), "proved"]]
    note = ", ".join(f"{d} {r:.1f}x{'+' if d in censored else ''}" for d, r in ratios.items())
    return Measured(round(float(min(ratios.values())), 2), n=len(datasets), bound="lower" if censored else None,
                    note=_joined(note, "+ = 'Nothing' stopped at the limit" if censored else "", coverage))


@metric("000")
def feature_selection_speedup(results: StoredResults, datasets=("krkp", "bc"), topology: str = "depth2",
                              sizes=(200, 600)) -> Measured:
    """Tables 4-5: the total solve time without feature selection over the total with it. Runs without it
    stopped at the limit make the ratio a lower bound; a run with it not proved leaves the ratio undetermined."""
    stored, total = full_grid_runs(results, "timing", lambda c: c["dataset"] in datasets
                                    and c["topology"] == topology and c["n_train"] in sizes)
    coverage = _coverage(stored, total)
    if len(stored) < total or (stored["status"] != "ok").any():
        return Measured(None, reason=_joined(f"full run: {coverage}", _run_notes(stored) if len(stored) else ""))
    selected = stored["feature_selection"].astype(bool)
    proved = _solved(stored)
    if not proved[selected].all():
        return Measured(None, reason=f"{int((~proved[selected]).sum())} run(s) with feature selection not proved "
                                     f"optimal: the ratio is undetermined; {coverage}")
    times = solve_times(stored)
    without, with_selection = float(times[~selected].sum()), float(times[selected].sum())
    censored = int((~proved[~selected]).sum())
    return Measured(round(without / max(with_selection, 1e-9), 2), n=len(stored),
                    bound="lower" if censored else None,
                    note=_joined(f"{without:.0f} s without against {with_selection:.1f} s with feature selection",
                                 f"{censored} run(s) without it stopped at the limit" if censored else "", coverage))


def full_run_coverage(results_dir=None) -> str:
    """How far the stored full run has got: "n of N runs of the full profile stored" (``results_dir``: where
    stored profiles keep their results; None: the checkout's results/full)."""
    from odtlib.experiments.store import config_key

    expected = {config_key(c) for configs in grids(PROFILES["full"]).values() for c in configs}
    frame = StoredResults("000", results_dir).frame(CLAIMS_EXPERIMENT)
    stored = int(frame["key"].isin(expected).sum()) if len(frame) else 0
    return f"{stored} of {len(expected)} runs of the full profile stored"
