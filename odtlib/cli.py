"""Command line: ``odtlib datasets | fit | reproduce | verify | claims | book`` (also ``python -m odtlib``).

Results go to stdout; progress (one line per solve, per notebook and per grid a notebook runs), warnings and
errors go to stderr.
A problem the user can fix (unknown or missing solver, unavailable data, bad parameters, a time
limit too short for any tree, a model too large for memory) is one line
``odtlib <command>: error: ...`` that says the fix in command-line terms, with exit status 2.
Ctrl-C exits with status 130.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import socket
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from typing import TextIO
from importlib import metadata
from pathlib import Path

from odtlib.experiments.batch import PROFILES
from odtlib.solvers import SOLVERS, SolverNotAvailableError, available_solvers

DEFAULT_ENCODING = "QT-5"          # for the formulations on 0/1 features
UNIT_ENCODING, RAW_ENCODING = "unit", "raw"
DEFAULT_TIME_LIMIT = 60.0
DEFAULT_SOLVER = "highs"           # the paper estimators'; OptimalTreeClassifier picks its own ("auto": SCIP)
OWN_DATA_MODEL = "OptimalTreeClassifier"   # the default model for a file of one's own (--csv, --parquet)
PARQUET_SUFFIXES = (".parquet", ".pq")
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

# Python spellings in library messages -> what to type on the command line
_CLI_WORDING = (
    (re.compile(r"\bwarm_start\s*=\s*(?:True|'cart')"), "--param warm_start=true"),
    (re.compile(r"\bwarm_start\s*=\s*False"), "--param warm_start=false"),
    (re.compile(r"\btime_limit\b"), "--time-limit"),
    (re.compile(r"\bmissing\s*=\s*'category'"), "--missing category"),
    (re.compile(r"\blist_datasets\(\) gives"), "`odtlib datasets` lists"),
    (re.compile(r"\s*fetch_uci\(uci_id\) loads any other UCI dataset\."), ""),
)


class CommandError(Exception):
    """A mistake on the command line, reported as one line (exit status 2)."""


# ---------------------------------------------------------------------------------------------- parser
def _positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _int_at_least(text, 1)


def _non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _int_at_least(text, 0)


def _int_at_least(text: str, minimum: int) -> int:
    """argparse type: an integer >= ``minimum``."""
    return _checked_number(text, int, lambda value: value >= minimum, f"an integer >= {minimum}")


def _positive_float(text: str) -> float:
    """argparse type: a number of seconds > 0."""
    return _checked_number(text, float, lambda value: value > 0, "a number of seconds > 0")


def _fraction(text: str) -> float:
    """argparse type: a fraction strictly between 0 and 1."""
    return _checked_number(text, float, lambda value: 0 < value < 1, "a fraction between 0 and 1")


def _checked_number(text: str, convert, accept, expected: str):
    """``convert(text)`` when it converts and ``accept`` holds for it; otherwise argparse's error, saying what
    was ``expected`` (NaN fails every comparison, so it is refused too)."""
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def _parse_value(text: str):
    """``--param`` values: JSON when it parses (numbers, true/false, null, lists), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def estimator_names() -> list[str]:
    """The classifiers of ``odtlib.models`` (the names in its ``__all__`` that are estimators, the paper
    estimators and :class:`~odtlib.models.OptimalTreeClassifier`; not their base classes, nor the
    meta-estimators around another estimator, such as ``DataSelectedClassifier``)."""
    from sklearn.base import ClassifierMixin, MetaEstimatorMixin

    import odtlib.models

    bases = (odtlib.models.ODTClassifier, odtlib.models.MIPTreeClassifier)
    return [name for name in odtlib.models.__all__
            if isinstance(cls := getattr(odtlib.models, name), type) and issubclass(cls, ClassifierMixin)
            and cls not in bases and not issubclass(cls, MetaEstimatorMixin)]


def _version() -> str:
    """The installed distribution's version (``unknown`` when odtlib runs from an uninstalled tree)."""
    try:
        return metadata.version("odtlib")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Adds "(default: X)" to the help of every option whose default is a value (not None, off or empty)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or action.default == []:
            return action.help
        return super()._get_help_string(action)


def _subparser(sub, name: str, help_text: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".",
                          formatter_class=_HelpFormatter)


