"""The experiment protocol of paper 003 (Keegan, Forbes, Corry & Abolghasemi 2025, Section 6 and
Appendix B), shared by its notebook.

Protocol (the paper's, run by the ``paper`` profile):

* 33 UCI datasets: 12 purely categorical ones are one-hot encoded; the 21 with numeric attributes are
  binarised twice, by 5 quantile buckets (QB-5) and by 4 quantile thresholds (QT-5): 54 dataset-encodings;
* every dataset-encoding is solved at depths D ∈ {3, 4} for 15 leaf penalties λ (1e-4 ... 0.08), on the
  *full* data (no split: the paper measures optimisation, not generalisation): 54 x 2 x 15 = 1620
  instances per method;
* the objective is training accuracy - λ·(number of leaves); one thread, one hour per solve, gap 0;
* the solver starts from CART (Gini) pruned by cost complexity with α = λ, improved by solution polishing
  (the baseline BendOCT gets the same CART start, unpolished: polishing is one of the techniques measured);
* per dataset (over its encodings, depths and λ) the tables report **Solved** (instances proved optimal
  within the limit), **Time** (mean seconds over the solved ones) and **Gap** (mean final optimality gap,
  in %, over the unsolved ones).

`METHODS` holds every configuration of :class:`~odtlib.models.RegularizedBendOCT` the paper measures and
`STUDIES` groups them by the table or figure they belong to. `PROFILES` shrinks the grid for free solvers
(``smoke``, ``quick``); the code path is the same. Each run is one config dict executed by `run` (a
module-level function, so joblib and Dask can ship it).

Every instance solved to optimality is checked against an independent optimum: the dynamic program of
STreeD (``pystreed``, a dev extra; "not checked" without it) and the few optima published with the paper's
results (`PUBLISHED_OPTIMA`).
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from odtlib.experiments.grid import Grid
from odtlib.experiments.protocol import failure_note, instance_frame, paper_data, results_of, select_profile
from odtlib.models import RegularizedBendOCT
from odtlib.models.regularized_bendoct import eqp_method_name

__all__ = [
    "DATASETS", "DEPTHS", "LAMBDAS", "METHODS", "PROFILES", "PUBLISHED_OPTIMA", "STUDIES", "Profile",
    "compare_study", "get_profile", "grid", "instance_frame", "load", "make_model", "method_totals",
    "methods_agree", "optimum_crosscheck", "ordering", "paper_table", "results_of", "run", "solved_time_gap",
    "speedup_verdict", "streed_objective", "table1_ours", "tableA1_ours", "tableA1_paper", "time_to_match",
]

# ------------------------------------------------------------------------------------------ the grid
ONE_HOT = "onehot"
NUMERIC_ENCODINGS = ("QB-5", "QT-5")
CATEGORICAL = ("soybean-small", "monk3", "monk1", "hayes-roth", "monk2", "house-votes-84", "spect",
               "breast-cancer", "balance-scale", "tic-tac-toe", "car-evaluation", "kr-vs-kp")
WITH_NUMERIC = ("iris", "wine", "plrx", "wpbc", "parkinsons", "sonar", "wdbc", "transfusion", "banknote",
                "ozone-one", "segmentation", "spambase", "hepatitis", "fertility", "ionosphere", "thoracic",
                "ILPD", "credit", "biodeg", "seismic-bumps", "ann-thyroid")
DATASETS: tuple[tuple[str, str], ...] = (
    *((name, ONE_HOT) for name in CATEGORICAL),
    *((name, encoding) for name in WITH_NUMERIC for encoding in NUMERIC_ENCODINGS),
)   # the 54 dataset-encodings, in the row order of the paper's tables
LAMBDAS = (1e-4, 2e-4, 4e-4, 6e-4, 8e-4, 1e-3, 2e-3, 4e-3, 6e-3, 8e-3, 0.01, 0.02, 0.04, 0.06, 0.08)
DEPTHS = (3, 4)
PAPER_NAMES = {"car_evaluation": "car-evaluation"}   # Tables 1, 3-5 print it with an underscore

# --------------------------------------------------------------------------------------- the methods
# The paper's configurations are RegularizedBendOCT's own registry (PAPER_METHODS): every method starts from
# the CART tree pruned with α = λ (polished first when polishing is on, as in the paper), runs on the solver's
# default search and bounds subtrees of height 2 only (top_down_branching=False, path_bound_height=2: the
# estimator's other defaults are ours).
METHODS: dict[str, dict] = RegularizedBendOCT.PAPER_METHODS


def _eqp_study(max_split: int, disaggregated: bool | None = None, group_selection: bool = False) -> list[str]:
    names = []
    for h in ("basic", "chain", "recursive"):
        da = (h != "basic") if disaggregated is None else (disaggregated and h != "basic")
        names.append(eqp_method_name(h, da, group_selection, max_split))
    return names


STUDIES: dict[str, list[str]] = {
    "table1": ["BendOCT", "Accelerated BendOCT", "Accelerated (No PBCP)"],
    "fig6a": ["BendOCT", "Strengthened Benders Cuts", "Solution Polishing", "EQP", "PBCP", "PBCP + BSt + BNS"],
    "fig6b": ["All techniques", "Accelerated BendOCT", "Accelerated (No PBCP)", "All - EQP", "All - Polishing"],
    "table3": ["BendOCT", "Strengthened Benders Cuts"],
    "table4": ["BendOCT", "Solution Polishing"],
    "table5": ["BendOCT", "PBCP", "PBCP + BSt + BNS"],
    "fig8": ["BendOCT", *(n for k in (1, 2, 3) for n in _eqp_study(k, disaggregated=False))],
    "fig9": ["BendOCT", *(eqp_method_name(h, da, False, k) for k in (1, 2, 3) for h in ("chain", "recursive")
                          for da in (False, True))],
    "fig10": ["BendOCT", *(n for k in (1, 2, 3) for gs in (False, True) for n in _eqp_study(k, None, gs))],
    "fig11": ["BendOCT", *(eqp_method_name("recursive", True, True, k) for k in (1, 2, 3))],
    "fig12": ["BendOCT", "PBCP", "PBCP + Polishing", "PBCP + BNS", "PBCP + BSt", "PBCP + BSt + BNS",
              "PBCP + BSt + BNS + Polishing"],
}
STUDY_SOURCES = {  # study -> (paper table in odtlib/reference, or None for a figure; caption)
    "table1": ("table1", "Table 1: BendOCT vs the accelerated models"),
    "fig6a": (None, "Fig. 6(a): each technique alone on top of BendOCT"),
    "fig6b": (None, "Fig. 6(b): ablation, all techniques then each one removed"),
    "table3": ("table3", "Table 3 (App. B): strengthened Benders cuts"),
    "table4": ("table4", "Table 4 (App. B): solution polishing"),
    "table5": ("table5", "Table 5 (App. B): path-bound cutting planes"),
    "fig8": (None, "Fig. 8 (App. B): EQP H variants, no DA, no GS, by |F*|"),
    "fig9": (None, "Fig. 9 (App. B): EQP constraint disaggregation"),
    "fig10": (None, "Fig. 10 (App. B): EQP group selection"),
    "fig11": (None, "Fig. 11 (App. B): best EQP variant per |F*| bound"),
    "fig12": (None, "Fig. 12 (App. B): path-bound cut variants"),
}

# Optima published with the paper's per-instance results (../shared/papers/paper_results.md, calibration
# table: the authors' Gurobi runs), accuracy - λ·leaves rounded to 6 decimals: (dataset, depth, λ) -> value.
PUBLISHED_OPTIMA = {
    ("monk1", 2, 0.01): 0.782581, ("monk1", 2, 0.001): 0.818581,
    ("monk3", 2, 0.01): 0.904426, ("monk3", 2, 0.001): 0.931426,
    ("house-votes-84", 2, 0.01): 0.949828, ("house-votes-84", 2, 0.001): 0.967828,
    ("hayes-roth", 2, 0.01): 0.566061, ("hayes-roth", 2, 0.001): 0.602061,
    ("monk3", 3, 0.01): 0.904426, ("monk1", 3, 0.01): 0.861290,
}
AGREEMENT_TOLERANCE = 1e-6


# ---------------------------------------------------------------------------------------- profiles
@dataclass(frozen=True)
class Profile:
    """How much of the paper's grid to run, and with which per-solve time limit (seconds)."""

    name: str
    datasets: tuple[tuple[str, str], ...]     # (dataset, encoding) pairs
    depths: tuple[int, ...]
    lambdas: tuple[float, ...]
    methods: tuple[str, ...]
    time_limit: float
    notes: str = ""
    sampled_methods: tuple[str, ...] = ()    # methods run only on `sample_lambdas` (the slow baselines)
    sample_lambdas: tuple[float, ...] = ()

    @property
    def n_instances(self) -> int:
        """Optimisation instances per method: dataset-encodings x depths x λ."""
        return len(self.datasets) * len(self.depths) * len(self.lambdas)

    def lambdas_of(self, method: str) -> tuple[float, ...]:
        """The λ values ``method`` runs on: the sample for a sampled method, else every λ."""
        return self.sample_lambdas if method in self.sampled_methods else self.lambdas

    @property
    def n_runs(self) -> int:
        return sum(len(self.datasets) * len(self.depths) * len(self.lambdas_of(m)) for m in self.methods)

    def studies(self) -> list[str]:
        """The studies whose methods this profile runs (all of them, or at least two of them)."""
        return [study for study, names in STUDIES.items()
                if sum(name in self.methods for name in names) >= min(2, len(names))]


