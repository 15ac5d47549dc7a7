"""The parameters renamed in odtlib 0.2 (issue 30): ``seed`` -> ``random_state`` on every estimator, and SOCT's
counts of cuts ``initial_cuts``/``benders_cuts``/``user_cuts`` -> ``*_cuts_per_node``. The old names still work
for one release: given, fit warns (FutureWarning naming the new name) and uses their value."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

from odtlib import models
from odtlib.models import FlowOCT, OptimalTreeClassifier, SOCT
from odtlib.models._base import ODTClassifier
from odtlib.solvers import SolverCapabilityWarning

ABSTRACT = (ODTClassifier, models.MIPTreeClassifier)
DETERMINISTIC = (models.ThresholdTreeSearch,)      # no solver seed, no CART start: nothing random to seed
ESTIMATORS = sorted([*(cls for cls in vars(models).values() if inspect.isclass(cls) and issubclass(cls, ODTClassifier)
                       and cls not in ABSTRACT + DETERMINISTIC), OptimalTreeClassifier], key=lambda cls: cls.__name__)
MIP_ESTIMATORS = [cls for cls in ESTIMATORS if issubclass(cls, models.MIPTreeClassifier)]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_estimator_takes_random_state(cls):
    params = cls().get_params()
    assert params["random_state"] == 0
    assert params.get("seed", "deprecated") == "deprecated"    # the old name, where there was one, is unset


@pytest.mark.parametrize("cls", DETERMINISTIC, ids=lambda cls: cls.__name__)
def test_a_deterministic_estimator_has_no_random_state(cls):
    assert not {"random_state", "seed"} & set(cls().get_params())


def test_the_mip_estimators_and_the_front_door_keep_seed_for_one_release():
    assert MIP_ESTIMATORS and all("seed" in cls().get_params() for cls in [*MIP_ESTIMATORS, OptimalTreeClassifier])


def separable_data():
    """Two separable classes on the unit square: x0 <= 0.5 is class 0 (feature 0 alone decides)."""
    X = np.array([[0.1, 0.2], [0.3, 0.9], [0.2, 0.5], [0.8, 0.1], [0.9, 0.7], [0.7, 0.4]])
    return X, np.array([0, 0, 0, 1, 1, 1])


@pytest.fixture
def solver_seeds(monkeypatch):
    """The ``seed`` each fit hands to odtlib.solvers.solve (through the pipeline's own import)."""
    import odtlib.models._pipeline as pipeline

    seen, solve = [], pipeline.solve

    def spy(*args, **kwargs):
        seen.append(kwargs["seed"])
        return solve(*args, **kwargs)

    monkeypatch.setattr(pipeline, "solve", spy)
    return seen


def test_seed_warns_and_acts_as_random_state(solver_seeds):
    X, y = separable_data()
    with pytest.warns(FutureWarning, match="`seed` was renamed `random_state`.*random_state=3"):
        old = FlowOCT(depth=1, seed=3).fit(X > 0.5, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)                 # the new name warns nothing
        new = FlowOCT(depth=1, random_state=3).fit(X > 0.5, y)
        FlowOCT(depth=1).fit(X > 0.5, y)
    assert solver_seeds == [3, 3, 0]                                  # seed=3, random_state=3, the default 0
    assert old.get_params()["seed"] == 3 and old.random_state == 0   # the parameters stay as given
    assert old.tree_.to_text() == new.tree_.to_text()


def test_the_front_door_passes_the_old_seed_on_as_random_state():
    X, y = separable_data()
    with pytest.warns(FutureWarning, match="OptimalTreeClassifier: `seed` was renamed `random_state`"):
        clf = OptimalTreeClassifier(depth=1, splits="hyperplane", solver="highs", seed=4).fit(X, y)
    engine = clf.pipeline_[-1]
    assert engine.random_state == 4 and engine.get_params()["seed"] == "deprecated"


def separation_stats(**params) -> dict:
    X, y = noisy_square()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SolverCapabilityWarning)      # HiGHS: restart loop / root rounds
        clf = SOCT(depth=1, warm_start=False, **params).fit(X, y)
    return {key: clf.separation_stats_[key] for key in ("lp_solves", "initial_cuts")}


def noisy_square():
    """12 random points of the unit square whose labels no single hyperplane separates (depth 1 errs twice),
    so the shattering separation has cuts to find."""
    X = np.random.default_rng(0).random((12, 2))
    y = (X[:, 0] + X[:, 1] > 1).astype(int) ^ (X[:, 0] > 0.7).astype(int)
    return X, y


@pytest.mark.parametrize("old, new, value, switches", [
    ("initial_cuts", "initial_cuts_per_node", 5, {}),
    ("benders_cuts", "benders_cuts_per_node", 10, {"benders_nodes": "root"}),
    ("user_cuts", "user_cuts_per_node", 10, {"user_cut_nodes": "root"}),
])
def test_soct_counts_of_cuts_keep_their_old_names(old, new, value, switches):
    with pytest.warns(FutureWarning, match=f"SOCT: `{old}` was renamed `{new}`.*{new}={value}"):
        through_old = separation_stats(**switches, **{old: value})
    assert through_old == separation_stats(**switches, **{new: value})
    assert through_old != separation_stats(**switches)                # the count was used, not the default
    assert SOCT.PAPER_METHODS["SOCT-init-5"]["initial_cuts_per_node"] == 5
    assert SOCT.PAPER_METHODS["SOCT-benders-last-10"]["benders_cuts_per_node"] == 10


def test_an_old_name_is_validated_like_the_new_one():
    X, y = separable_data()
    with pytest.raises(ValueError, match="'initial_cuts' parameter of SOCT must be an int in the range"):
        SOCT(depth=1, initial_cuts=-1).fit(X, y)
    with pytest.raises(ValueError, match="'seed' parameter of FlowOCT must be an int in the range"):
        FlowOCT(depth=1, seed=-1).fit(X > 0.5, y)