def _add_fit_arguments(fit: argparse.ArgumentParser) -> None:
    models = estimator_names()
    source = fit.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", help="dataset name (see `odtlib datasets`)")
    source.add_argument("--csv", metavar="FILE", help="your own table as a CSV file with a header row (a "
                        f"{' or '.join(PARQUET_SUFFIXES)} suffix reads it as Parquet); name the label column "
                        "with --target")
    source.add_argument("--parquet", metavar="FILE", help="your own table as a Parquet file (needs pyarrow: "
                        "pip install 'odtlib[parquet]'); name the label column with --target")
    fit.add_argument("--target", metavar="COLUMN", help="with --csv or --parquet: the column of class labels; "
                     "every other column is a feature")
    fit.add_argument("--variant", help="dataset variant (odtlib.data.load_dataset); ignored with --paper")
    fit.add_argument("--paper", help="fit on the paper's encoded data: odtlib.data.paper_dataset(PAPER, DATASET)")
    fit.add_argument("--encoding", metavar="ENCODING",
                     help=f"input of the model: onehot (every distinct value), QB-k (k quantile buckets) or QT-k "
                          f"(thresholds at the k-quantiles, k >= 2) give 0/1 columns; {UNIT_ENCODING} scales numeric "
                          f"columns to [0, 1] (UnitScaler); {RAW_ENCODING} gives the columns as loaded "
                          f"(CategoricalODT encodes them itself); categorical columns are one-hot except with "
                          f"{RAW_ENCODING} (default: the model's input in the README's table: {RAW_ENCODING} for "
                          f"CategoricalODT and {OWN_DATA_MODEL}, {UNIT_ENCODING} for SOCT, OCTH, UnivariateOCT, "
                          f"SVM1ODT and SVMTreeClassifier, {DEFAULT_ENCODING} for the others; with --paper, the "
                          f"paper's encoding)")
    fit.add_argument("--model", choices=models, metavar="MODEL",
                     help=f"formulation, a class of odtlib.models: {', '.join(models)} (default: "
                          f"{OWN_DATA_MODEL} with --csv or --parquet, FlowOCT with --dataset)")
    fit.add_argument("--depth", type=_positive_int, default=2, help="maximum depth of the tree")
    fit.add_argument("--solver", choices=SOLVERS,
                     help=f"MIP solver (default: {DEFAULT_SOLVER}; {OWN_DATA_MODEL}: scip, which runs the "
                          "callbacks of its exact paths inside the search)")
    fit.add_argument("--time-limit", type=_positive_float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                     help="seconds for the solver; the command line always sets a limit, while in Python "
                          "time_limit=None (the estimators' default) means no limit")
    fit.add_argument("--threads", type=_positive_int, default=1, help="solver threads")
    fit.add_argument("--missing", choices=("error", "category"), default="error",
                     help=f"missing values in the features ({OWN_DATA_MODEL} only): error names the columns; "
                          "category makes NaN a category of its own (numeric columns get an indicator column)")
    fit.add_argument("--test-size", type=_fraction, metavar="FRACTION",
                     help="hold out this fraction of the rows (stratified by class, seed 0), fit on the rest "
                          "and print the test accuracy too")
    fit.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="another estimator parameter, repeatable; VALUE is JSON when it parses "
                          "(e.g. --param split_penalty=0.1 --param warm_start=false)")