# hayes-roth is left out: at depth 3 every method hits 60 s on it (measured: 11 of 12 runs, 670 s of the grid's 1525 s)
_QUICK_DATASETS = (("soybean-small", ONE_HOT), ("monk3", ONE_HOT), ("monk1", ONE_HOT), ("house-votes-84", ONE_HOT),
                   ("iris", "QB-5"))
_ALL_METHODS = tuple(dict.fromkeys(name for names in STUDIES.values() for name in names))
FULL_SAMPLE_LAMBDAS = (1e-3, 0.04)   # the full profile's λ sample for the slow baselines

PROFILES = {
    "smoke": Profile(
        "smoke", datasets=(("soybean-small", ONE_HOT), ("monk3", ONE_HOT)), depths=(3,), lambdas=(0.04, 0.08),
        methods=("BendOCT", "Accelerated BendOCT", "PBCP + BSt + BNS"), time_limit=20,
        notes="CI check of the code path: soybean-small and monk3 at depth 3, λ ∈ {0.04, 0.08}, "
              "BendOCT, Accelerated BendOCT and PBCP + BSt + BNS, 20 s per solve."),
    "quick": Profile(
        "quick", datasets=_QUICK_DATASETS, depths=(3,), lambdas=(0.01, 0.04, 0.08),
        methods=("BendOCT", "Accelerated BendOCT", "Accelerated (No PBCP)", "PBCP + BSt + BNS"),
        time_limit=60,
        notes="Five small datasets (iris in QB-5 only) at depth 3, λ ∈ {0.01, 0.04, 0.08}, the methods of "
              "Table 1 plus PBCP + BSt + BNS alone, 60 s per solve (SCIP, one thread)."),
    "full": Profile(
        "full", datasets=DATASETS, depths=DEPTHS, lambdas=LAMBDAS,
        methods=("Accelerated BendOCT", "BendOCT", "Accelerated (No PBCP)"), time_limit=30,
        sampled_methods=("BendOCT", "Accelerated (No PBCP)"), sample_lambdas=FULL_SAMPLE_LAMBDAS,
        notes="Table 1 at scale: Accelerated BendOCT on all 1620 instances (54 dataset-encodings x depths 3-4 x "
              "15 λ); BendOCT and Accelerated (No PBCP) on a λ sample (0.001 and 0.04: 216 instances each, every "
              "dataset-encoding and depth present); 30 s per solve instead of 3600 s (SCIP, one thread). A count "
              "proved within 30 s is a lower bound of the count within an hour. The sample runs first. Estimated "
              "6-7 CPU-hours (about 30 % of the instances stop at the limit, as the paper's hour leaves 28 % of "
              "Accelerated BendOCT's open): over the 4-hour budget because the engine runs the whole grid."),
    "paper": Profile(
        "paper", datasets=DATASETS, depths=DEPTHS, lambdas=LAMBDAS, methods=_ALL_METHODS, time_limit=3600,
        notes="The paper's full grid (1620 instances per method, 1 h per solve) for every method of every "
              "study: meant for a Dask cluster."),
}


