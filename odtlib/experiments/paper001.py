"""The experiment protocol of paper 001 (Aghaei, Gómez & Vayanos 2020, Section 4), shared by its notebook.

Protocol (the paper's, run by the ``paper`` profile):

* every dataset of Table 1 is split 50 % train / 25 % validation / 25 % test, on 5 random samples;
* for each method, depth and sample, a tree is trained on the train part for every split penalty
  λ ∈ {0, 0.1, ..., 0.9} (the *tuning fits*; BinOCT has no λ and is fitted once) and scored on the
  validation part;
* the λ with the best validation accuracy is refitted on train + validation (the *final fit*) and scored on
  the test part: Table 2 averages these test accuracies over the samples;
* the tuning fits are the paper's optimisation instances (dataset, depth, sample, λ): Figure 3 shows how
  many of them each method solves within t seconds, and their final gaps against the size 2^d·|I|.

Beside the paper's methods, the *exact optimum* column (issue 22) runs the same protocol with a method that
always proves its optimum: ``BendersOCT(engine="accelerated")`` on SCIP, which solves problem (1.1) as paper
003's ``accuracy - λ'·leaves`` with λ' = λ/((1-λ)·N) (:mod:`odtlib.models._accelerated_engine`). Its test
accuracy is what an optimal tree of each Table-2 cell reaches, whatever the time limit did to the paper's
columns. It has its own grid (`exact_tuning_grid`, every λ of the paper's grid) and its own result stores.

`PROFILES` shrinks this grid for free solvers (``smoke``, ``quick``); the code path is the same.
Each run is one config dict executed by `run` (a module-level function, so joblib and Dask can ship it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from odtlib.experiments.grid import Grid
from odtlib.experiments.protocol import failure_note, paper_data, results_of, select_profile, time_to_match
from odtlib.experiments.protocol import instance_frame as _instance_frame
from odtlib.experiments.runner import fit_and_score

__all__ = [
    "DATASETS", "LAMBDAS", "METHODS", "PROFILES", "Profile", "get_profile", "load", "split_sample",
    "make_model", "run", "tuning_grid", "select_lambda", "final_grid", "not_optimal_reasons",
    "table1_ours", "table2_ours", "paper_table2_long", "instance_frame", "objective_agreement",
    "root_lp_bounds", "in_sample_summary", "results_of", "EXACT", "exact_tuning_grid", "table2_exact",
]

DATASETS = ("monk3", "monk1", "monk2", "house-votes-84", "balance-scale", "tic-tac-toe", "car_evaluation",
            "kr-vs-kp")
LAMBDAS = tuple(round(0.1 * j, 1) for j in range(10))
METHODS = ("OCT", "BinOCT", "FlowOCT", "Benders")   # the column order of Table 2
UNREGULARISED = ("BinOCT",)                         # methods without a split penalty: λ = 0 only
EXACT = "exact optimum"                             # BendersOCT(engine="accelerated") on SCIP (module doc)


@dataclass(frozen=True)
class Profile:
    """How much of the paper's grid to run, and with which per-solve time limit (seconds)."""

    name: str
    datasets: tuple[str, ...]
    depths: tuple[int, ...]
    samples: tuple[int, ...]
    lambdas: tuple[float, ...]
    methods: tuple[str, ...]
    time_limit: float
    subsample: int | None = None     # draw this many rows (stratified) before splitting; None = all rows
    tolerance: float = 5.0           # |ours - paper| in accuracy points counted as agreement
    notes: str = ""
    exact_datasets: tuple[str, ...] = ()   # cells (dataset x depth) of the exact-optimum column
    exact_depths: tuple[int, ...] = ()
    exact_lambdas: tuple[float, ...] = LAMBDAS   # its tuning grid (the paper's ten values by default)

    @property
    def n_exact_fits(self) -> int:
        """Tuning plus final fits of the exact-optimum column."""
        return len(self.exact_datasets) * len(self.exact_depths) * len(self.samples) * (len(self.exact_lambdas) + 1)

    @property
    def n_tuning_fits(self) -> int:
        per_cell = sum(1 if m in UNREGULARISED else len(self.lambdas) for m in self.methods)
        return len(self.datasets) * len(self.depths) * len(self.samples) * per_cell

    @property
    def n_final_fits(self) -> int:
        return len(self.datasets) * len(self.depths) * len(self.samples) * len(self.methods)