def _add_reproduce_arguments(rep: argparse.ArgumentParser) -> None:
    rep.add_argument("--papers", nargs="*", help="paper numbers, e.g. 000 001 (default: every notebook found)")
    rep.add_argument("--profile", choices=PROFILES, default="quick",
                     help="smoke: seconds; quick: minutes on 2 cores; full: the claims' grids, rendered from "
                          "the committed results/full (see --recompute); paper: the paper's protocol")
    rep.add_argument("--recompute", nargs="?", const="missing", choices=("missing", "all"),
                     help="full profile: run the missing and failed runs (or all of them) instead of only "
                          "rendering the stored results")
    rep.add_argument("--results-dir", metavar="PATH",
                     help="full profile: folder of the stored results (default: results/full of the checkout)")
    rep.add_argument("--update-figures", action="store_true",
                     help="afterwards redraw the papers' key figures (figures/paper<NNN>/*.svg) from the stored "
                          "results, as `odtlib figures` does; without it nothing in figures/ changes")
    rep.add_argument("--jobs", type=_positive_int, default=1, help="parallel runs inside each notebook (n_jobs)")
    rep.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    rep.add_argument("--solver", default="highs", choices=SOLVERS, help="MIP solver passed to the notebooks")
    rep.add_argument("--time-limit", type=_positive_float, metavar="SECONDS",
                     help="seconds per solve (default: the profile's)")
    rep.add_argument("--output", default="results/reproduce", help="output folder")
    rep.add_argument("--notebooks-dir",
                     help="folder of the paper<NNN>_*.ipynb notebooks (default: ./notebooks, else the "
                          "notebooks/ folder of the odtlib checkout this package is installed from)")
    rep.add_argument("--timeout", type=_positive_float, metavar="SECONDS", help="per-cell execution timeout in seconds")
    rep.add_argument("--log-output", action="store_true",
                     help="stream the notebooks' output and the kernel's messages to stderr")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="odtlib", description="Optimal decision trees by MIP: "
                                     "datasets, single fits and batch reproduction of the papers.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    datasets = _subparser(sub, "datasets", "list the registered datasets with rows and classes")
    datasets.add_argument("--names-only", action="store_true", help="do not load the data (no counts)")
    _add_fit_arguments(_subparser(sub, "fit", "fit one model on a registered dataset or on your own CSV or Parquet "
                                  "file and print the tree and the solve result"))
    _add_reproduce_arguments(_subparser(sub, "reproduce", "execute the paper notebooks with papermill and "
                                        "write a report"))
    ver = _subparser(sub, "verify", "re-solve a random sample of stored proved optima and check them, and check "
                     "the trees of a sample of time-limited runs against their incumbents and bounds")
    ver.add_argument("results_dir", nargs="?", default="results/full", help="stored results")
    ver.add_argument("--papers", nargs="*", help="paper numbers (default: every paper stored)")
    ver.add_argument("--sample", type=_positive_int, default=50, help="optima per paper")
    ver.add_argument("--incumbents", type=_non_negative_int, default=50,
                     help="time-limited runs per paper whose stored tree is checked against the stored incumbent "
                          "objective and bound, without solving (papers 001 and 003; 0: none)")
    ver.add_argument("--seed", type=int, default=0, help="seed of the sample")
    ver.add_argument("--max-runtime", type=_positive_float, metavar="SECONDS",
                     help="sample only optima whose stored solve took at most this long")
    led = _subparser(sub, "claims",
                     "print the claims ledger: which of the papers' claims hold, from the stored results")
    led.add_argument("--papers", nargs="*", help="paper numbers (default: all five)")
    led.add_argument("--results-dir", metavar="PATH", help="stored results (default: results/full of the checkout)")
    led.add_argument("--summary", action="store_true", help="only the verdicts counted per paper")
    led.add_argument("--readme", metavar="README", help="rewrite the summary table between the README's markers")
    book = _subparser(sub, "book", "build the static site: README, claims ledger, executed notebooks, API")
    book.add_argument("--runs", nargs="*", default=["runs/full", "runs/quick"], metavar="FOLDER",
                      help="odtlib reproduce outputs whose executed notebooks the book shows, first found first")
    book.add_argument("--output", default="book/_build/html", help="the site's folder")
    book.add_argument("--results-dir", metavar="PATH", help="stored results (default: results/full of the checkout)")
    fig = _subparser(sub, "figures", "rewrite the key figures (figures/paper<NNN>/*.svg) from the stored results")
    fig.add_argument("--papers", nargs="*", help="paper numbers (default: all five)")
    fig.add_argument("--results-dir", metavar="PATH", help="stored results (default: results/full of the checkout)")
    fig.add_argument("--output", metavar="PATH", help="the figures folder (default: figures/ of the checkout)")
    data = _subparser(sub, "data", "manage the datasets' raw files")
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    mirror = _subparser(data_sub, "mirror", "fetch every registered dataset once and copy its raw files to PATH, "
                        "laid out as ODTLIB_DATA_MIRROR expects (<slug>/<file>)")
    mirror.add_argument("path", metavar="PATH", help="the mirror folder to fill")
    mirror.add_argument("--datasets", nargs="*", help="dataset names (default: every registered dataset)")
    return parser


# ---------------------------------------------------------------------------------------------- helpers
def cli_wording(message: str) -> str:
    """``message`` with Python parameter spellings replaced by the command-line options."""
    for pattern, option in _CLI_WORDING:
        message = pattern.sub(option, message)
    return message


def check_solver(name: str) -> None:
    """Fail early, before loading data, when ``name`` is not installed here (argparse checks it is known)."""
    from odtlib.solvers.core import backend_class

    try:
        backend_class(name)
    except SolverNotAvailableError as exc:
        installed = ", ".join(available_solvers()) or "none"
        raise CommandError(f"{exc}; or choose an installed solver with --solver ({installed})") from None


def model_input(model_cls) -> str:
    """What a model trains on, as the README's estimator table says: ``"raw"`` (CategoricalODT and
    OptimalTreeClassifier encode a mixed frame themselves), ``"unit"`` (real features in [0, 1]: the hyperplane
    and SVM models) or ``"binary"``."""
    from odtlib.models import CategoricalODT, OptimalTreeClassifier

    if issubclass(model_cls, (CategoricalODT, OptimalTreeClassifier)):
        return RAW_ENCODING
    return "binary" if getattr(model_cls, "requires_binary_features", True) else UNIT_ENCODING