def get_profile(name: str, time_limit: float | None = None) -> Profile:
    """The named profile, with its per-solve time limit replaced by ``time_limit`` if given."""
    return select_profile(PROFILES, name, time_limit)


# -------------------------------------------------------------------------------------------- runs
def load(dataset: str, encoding: str = ONE_HOT) -> tuple[pd.DataFrame, pd.Series]:
    """The binary data of paper 003 (Table A.1) for one dataset-encoding, cached per process."""
    X, y, _groups = paper_data("003", dataset, encoding)
    return X, y


def make_model(method: str, depth: int, leaf_penalty: float, solver: str = "scip",
               time_limit: float | None = None, threads: int = 1, seed: int = 0):
    """The RegularizedBendOCT of ``method`` (a key of `METHODS`), exact up to ``time_limit``."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    return RegularizedBendOCT.paper_method(method, depth=depth, leaf_penalty=leaf_penalty, solver=solver,
                                           time_limit=time_limit, threads=threads, seed=seed)


def run(config: dict) -> dict:
    """One optimisation instance: fit ``config["method"]`` on the whole dataset-encoding.

    Metrics: ``fit_time`` (the estimator's whole fit: warm start, model build, solve), ``n_samples``,
    ``n_features``, ``n_leaves``, ``tree_objective`` (accuracy - λ·leaves of the returned tree, recomputed
    from its predictions: it must equal the solver's objective) and ``warm_start_objective``. The solve
    result (status, objective, bound, gap, runtime, nodes, n_lazy, n_cuts, build/handoff/solve timings and
    the solver's ``extra`` counters) and the tree are stored too.
    """
    X, y = load(config["dataset"], config["encoding"])
    model = make_model(config["method"], config["depth"], config["leaf_penalty"], config["solver"],
                       config["time_limit"], config.get("threads", 1))
    tic = time.perf_counter()
    model.fit(X, y)
    fit_time = time.perf_counter() - tic
    accuracy = float(np.mean(model.predict(X) == y.to_numpy()))
    n_leaves = int(model.tree_.n_leaves)
    metrics = {"fit_time": fit_time, "n_samples": len(y), "n_features": X.shape[1], "n_leaves": n_leaves,
               "train_accuracy": accuracy, "tree_objective": accuracy - config["leaf_penalty"] * n_leaves,
               "warm_start_objective": model.warm_start_objective_}
    return {"metrics": metrics, "solve_result": model.solve_result_, "tree": model.tree_,
            "extra": dict(model.solve_result_.extra or {})}


def grid(profile: Profile, solver: str = "scip", threads: int = 1) -> Grid:
    """Every run of the profile: dataset-encoding x depth x λ x method; with a λ sample
    (``sample_lambdas``), first every method on the sample, then the other λ of the unsampled methods."""
    sample = [lam for lam in profile.lambdas if lam in profile.sample_lambdas]
    blocks = [(sample, profile.methods),
              ([lam for lam in profile.lambdas if lam not in sample],
               [m for m in profile.methods if m not in profile.sampled_methods])]
    runs = Grid()
    for lambdas, methods in blocks:
        if not lambdas or not methods:
            continue
        for dataset, encoding in profile.datasets:
            runs = runs + Grid(dataset=dataset, encoding=encoding, depth=list(profile.depths),
                               leaf_penalty=list(lambdas), method=list(methods), solver=solver,
                               time_limit=profile.time_limit, threads=threads)
    return runs


# ------------------------------------------------------------------------------------------ tables
INSTANCE = ["dataset", "encoding", "depth", "leaf_penalty"]


def solved_time_gap(instances: pd.DataFrame, by=("dataset", "method")) -> pd.DataFrame:
    """The paper's three numbers per group of `instance_frame` rows: ``n_solved``, ``mean_time_solved_s``
    (mean runtime of the solved instances), ``mean_gap_unsolved_pct`` (mean gap in % of the unsolved ones;
    NaN if all are solved or no unsolved one has a gap), with ``n_instances`` (finished runs),
    ``pct_solved`` (of the finished runs; NaN if every run failed) and ``n_failed`` (runs that raised:
    failures, left out of every other number)."""
    by = list(by)
    rows = []
    for key, group in instances.groupby(by, sort=False):
        finished = group[~group["failed"]]
        solved, unsolved = finished[finished["solved"]], finished[~finished["solved"]]
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))),
                     "n_instances": len(finished), "n_solved": len(solved),
                     "pct_solved": 100 * len(solved) / len(finished) if len(finished) else np.nan,
                     "mean_time_solved_s": solved["solve_runtime"].mean() if len(solved) else np.nan,
                     "mean_gap_unsolved_pct": unsolved["gap_pct"].mean() if len(unsolved) else np.nan,
                     "n_failed": len(group) - len(finished)})
    return pd.DataFrame(rows)


def table1_ours(instances: pd.DataFrame, methods=None) -> pd.DataFrame:
    """Table 1 (or 3-5 with their ``methods``) from our runs: per dataset (over its encodings, depths and
    λ) and method, Solved / Time / Gap. Defaults to Table 1's methods."""
    methods = list(methods or STUDIES["table1"])
    return solved_time_gap(instances[instances["method"].isin(methods)], by=("dataset", "method"))


def paper_table(table: str, paper_table_frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """A per-dataset table of the paper (``"table1"``, ``"table3"``, ``"table4"``, ``"table5"``) with our
    dataset names, ``n_instances`` (30 for categorical data, 60 with both numeric encodings) and
    ``pct_solved``."""
    from odtlib.experiments.reference import reference_table

    frame = (reference_table("003", table) if paper_table_frame is None else paper_table_frame).copy()
    frame["dataset"] = frame["dataset"].replace(PAPER_NAMES)
    per_dataset = pd.Series(DATASETS).map(lambda pair: pair[0]).value_counts() * len(DEPTHS) * len(LAMBDAS)
    frame["n_instances"] = frame["dataset"].map(per_dataset)
    frame["pct_solved"] = 100 * frame["n_solved"] / frame["n_instances"]
    return frame


def _scope(profile: Profile, paper_instances: int, our_instances: int) -> str:
    if profile.time_limit == 3600 and our_instances == paper_instances:
        return ""
    return (f"ours: {our_instances} of the paper's {paper_instances} instances, "
            f"{profile.time_limit:g} s limit vs 3600 s")


def compare_study(ours: pd.DataFrame, paper: pd.DataFrame, profile: Profile, tolerance: float = 10.0
                  ) -> pd.DataFrame:
    """Ours beside the paper per (dataset, method), for the datasets and methods we ran.

    ``pct_solved`` (share of the dataset's instances proved optimal) is compared with ``tolerance``
    percentage points and a ``scope`` note saying how our grid differs (fewer instances, shorter limit);
    times and gaps are printed side by side, with ``time_verdict`` "not comparable" unless our grid is
    the paper's (same instances, one hour). A cell with failed runs (``ours_n_failed``) is not comparable.
    """
    from odtlib.experiments.reference import compare

    keep = paper["dataset"].isin(ours["dataset"]) & paper["method"].isin(ours["method"])
    paper = paper[keep]
    ours = ours.assign(reason=[failure_note(n) for n in ours["n_failed"]])
    table = compare(ours, paper, on=["dataset", "method"], value="pct_solved", tolerance=tolerance, agg=None,
                    ours_reason="reason")
    table = table.rename(columns={"paper": "paper_pct_solved", "ours": "ours_pct_solved"})
    cols = ["n_instances", "n_solved", "mean_time_solved_s", "mean_gap_unsolved_pct"]
    table = table.merge(paper[["dataset", "method", *cols]].add_prefix("paper_").rename(
        columns={"paper_dataset": "dataset", "paper_method": "method"}), how="left")
    table = table.merge(ours[["dataset", "method", *cols, "n_failed"]].add_prefix("ours_").rename(
        columns={"ours_dataset": "dataset", "ours_method": "method"}), how="left")
    table["scope"] = [_scope(profile, int(p), int(o)) if pd.notna(p) and pd.notna(o) else "missing on one side"
                      for p, o in zip(table["paper_n_instances"], table["ours_n_instances"])]
    failures = [failure_note(n) if pd.notna(n) else "" for n in table["ours_n_failed"]]
    table["time_verdict"] = ["; ".join(filter(None, (scope, failed))) for scope, failed in zip(table["scope"], failures)]
    table["time_verdict"] = ["not comparable: " + why if why else "comparable" for why in table["time_verdict"]]
    return table


def method_totals(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Per method, over the datasets we ran: instances solved and their share, ours and the paper's,
    and each side's rank (1 = most solved; ties share a rank): the ordering is what should carry over.
    Our side also sums ``n_failed`` (failed runs are not instances)."""
    paper = paper[paper["dataset"].isin(ours["dataset"]) & paper["method"].isin(ours["method"])]
    sides = []
    for side, frame in (("ours", ours), ("paper", paper)):
        counts = [c for c in ("n_solved", "n_instances", "n_failed") if c in frame]
        total = frame.groupby("method", sort=False)[counts].sum()
        total["pct_solved"] = 100 * total["n_solved"] / total["n_instances"]
        total["rank"] = total["pct_solved"].rank(ascending=False, method="min").astype(int)
        sides.append(total.add_prefix(f"{side}_"))
    table = sides[0].join(sides[1], how="left").reset_index()
    table["same_rank"] = table["ours_rank"] == table["paper_rank"]
    return table


def tableA1_ours(datasets=DATASETS) -> pd.DataFrame:
    """Table A.1 from our data, one row per dataset-encoding: rows, binary features, classes."""
    rows = []
    for dataset, encoding in datasets:
        X, y = load(dataset, encoding)
        rows.append({"dataset": dataset, "encoding": encoding, "n_samples": len(y),
                     "n_binary_features": X.shape[1], "n_classes": int(y.nunique())})
    return pd.DataFrame(rows)


def tableA1_paper(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table A.1 in the same long shape as `tableA1_ours` (one row per dataset-encoding)."""
    columns = {ONE_HOT: "n_binary_features_categorical_only", "QB-5": "n_binary_features_QB5",
               "QT-5": "n_binary_features_QT5"}
    rows = []
    for record in paper.to_dict("records"):
        encodings = (ONE_HOT,) if record["dataset"] in CATEGORICAL else NUMERIC_ENCODINGS
        for encoding in encodings:
            rows.append({"dataset": record["dataset"], "encoding": encoding, "n_samples": record["n_samples"],
                         "n_binary_features": pd.to_numeric(record[columns[encoding]], errors="coerce"),
                         "n_classes": record["n_classes"]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ optimum cross-check
@cache
def streed_objective(dataset: str, encoding: str, depth: int, leaf_penalty: float,
                     time_limit: float = 600) -> float | None:
    """Accuracy - λ·leaves of STreeD's optimal tree (``cost-complex-accuracy`` with cost_complexity = λ
    charges λ per leaf against the misclassified share, the same objective), or None if ``pystreed`` is
    not installed."""
    try:
        from pystreed import STreeDClassifier
    except ImportError:
        return None
    X, y = load(dataset, encoding)
    X = X.to_numpy()
    _, y = np.unique(y.to_numpy(), return_inverse=True)   # STreeD wants integer labels 0..K-1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=depth,
                                cost_complexity=leaf_penalty, time_limit=time_limit).fit(X, y)
    return float(np.mean(tree.predict(X) == y)) - leaf_penalty * tree.get_n_leaves()


def _published(dataset: str, depth: int, leaf_penalty: float) -> float:
    for (name, d, lam), value in PUBLISHED_OPTIMA.items():
        if name == dataset and d == depth and math.isclose(lam, leaf_penalty):
            return value
    return np.nan


def optimum_crosscheck(instances: pd.DataFrame, use_streed: bool = True) -> pd.DataFrame:
    """Every run proved optimal beside independent optima: ``streed`` (STreeD's optimum; NaN and
    ``streed_check`` "not checked" without pystreed) and ``published`` (`PUBLISHED_OPTIMA`, where
    listed). ``agree`` is True when the solver's objective, the objective recomputed from the returned
    tree and every available independent optimum are within `AGREEMENT_TOLERANCE`."""
    solved = instances[instances["solved"]]
    rows = []
    for record in solved.to_dict("records"):
        key = (record["dataset"], record["encoding"], int(record["depth"]), float(record["leaf_penalty"]))
        streed = streed_objective(*key) if use_streed else None
        published = _published(key[0], key[2], key[3])
        values = [record["solve_objective"], record["tree_objective"], *([streed] if streed is not None else []),
                  *([published] if not np.isnan(published) else [])]
        rows.append({**dict(zip(INSTANCE, key)), "method": record["method"],
                     "objective": record["solve_objective"], "tree_objective": record["tree_objective"],
                     "streed": np.nan if streed is None else streed,
                     "streed_check": "checked" if streed is not None else "not checked (pystreed missing)",
                     "published": published,
                     "agree": bool(max(values) - min(values) <= AGREEMENT_TOLERANCE)})
    columns = [*INSTANCE, "method", "objective", "tree_objective", "streed", "streed_check", "published", "agree"]
    return pd.DataFrame(rows, columns=columns)


def methods_agree(instances: pd.DataFrame) -> pd.DataFrame:
    """Per instance proved optimal by at least two methods: their objectives side by side and whether
    they agree (every method solves the same problem exactly)."""
    solved = instances[instances["solved"]]
    if solved.empty:
        return pd.DataFrame(columns=[*INSTANCE, "agree"])
    table = solved.pivot_table(index=INSTANCE, columns="method", values="solve_objective", aggfunc="first")
    table = table[table.notna().sum(axis=1) >= 2]
    spread = table.max(axis=1) - table.min(axis=1)
    return table.assign(agree=spread <= AGREEMENT_TOLERANCE).reset_index()


def time_to_match(instances: pd.DataFrame, time_limit: float, baseline: str = "BendOCT",
                  profile: Profile | None = None) -> pd.DataFrame:
    """The paper's speed-up measure (Sec. 6.3: BendOCT solves 582 instances in 1 h, the accelerated model
    as many within 12 s, "300x"): per method, instances solved, the time by which it has solved as many
    as ``baseline`` solves within the limit (``time_to_match_s``; NaN if it never does) and
    ``speedup = time_limit / time_to_match_s`` (see `odtlib.experiments.protocol.time_to_match`). With
    ``profile``, a ``speedup_verdict`` column says whether the speed-ups can stand beside the paper's."""
    from odtlib.experiments.protocol import time_to_match as measure

    table = measure(instances, baseline, time_limit)
    if profile is not None:
        table["speedup_verdict"] = speedup_verdict(profile) or "comparable with the paper's 300x"
    return table


def speedup_verdict(profile: Profile) -> str:
    """"" when the profile runs the paper's grid and limit, else why its speed-ups are "not comparable"
    with the paper's 300x (a speed-up measured against a 20 s limit on a few instances means nothing
    beside one measured against an hour on 1620)."""
    paper = PROFILES["paper"]
    if profile.n_instances == paper.n_instances and profile.time_limit == paper.time_limit:
        return ""
    return (f"not comparable: the {profile.name} profile runs {profile.n_instances} of the paper's "
            f"{paper.n_instances} instances per method with a {profile.time_limit:g} s limit "
            f"(paper: {paper.time_limit:g} s)")


def ordering(totals: pd.DataFrame, side: str) -> str:
    """The methods of `method_totals` from most to fewest solved on one side ("ours" or "paper"), ties
    joined by "=": e.g. "Accelerated BendOCT > Accelerated (No PBCP) = BendOCT"."""
    ranked = totals.sort_values([f"{side}_rank", "method"])
    groups = ranked.groupby(f"{side}_rank", sort=True)["method"].agg(lambda names: " = ".join(names))
    return " > ".join(groups)