PROFILES = {
    "smoke": Profile(
        "smoke", datasets=("monk3",), depths=(2,), samples=(0,), lambdas=(0.0, 0.5),
        methods=("FlowOCT", "Benders"), time_limit=20, subsample=40,
        exact_datasets=("monk3",), exact_depths=(2,), exact_lambdas=(0.0, 0.5),
        notes="CI check of the code path: monk3 subsampled to 40 rows (20 train, 10 validation, 10 test)."),
    "quick": Profile(
        "quick", datasets=("monk3", "monk1", "house-votes-84"), depths=(2,), samples=(0,), lambdas=(0.0, 0.5),
        methods=METHODS, time_limit=30, exact_datasets=DATASETS, exact_depths=(2, 3),
        notes="monk3, monk1 and house-votes-84 at depth 2, one sample, λ ∈ {0, 0.5}, 30 s per solve; "
              "exact optimum: all 8 datasets at depths 2-3, the paper's 10 λ values."),
    "paper": Profile(
        "paper", datasets=DATASETS, depths=(2, 3, 4, 5), samples=(0, 1, 2, 3, 4), lambdas=LAMBDAS,
        methods=METHODS, time_limit=3600, tolerance=3.0, exact_datasets=DATASETS, exact_depths=(2, 3, 4, 5),
        notes="The paper's full grid (1 h per solve): meant for a Dask cluster."),
}


def get_profile(name: str, time_limit: float | None = None) -> Profile:
    """The named profile, with its per-solve time limit replaced by ``time_limit`` if given."""
    return select_profile(PROFILES, name, time_limit)


# ----------------------------------------------------------------------------------------------- data
def load(dataset: str) -> tuple[pd.DataFrame, pd.Series]:
    """The one-hot encoded data of paper 001 (Table 1), cached per process."""
    X, y, _groups = paper_data("001", dataset)
    return X, y


def _stratify(y: np.ndarray) -> np.ndarray | None:
    """Stratify on y when every class has at least 2 rows (else sklearn refuses): plain random split."""
    _, counts = np.unique(y, return_counts=True)
    return y if counts.min() >= 2 else None