def default_encoding(model_cls) -> str:
    """``--encoding``'s default for a model: its own input (QT-5 for the formulations on 0/1 features)."""
    kind = model_input(model_cls)
    return DEFAULT_ENCODING if kind == "binary" else kind


def make_encoder(name: str):
    """An unfitted encoder for ``--encoding``: ``onehot``, ``QB-k`` or ``QT-k`` (the names of
    :mod:`odtlib.data.papers`, whose scheme table this reuses; two-valued columns keep one indicator),
    ``unit`` (:class:`~odtlib.encoders.UnitScaler`) or ``raw`` (None: the columns as loaded)."""
    from odtlib.data.papers import _ENCODERS
    from odtlib.encoders import OneHotEncoder, UnitScaler

    key = name.strip().upper().replace("_", "-")
    if key == RAW_ENCODING.upper():
        return None
    if key == UNIT_ENCODING.upper():
        return UnitScaler()
    if key == "ONEHOT":
        return OneHotEncoder(drop_binary=True)
    scheme, _, k = key.partition("-")
    if scheme not in _ENCODERS or not k.isdigit() or int(k) < 2:
        schemes = ", ".join(f"{s}-k" for s in _ENCODERS)
        raise CommandError(f"unknown --encoding {name!r}: use onehot, {schemes} with an integer k >= 2 "
                           f"(e.g. {DEFAULT_ENCODING}), {UNIT_ENCODING} or {RAW_ENCODING}")
    return _ENCODERS[scheme](k=int(k), drop_binary=True)


def check_encoding(model_name: str, model_cls, encoding: str) -> None:
    """Refuse an ``--encoding`` whose output the model cannot take, saying which ones it can."""
    key, kind = encoding.strip().lower(), model_input(model_cls)
    binary_ones = f"onehot, QB-k or QT-k (default {DEFAULT_ENCODING})"
    if model_name == OWN_DATA_MODEL and key != RAW_ENCODING:
        raise CommandError(f"{OWN_DATA_MODEL} encodes the columns itself (every class-change threshold of the "
                           "numeric ones): leave out --encoding")
    if kind == "binary" and key in (UNIT_ENCODING, RAW_ENCODING):
        raise CommandError(f"{model_name} needs 0/1 features: use --encoding {binary_ones}")
    if kind == UNIT_ENCODING and key == RAW_ENCODING:
        raise CommandError(f"{model_name} needs numeric features in [0, 1]: use --encoding {UNIT_ENCODING} "
                           f"(the default) or {binary_ones}")


def missing_values_error(name: str, variant: str | None, X) -> CommandError:
    """The error for a dataset whose columns have missing values: every such column, and the variants of
    the registry that remove them (rows dropped, or the marker kept as a category)."""
    counts = X.isna().sum()
    columns = ", ".join(f"{column} ({n} row{'s' * (n != 1)})" for column, n in counts[counts > 0].items())
    fixes = [f"--variant {v.name} ({v.description or 'rows with a missing value dropped'})"
             for v in _missing_value_variants(name)]
    advice = ("choose " + ", or ".join(fixes)) if fixes else \
        "this dataset has no variant without them; drop or impute them in Python (odtlib.data.load_dataset)"
    shown, n_columns = (f" (variant {variant})" if variant else ""), int((counts > 0).sum())
    return CommandError(f"{name}{shown} has missing values in {n_columns} column{'s' * (n_columns != 1)}: {columns}; "
                        f"{advice}; `odtlib datasets` lists the variants")


def _missing_value_variants(name: str) -> list:
    """The registry's variants of dataset ``name`` that remove its missing values (``complete``: rows
    dropped; ``missing-as-category``: the marker kept as a category)."""
    from odtlib.data.registry import get_spec

    return [v for key, v in get_spec(name).variants.items()
            if key != "default" and (v.complete or v.missing_as_category)]


def dataset_note(name: str, X) -> str:
    """``odtlib datasets``'s note: the columns with missing values and the dataset's variants."""
    from odtlib.data import list_variants

    notes = []
    n_columns, n_rows = int(X.isna().any().sum()), int(X.isna().any(axis=1).sum())
    if n_columns:
        fixes = [v.name for v in _missing_value_variants(name)]
        notes.append(f"missing values in {n_columns} column{'s' * (n_columns != 1)}, {n_rows} row{'s' * (n_rows != 1)}"
                     + (f" (use --variant {' or '.join(fixes)})" if fixes else " (drop or impute them)"))
    variants = [v for v in list_variants(name) if v != "default"]
    if variants:
        notes.append(f"variants: {', '.join(variants)}")
    return "; ".join(notes)


def data_source(args) -> str:
    """How the output names the data: the dataset's name, or the file's name."""
    return args.dataset or Path(args.csv or args.parquet).name


def read_table(path: str, parquet: bool = False):
    """The table in ``path`` as a DataFrame: Parquet when ``parquet`` or the name ends in ``.parquet``/``.pq``
    (pyarrow, the optional ``parquet`` extra), else CSV with a header row (empty fields are NaN)."""
    import pandas as pd

    file = Path(path)
    if not file.is_file():
        raise CommandError(f"no such file: {path}")
    if not (parquet or file.suffix.lower() in PARQUET_SUFFIXES):
        return pd.read_csv(file)
    try:
        import pyarrow  # noqa: F401 - only checks that the optional extra is installed
    except ImportError:
        raise CommandError(f"reading the Parquet file {path} needs pyarrow: pip install 'odtlib[parquet]' "
                           "(or save the table as CSV and pass --csv)") from None
    return pd.read_parquet(file, engine="pyarrow")


def _named_columns(columns) -> str:
    """Up to 20 column names, quoted, for an error message."""
    names = [repr(str(c)) for c in columns]
    return ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")


def split_target(frame, target: str | None, source: str):
    """``(X, y)``: the columns of ``frame`` but ``target``, and ``target``; a missing or wrong ``--target``, a
    table with no other column and labels with missing values are refused, naming the columns."""
    if target is None:
        raise CommandError(f"--target is needed with a file: name the label column of {source}, one of "
                           f"{_named_columns(frame.columns)}")
    frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
    if target not in frame.columns:
        raise CommandError(f"--target {target!r} is not a column of {source}; its columns are "
                           f"{_named_columns(frame.columns)}")
    if frame.shape[1] < 2:
        raise CommandError(f"{source} has only the column {target!r}: a tree needs feature columns too")
    y = frame[target]
    if y.isna().any():
        raise CommandError(f"{int(y.isna().sum())} rows of {source} have no label in {target!r}: drop them")
    return frame.drop(columns=target), y


def file_missing_error(source: str, X) -> CommandError:
    """The error for a file whose feature columns have missing values, naming them and the fix."""
    counts = X.isna().sum()
    columns = ", ".join(f"{column} ({n} row{'s' * (n != 1)})" for column, n in counts[counts > 0].items())
    return CommandError(f"{source} has missing values in {columns}: drop or impute them, or fit {OWN_DATA_MODEL} "
                        f"with --missing category")


def _load_table(args):
    """The raw features and labels ``(X, y)`` of ``--dataset`` or of the file, whose missing values only
    :class:`~odtlib.models.OptimalTreeClassifier` with ``--missing category`` takes."""
    from odtlib import data

    if args.dataset:
        dataset = data.load_dataset(args.dataset, args.variant)
        X, y = dataset.X, dataset.y
    else:
        X, y = split_target(read_table(args.csv or args.parquet, parquet=bool(args.parquet)), args.target,
                            data_source(args))
    keeps_missing = args.model == OWN_DATA_MODEL and args.missing == "category"
    if X.isna().any().any() and not keeps_missing:
        raise (missing_values_error(args.dataset, args.variant, X) if args.dataset
               else file_missing_error(data_source(args), X))
    return X, y


def _load_xy(args, model_cls):
    """The data ``(X, y, groups, encoder)``: the paper's encoding with ``--paper`` (``encoder`` None), else the
    raw table and the unfitted encoder of ``--encoding`` (by default the model's own input,
    :func:`default_encoding`; None for the raw columns). ``groups`` are the paper encoding's feature groups
    (None otherwise; the CLI's encoder gives them once fitted), with which the tree prints in the original
    columns."""
    from odtlib import data

    if args.paper:
        if args.model == OWN_DATA_MODEL:
            raise CommandError(f"{OWN_DATA_MODEL} encodes the raw columns itself: leave out --paper")
        return (*data.paper_dataset(args.paper, args.dataset, encoding=args.encoding), None)
    encoding = args.encoding or default_encoding(model_cls)
    check_encoding(args.model, model_cls, encoding)
    encoder = make_encoder(encoding)
    X, y = _load_table(args)
    return X, y, None, encoder


def hold_out(X, y, test_size: float | None):
    """``(X_train, y_train, X_test, y_test)``: a split stratified by class with seed 0 (plain when a class has
    too few rows to stratify), or every row for training and None for the test part."""
    from sklearn.model_selection import train_test_split

    if test_size is None:
        return X, y, None, None
    try:
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_size, random_state=0, stratify=y)
    except ValueError:  # a class of one row, or fewer test rows than classes
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_size, random_state=0)
    return X_train, y_train, X_test, y_test