def split_sample(y, sample: int, subsample: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices (train, validation, test) of one random sample: 50 / 25 / 25 %, stratified by class.

    Deterministic: ``random_state = sample``. With ``subsample``, that many rows are first drawn
    (stratified, same seed) and split the same way.
    """
    y = np.asarray(y)
    rows = np.arange(len(y))
    if subsample is not None and subsample < len(y):
        rows, _ = train_test_split(rows, train_size=subsample, random_state=sample, stratify=_stratify(y))
    rest, test = train_test_split(rows, test_size=0.25, random_state=sample, stratify=_stratify(y[rows]))
    train, validation = train_test_split(rest, test_size=1 / 3, random_state=sample,
                                         stratify=_stratify(y[rest]))
    return np.sort(train), np.sort(validation), np.sort(test)


# ----------------------------------------------------------------------------------------------- runs
def make_model(method: str, depth: int, split_penalty: float, solver: str, time_limit: float | None,
               threads: int = 1, seed: int = 0):
    """The estimator of ``method`` ("OCT", "BinOCT", "FlowOCT", "Benders" or `EXACT`), exact up to
    ``time_limit``."""
    from odtlib.models import OCT, BendersOCT, BinOCT, FlowOCT

    common = dict(depth=depth, solver=solver, time_limit=time_limit, threads=threads, seed=seed)
    if method == EXACT:
        return BendersOCT(split_penalty=split_penalty, engine="accelerated", **common)
    if method == "BinOCT":
        if split_penalty:
            raise ValueError("BinOCT has no split penalty: use split_penalty=0")
        return BinOCT(**common)
    classes = {"OCT": OCT, "FlowOCT": FlowOCT, "Benders": BendersOCT}
    if method not in classes:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return classes[method](split_penalty=split_penalty, **common)


def run(config: dict) -> dict:
    """One fit of the protocol. ``config["stage"]`` is "tune" (train on the train part, score on the
    validation part) or "final" (train on train + validation, score on the test part).

    Metrics: ``train_accuracy``, ``validation_accuracy`` or ``test_accuracy``, ``n_train``, ``n_scored``
    (rows of the validation or test part), ``size``
    (2^d·|I|, the x axis of Fig. 3c), ``n_splits`` and ``regularised_objective`` ((1.1) evaluated on the
    learned tree, comparable across methods), plus the solver's result and the tree.
    """
    X, y = load(config["dataset"])
    train, validation, test = split_sample(y, config["sample"], config.get("subsample"))
    if config["stage"] == "tune":
        fit_rows, score_rows, score_name = train, validation, "validation_accuracy"
    elif config["stage"] == "final":
        fit_rows, score_rows, score_name = np.concatenate([train, validation]), test, "test_accuracy"
    else:
        raise ValueError(f"config['stage'] must be 'tune' or 'final', got {config['stage']!r}")
    model = make_model(config["method"], config["depth"], config["split_penalty"], config["solver"],
                       config["time_limit"], config.get("threads", 1))
    output = fit_and_score(model, X.iloc[fit_rows], y.iloc[fit_rows], X.iloc[score_rows], y.iloc[score_rows])
    metrics = output["metrics"]
    metrics[score_name] = metrics.pop("test_accuracy")
    lam = config["split_penalty"]
    n_correct = metrics["train_accuracy"] * len(fit_rows)
    metrics.update(n_train=len(fit_rows), n_scored=len(score_rows), n_splits=int(model.tree_.n_splits),
                   size=2 ** config["depth"] * len(fit_rows),
                   regularised_objective=(1 - lam) * n_correct - lam * model.tree_.n_splits)
    return output


def _solver_for(method: str, solver: str, benders_solver: str) -> str:
    return benders_solver if method == "Benders" else solver


def tuning_grid(profile: Profile, solver: str = "highs", benders_solver: str = "scip", threads: int = 1) -> Grid:
    """The tuning fits: dataset x depth x sample x method x λ (λ = 0 only for BinOCT)."""
    grid = Grid()
    for method in profile.methods:
        lambdas = (0.0,) if method in UNREGULARISED else profile.lambdas
        grid = grid + Grid(stage="tune", dataset=list(profile.datasets), depth=list(profile.depths),
                           sample=list(profile.samples), method=method, split_penalty=list(lambdas),
                           solver=_solver_for(method, solver, benders_solver), time_limit=profile.time_limit,
                           threads=threads, subsample=profile.subsample)
    return grid


def exact_tuning_grid(profile: Profile, solver: str = "scip", threads: int = 1) -> Grid:
    """The tuning fits of the exact-optimum column: its datasets x depths x samples x every λ of its grid."""
    if not profile.exact_datasets or not profile.exact_depths:
        return Grid()
    return Grid(stage="tune", dataset=list(profile.exact_datasets), depth=list(profile.exact_depths),
                sample=list(profile.samples), method=EXACT, split_penalty=list(profile.exact_lambdas), solver=solver,
                time_limit=profile.time_limit, threads=threads, subsample=profile.subsample)


CELL = ["dataset", "depth", "sample", "method"]


def select_lambda(tuning: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, depth, sample, method), the λ with the best validation accuracy among the fits that
    returned a tree; ties go to the largest λ (the simplest tree). Returns CELL + split_penalty,
    validation_accuracy."""
    ok = tuning[tuning["status"] == "ok"]
    if ok.empty:
        return pd.DataFrame(columns=[*CELL, "split_penalty", "validation_accuracy"])
    ranked = ok.sort_values([*CELL, "validation_accuracy", "split_penalty"], ascending=True)
    best = ranked.groupby(CELL, sort=False).tail(1)
    return best[[*CELL, "split_penalty", "validation_accuracy"]].reset_index(drop=True)


def final_grid(selected: pd.DataFrame, tuning: pd.DataFrame) -> list[dict]:
    """The final fits: each tuning cell's config with ``stage="final"`` and the selected λ."""
    configs = []
    for row in selected.to_dict("records"):
        cell = tuning
        for key in CELL:
            cell = cell[cell[key] == row[key]]
        base = cell.iloc[0]
        configs.append({"stage": "final", "dataset": row["dataset"], "depth": int(row["depth"]),
                        "sample": int(row["sample"]), "method": row["method"],
                        "split_penalty": float(row["split_penalty"]), "solver": base["solver"],
                        "time_limit": base["time_limit"], "threads": int(base["threads"]),
                        "subsample": None if pd.isna(base["subsample"]) else int(base["subsample"])})
    return configs


# --------------------------------------------------------------------------------------------- tables
def table1_ours(datasets=DATASETS) -> pd.DataFrame:
    """Table 1 from our data: rows, one-hot features, classes (long format: dataset, quantity, value)."""
    rows = []
    for name in datasets:
        X, y = load(name)
        rows += [{"dataset": name, "quantity": "n_samples", "value": len(y)},
                 {"dataset": name, "quantity": "n_binary_features", "value": X.shape[1]},
                 {"dataset": name, "quantity": "n_classes", "value": int(y.nunique())}]
    return pd.DataFrame(rows)


def not_optimal_reasons(tuning: pd.DataFrame, final: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, depth, method): ``n_failed`` (fits that raised, tuning and final) and why our accuracy
    is not comparable ("" if every fit of the cell — tuning and final, over all samples — returned a proved
    optimum; failed fits first, then fits stopped at the time limit)."""
    fits = pd.concat([tuning, final], ignore_index=True)
    failed = fits["status"] != "ok"
    unproved = ~failed & (fits["solve_status"] != "optimal")
    counts = fits.assign(failed=failed, unproved=unproved).groupby(["dataset", "depth", "method"]).agg(
        n_failed=("failed", "sum"), unproved=("unproved", "sum"), fits=("failed", "size"))
    reasons = [failure_note(f, n) or (f"ours: {int(k)} of {int(n)} solves not proved optimal (time limit)"
                                      if k else "")
               for f, k, n in zip(counts["n_failed"], counts["unproved"], counts["fits"])]
    return counts.assign(reason=reasons, n_failed=counts["n_failed"].astype(int))[["n_failed", "reason"]].reset_index()


def table2_ours(tuning: pd.DataFrame, final: pd.DataFrame) -> pd.DataFrame:
    """Our test accuracies in % (one row per final fit) with the not-comparable reason of their cell
    (a fit not proved optimal, or a subsample of the rows as in the smoke profile)."""
    ok = final[final["status"] == "ok"].copy()
    ok["test_accuracy"] = 100 * ok["test_accuracy"]
    ok = ok.merge(not_optimal_reasons(tuning, final), on=["dataset", "depth", "method"], how="left")
    ok["n_failed"] = ok["n_failed"].fillna(0).astype(int)
    subsampled = ok["subsample"].notna() if "subsample" in ok else pd.Series(False, index=ok.index)
    ok.loc[subsampled, "reason"] = [f"ours: {int(n)}-row subsample (code-path check)" for n in ok.loc[subsampled, "subsample"]]
    return ok


def table2_exact(paper: pd.DataFrame, tuning: pd.DataFrame, final: pd.DataFrame) -> pd.DataFrame:
    """Every cell (dataset, depth) of the paper's Table 2: its four columns as published, and ``exact optimum``,
    our mean test accuracy (%) of the exact-optimum method over the samples (NaN where the profile does not run
    the cell), with ``exact_proved`` (every tuning and final fit of the cell proved optimal) and its reason
    otherwise."""
    table = paper[["dataset", "depth", *METHODS]].copy()
    if final.empty:
        return table.assign(**{EXACT: np.nan, "exact_proved": pd.NA, "exact_reason": ""})
    ours = table2_ours(tuning, final)
    cells = ours.groupby(["dataset", "depth"]).agg(**{EXACT: ("test_accuracy", "mean"),
                                                      "exact_reason": ("reason", "first")}).reset_index()
    unproved = not_optimal_reasons(tuning, final).groupby(["dataset", "depth"])["reason"].agg(lambda r: (r != "").any())
    cells["exact_proved"] = ~cells.set_index(["dataset", "depth"]).index.map(unproved).astype(bool)
    table = table.merge(cells, on=["dataset", "depth"], how="left")
    table["exact_reason"] = table["exact_reason"].fillna("")
    return table[["dataset", "depth", *METHODS, EXACT, "exact_proved", "exact_reason"]]


def paper_table2_long(paper: pd.DataFrame, profile: Profile) -> pd.DataFrame:
    """The paper's Table 2 in long format (dataset, depth, method, test_accuracy), restricted to the
    profile's datasets, depths and methods."""
    long = paper.melt(id_vars=["dataset", "depth"], value_vars=list(METHODS), var_name="method",
                      value_name="test_accuracy")
    keep = (long["dataset"].isin(profile.datasets) & long["depth"].isin(profile.depths)
            & long["method"].isin(profile.methods))
    return long[keep].reset_index(drop=True)


def instance_frame(tuning: pd.DataFrame) -> pd.DataFrame:
    """The optimisation instances of Fig. 3 (the tuning fits): `odtlib.experiments.protocol.instance_frame`
    (``failed``, ``solved``, ``proved_gap``...) with ``lambda_kind`` ("λ = 0" or "λ > 0")."""
    df = _instance_frame(tuning)
    df["lambda_kind"] = np.where(df["split_penalty"] == 0, "λ = 0", "λ > 0")
    return df


def objective_agreement(tuning: pd.DataFrame) -> pd.DataFrame:
    """Per instance solved to optimality by at least two methods: the objective (1.1) of each method's tree
    and whether they agree (they must: every method solves the same problem exactly)."""
    df = instance_frame(tuning)
    solved = df[df["solved"]]
    table = solved.pivot_table(index=["dataset", "depth", "sample", "split_penalty"], columns="method",
                               values="regularised_objective", aggfunc="first")
    table = table[table.notna().sum(axis=1) >= 2]
    spread = table.max(axis=1) - table.min(axis=1)
    return table.assign(agree=spread < 1e-6).reset_index()


def root_lp_bounds(dataset: str, depth: int, split_penalty: float, sample: int = 0,
                   subsample: int | None = None, solver: str = "highs") -> dict[str, float]:
    """Optimal values of the LP relaxations of FlowOCT (1) and OCT (big-M) on one tuning instance.

    A smaller value is a tighter bound on the (maximised) objective: Section 2.2's argument in numbers.
    """
    import pyomo.environ as pyo

    from odtlib.models import flowoct, oct
    from odtlib.solvers import solve

    X, y = load(dataset)
    train, _, _ = split_sample(y, sample, subsample)
    X_train = X.iloc[train].to_numpy()
    _, y_train = np.unique(y.iloc[train].to_numpy(), return_inverse=True)
    bounds = {}
    for name, module in (("FlowOCT", flowoct), ("OCT", oct)):
        model = module.build_model(X_train, y_train, depth, split_penalty)
        pyo.TransformationFactory("core.relax_integer_vars").apply_to(model)
        bounds[name] = solve(model, solver=solver).objective
    return bounds


BASELINE = {"λ = 0": "BinOCT", "λ > 0": "OCT"}   # the methods the paper measures Benders' speed-up against


def in_sample_summary(instances: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3 in numbers, per λ kind and method: instances (finished fits), ``n_failed`` (fits that raised:
    left out of every other number), solved, largest proved gap, and the paper's speed-up measure
    (`odtlib.experiments.protocol.time_to_match`). The baseline (BinOCT for λ = 0, OCT for λ > 0) solves N
    instances within the limit, the N-th of them after ``baseline_time_s``; ``time_to_match_s`` is when the
    method has solved N, and ``speedup_vs_baseline = baseline_time_s / time_to_match_s`` (the paper:
    3600 s / 140 s and 3600 s / 70 s)."""
    tables = []
    for kind, group in instances.groupby("lambda_kind", sort=True):
        baseline = BASELINE[kind]
        table = time_to_match(group, baseline).sort_values("method", ignore_index=True)
        gaps = group[~group["failed"]].groupby("method")["proved_gap"].max()
        table.insert(0, "lambda_kind", kind)
        table.insert(5, "max_proved_gap_pct", 100 * table["method"].map(gaps))
        table.insert(6, "baseline", baseline if table["baseline_solved"].iloc[0] else "")
        tables.append(table.rename(columns={"speedup": "speedup_vs_baseline"}))
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