def _check_fit_options(args) -> None:
    """Refuse options that do not go together (argparse makes --dataset, --csv and --parquet exclusive)."""
    if args.dataset and args.target:
        raise CommandError("--target names the label column of a --csv or --parquet file; a --dataset has its "
                           "labels already")
    if not args.dataset and (args.variant or args.paper):
        raise CommandError("--variant and --paper choose among a --dataset's versions; leave them out with a file")
    if args.missing == "category" and args.model != OWN_DATA_MODEL:
        raise CommandError(f"--missing category is {OWN_DATA_MODEL}'s; {args.model} takes no missing values "
                           f"(use --model {OWN_DATA_MODEL})")


def _estimator_params(args, model_cls) -> dict:
    """Keyword arguments for the estimator: the options it accepts, then every ``--param``."""
    accepted = model_cls().get_params()
    solver = args.solver or ("auto" if args.model == OWN_DATA_MODEL else DEFAULT_SOLVER)
    params = {"depth": args.depth, "solver": solver, "time_limit": args.time_limit, "threads": args.threads,
              "missing": args.missing}
    params = {k: v for k, v in params.items() if k in accepted}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or name not in accepted:
            raise CommandError(f"bad --param {item!r}: expected NAME=VALUE with NAME one of "
                               f"{', '.join(sorted(accepted))}")
        params[name] = _parse_value(value)
    return params


@contextlib.contextmanager
def _progress(what: str) -> Iterator[dict]:
    """One progress line on stderr: ``what ...`` now, then the outcome the block puts in
    ``outcome["status"]`` (or ``failed``/``interrupted``) and the elapsed time."""
    print(f"{what} ... ", end="", file=sys.stderr, flush=True)
    outcome = {"status": "done"}
    tic = time.perf_counter()
    try:
        yield outcome
    except KeyboardInterrupt:
        outcome["status"] = "interrupted"
        raise
    except BaseException:
        outcome["status"] = "failed"
        raise
    finally:
        print(f"{outcome['status']} in {time.perf_counter() - tic:.1f} s", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _notebook_chatter(shown: bool) -> Iterator[TextIO]:
    """Keep stdout for results while notebooks run: yields a stream on the real stderr (for progress)
    and points file descriptors 1 and 2, which the kernels papermill starts inherit and C libraries
    write to, at stderr when ``shown`` (with papermill's log of the cells' output), else at /dev/null."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    progress = os.fdopen(os.dup(saved[2]), "w", buffering=1)
    target = os.dup(saved[2]) if shown else os.open(os.devnull, os.O_WRONLY)
    handler = logging.StreamHandler(progress)
    papermill_log = logging.getLogger("papermill")
    if shown:
        papermill_log.addHandler(handler)
        papermill_log.setLevel(logging.INFO)
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield progress
    finally:
        papermill_log.removeHandler(handler)
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(target)
        progress.close()


def kept_runs(output: str | os.PathLike) -> int:
    """Run records the notebooks stored under ``output`` (``paper<NNN>/results/<experiment>/``)."""
    from odtlib.experiments.store import ResultStore

    return sum(len(ResultStore(folder)) for folder in Path(output).glob("paper*/results/*") if folder.is_dir())


# ---------------------------------------------------------------------------------------------- commands
def _cmd_datasets(args) -> int:
    from odtlib.data import list_datasets, load_dataset

    names = list_datasets()
    if args.names_only:
        print("\n".join(names))
        return 0
    rows, failed = [], 0
    for name in names:
        try:
            data = load_dataset(name)
            rows.append((name, str(len(data.X)), str(data.X.shape[1]), str(data.y.nunique()),
                         dataset_note(name, data.X)))
        except Exception as exc:  # noqa: BLE001 - list what loads, say why the rest does not
            failed += 1
            rows.append((name, "", "", "", f"unavailable: {exc}"))
    header = ("dataset", "rows", "features", "classes", "note")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + ("  " + row[4] if row[4] else ""))
    return 1 if failed else 0


def readable_tree(model, groups) -> str:
    """The fitted tree as text in the original columns: through the encoder's ``groups`` (the CLI's) or the
    model's own encoder (CategoricalODT on raw columns)."""
    own = getattr(model, "encoder_", None)
    groups = groups if groups is not None else getattr(own, "groups_", None)
    return model.tree_.to_text(groups=groups)


def _cmd_fit(args) -> int:
    import odtlib.models

    args.model = args.model or ("FlowOCT" if args.dataset else OWN_DATA_MODEL)
    _check_fit_options(args)
    model_cls = getattr(odtlib.models, args.model)
    params = _estimator_params(args, model_cls)
    if "solver" in params:  # not SVMTreeClassifier, a heuristic
        check_solver("scip" if params["solver"] == "auto" else params["solver"])
    X, y, groups, encoder = _load_xy(args, model_cls)
    X, y, X_test, y_test = hold_out(X, y, args.test_size)
    if encoder is not None:
        X, groups = encoder.fit_transform(X, y), encoder.groups_
        X_test = None if X_test is None else encoder.transform(X_test)
    if groups is not None and "groups" in model_cls().get_params() and "groups" not in params:
        params["groups"] = groups  # CategoricalODT on an encoding of the CLI: its subset tests need the groups
    source = data_source(args)
    depth = f" depth={params['depth']}" if "depth" in params else ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _progress(f"fit {args.model}{depth} on {source} ({X.shape[0]} rows x {X.shape[1]} features)") \
                as outcome:
            model = model_cls(**params).fit(X, y)
            result = model.solve_result_
            outcome["status"] = "done (no solver: a heuristic)" if result is None else result.status
        test = "" if X_test is None else \
            f", test accuracy {model.score(X_test, y_test):.4f} ({len(y_test)} rows held out)"
    for warning in caught:
        print(f"odtlib fit: warning: {cli_wording(str(warning.message))}", file=sys.stderr)
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items() if k != "groups")
    print(f"{args.model}({shown}) on {source}: "
          f"{X.shape[0]} rows x {X.shape[1]} features, training accuracy {model.score(X, y):.4f}{test}")
    if hasattr(model, "path_"):
        print(f"path: {model.path_}")
    print(readable_tree(model, groups))
    if result is not None:
        print(json.dumps(result.to_dict() if hasattr(result, "to_dict") else result, indent=2, default=str))
    return 0


def _cmd_book(args) -> int:
    from odtlib.experiments.book import build

    index = build(args.output, runs=args.runs, results_dir=args.results_dir)
    print(f"book: {index} (open it in a browser)")
    return 0


def _cmd_figures(args) -> int:
    from odtlib.experiments.key_figures import write_key_figures

    for path in write_key_figures(args.papers, results_dir=args.results_dir, root=args.output):
        print(path)
    return 0


def _cmd_data(args) -> int:
    from odtlib.data.mirror import build_mirror

    written = build_mirror(args.path, args.datasets, progress=sys.stderr)
    print(f"{args.path}: {len(written)} file(s); use it offline with ODTLIB_DATA_MIRROR={args.path}")
    return 0


def _cmd_claims(args) -> int:
    from odtlib.experiments.claims import PAPERS, ledger, summary, update_readme
    from odtlib.experiments.report import markdown_table

    if args.readme:
        changed = update_readme(args.readme, results_dir=args.results_dir)
        print(f"{args.readme}: claims summary {'updated' if changed else 'already current'}")
        return 0
    table = ledger(args.papers or PAPERS, results_dir=args.results_dir)
    if args.summary:
        print(markdown_table(summary(table)))
    else:
        print(markdown_table(table[["id", "claim", "source", "paper_value", "ours", "unit", "verdict", "reasoning"]]))
    return 0


def _cmd_verify(args) -> int:
    from odtlib.experiments.verify import mismatches, verify

    try:
        checked = verify(args.results_dir, papers=args.papers, sample=args.sample, seed=args.seed,
                         max_runtime=args.max_runtime, progress=sys.stdout, incumbents=args.incumbents)
    except (FileNotFoundError, ValueError) as exc:
        print(f"odtlib verify: {exc}", file=sys.stderr)
        return 1
    bad = mismatches(checked)
    optima, incumbents = (checked[checked["kind"] == kind] for kind in ("optimum", "incumbent"))
    print(f"{int((optima['check'] == 'ok').sum())} of {len(optima)} optima verified; "
          f"{int((optima['check'] == 'not re-proved').sum())} not re-proved within the limit; "
          f"{int((incumbents['check'] == 'ok').sum())} of {len(incumbents)} incumbents' trees within their "
          f"objective and bound; {len(bad)} mismatches")
    if len(bad):
        print(bad[["paper", "experiment", "kind", "config", "stored_objective", "stored_bound", "resolved_objective",
                   "tree_objective", "check"]].to_string(index=False))
    return 1 if len(bad) else 0


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """Fail fast when nothing listens at a Dask scheduler's TCP address (``tcp://host:port`` or
    ``host:port``); other protocols (``tls://``, ``inproc://``, ...) are left to Dask."""
    scheme, sep, rest = address.partition("://")
    if sep and scheme != "tcp":
        return
    host, colon, port = (rest if sep else address).rpartition(":")
    if not colon or not port.isdigit():
        raise CommandError(f"bad --scheduler {address!r}: expected tcp://HOST:PORT (e.g. tcp://localhost:8786)")
    try:
        socket.create_connection((host.strip("[]") or "localhost", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise CommandError(f"no Dask scheduler answers at {address} ({exc.strerror or exc}): start one there "
                           "(`dask scheduler`, then `dask worker ADDRESS`), or leave out --scheduler to run on "
                           "local processes") from None


def check_papers(papers, notebooks_dir) -> None:
    """Fail before running anything when ``--papers`` names a notebook that does not exist, listing the
    valid ids (paper numbers and the teaching notebooks' names)."""
    from odtlib.experiments.batch import default_notebooks_dir, find_notebooks, notebook_id

    if not papers:
        return
    folder = notebooks_dir or default_notebooks_dir()
    try:
        find_notebooks(folder, papers)
    except FileNotFoundError as exc:
        valid = " ".join(notebook_id(p) for p in find_notebooks(folder)) if Path(folder).is_dir() else "none"
        raise CommandError(f"{exc}; valid --papers: {valid}") from None


def _quiet_after_interrupt() -> None:
    """After Ctrl-C, silence what the interrupted kernel's clean-up logs (nbclient's DeadKernelError from
    pending asyncio tasks, papermill's messages): the one-line message says what happened."""
    for name in ("asyncio", "papermill", "nbclient", "traitlets"):
        logging.getLogger(name).disabled = True


def _cmd_reproduce(args) -> int:
    from odtlib.experiments.batch import reproduce

    check_solver(args.solver)
    check_papers(args.papers, args.notebooks_dir)
    if args.scheduler:
        check_scheduler(args.scheduler)
    try:
        with _notebook_chatter(shown=args.log_output) as progress:
            runs = reproduce(papers=args.papers, profile=args.profile, n_jobs=args.jobs, scheduler=args.scheduler,
                             output_dir=args.output, notebooks_dir=args.notebooks_dir, solver=args.solver,
                             time_limit=args.time_limit, execution_timeout=args.timeout,
                             log_output=args.log_output, progress=progress,
                             recompute={None: False, "missing": True, "all": "all"}[args.recompute],
                             results_dir=args.results_dir)
    except KeyboardInterrupt:
        _quiet_after_interrupt()
        print(f"odtlib reproduce: interrupted; rerun the same command to resume "
              f"({kept_runs(args.output)} runs kept in {args.output})", file=sys.stderr)
        return EXIT_INTERRUPTED
    if not runs:
        print(f"odtlib reproduce: no paper<NNN>_*.ipynb notebooks in {args.notebooks_dir}", file=sys.stderr)
        return 1
    for run in runs:
        print(f"{notebook_label(run.paper)}  {run.status:6s}  {run.runtime:7.1f} s  {run.notebook.name}"
              + (f"  {run.error}" if run.error else ""))
    print(f"report: {args.output}/report.md and report.html")
    if args.update_figures:
        _update_key_figures([run.paper for run in runs if run.paper.isdigit()], args.results_dir)
    return 1 if any(run.status != "ok" for run in runs) else 0


def _update_key_figures(papers: list[str], results_dir: str | None) -> None:
    """Redraw the key figures of ``papers`` from the stored results (``reproduce --update-figures``)."""
    from odtlib.experiments.key_figures import write_key_figures

    for path in write_key_figures(papers, results_dir=results_dir):
        print(f"figure: {path}")


def notebook_label(notebook: str) -> str:
    """``paper 001`` for a paper's notebook id, ``notebook tutorial_mip_trees`` for a teaching notebook."""
    return f"paper {notebook}" if notebook.isdigit() else f"notebook {notebook}"


def _fix_for(exc: BaseException) -> str:
    """The one-line error for an exception the user can act on."""
    if isinstance(exc, MemoryError):
        return ("out of memory building or solving the model: use fewer binary features "
                "(e.g. --encoding QT-3), a smaller --depth or a smaller dataset")
    return cli_wording(str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``odtlib`` command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args = _parser().parse_args(argv)
    command = {"datasets": _cmd_datasets, "fit": _cmd_fit, "reproduce": _cmd_reproduce,
               "verify": _cmd_verify, "claims": _cmd_claims, "book": _cmd_book,
               "figures": _cmd_figures, "data": _cmd_data}[args.command]
    try:
        return command(args)
    except KeyboardInterrupt:
        print(f"odtlib {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (CommandError, FileNotFoundError, KeyError, ValueError, RuntimeError, MemoryError) as exc:
        print(f"odtlib {args.command}: error: {_fix_for(exc)}", file=sys.stderr)
        return EXIT_ERROR
