"""The claims ledger: which of the papers' headline claims hold on free solvers.

Each paper's claims are declared in ``odtlib/reference/claims_<NNN>.toml``, one ``[[claim]]`` table each:

``id``          "003-1", ...
``statement``   the claim in our words, with the number that carries it
``source``      the table or figure it comes from ("Table 1", "Fig. 4(d)", "Sec. 6.3")
``experiment``  the stored experiment that tests it (``results/full/paper<NNN>/<experiment>.csv.gz``)
``metric``      what we compute, in words
``compute``     the name of the function that computes our number (registered with `metric`)
``args``        keyword arguments of that function (optional)
``paper_value`` the paper's number
``tolerance``   how far ours may be from it
``direction``   "at_least" (ours >= paper - tolerance confirms), "at_most", or "within" (|ours - paper| <= tolerance)
``unit``        "points", "instances", "s", ... (optional)
``not_tested``  why the claim cannot be tested here (non-public data, a commercial solver's internals)
``reasoning``   one sentence that explains the verdict beyond the numbers (optional)

A compute function takes the paper's `StoredResults` and the ``args`` and returns a `Measured`: our
number, how many runs carry it, a scope note, and whether it is a *bound* of the number under the paper's
protocol (a count proved within a shorter time limit is a lower bound of the count within the paper's
limit). It may also decide the verdict itself (for claims with several parts: "partly", saying what holds).

`ledger()` reads every claims file, computes our numbers from the stored results and returns one row per
claim with its verdict: confirmed, refuted, partly, or not tested (with why). A bound that falls on the
wrong side of the paper's number settles nothing: such a claim stays "not tested" and says so, unless the
function also gives a *ceiling* (the most its count can still reach once the missing runs are stored) that falls
below the paper's number: then the claim is refuted whatever the missing runs give.

**Provisional verdicts.** While a full run goes on, a compute function may already give a number from the runs
stored so far; it states its coverage in its note as "X of Y runs ... stored". A verdict drawn while X < Y is
*provisional* (column ``provisional``; the reasoning starts by saying so, and `summary` counts such verdicts in
a column of their own): the missing runs may still change it. A verdict settled by a ceiling is not provisional.
"""
from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import import_module, resources
from pathlib import Path

import pandas as pd

from odtlib.experiments.stored import read_results, results_file, stored_results_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PAPERS = ("000", "001", "002", "003", "004")
VERDICTS = ("confirmed", "refuted", "partly", "not tested")
DIRECTIONS = ("at_least", "at_most", "within")
CLAIM_FIELDS = {"id", "statement", "source", "experiment", "metric", "compute", "args", "paper_value",
                "tolerance", "direction", "unit", "not_tested", "reasoning"}
REQUIRED_FIELDS = ("id", "statement", "source", "experiment", "metric")
LEDGER_COLUMNS = ["paper", "id", "claim", "source", "experiment", "metric", "paper_value", "tolerance", "unit",
                  "ours", "n", "verdict", "provisional", "reasoning"]
COVERAGE = re.compile(r"(\d[\d,]*) of (\d[\d,]*) runs\b[^;]*?\bstored")   # how compute functions state coverage


@dataclass
class Measured:
    """Our number for one claim.

    ``value``: None when nothing could be measured (``reason`` says why). ``bound``: "lower" or "upper"
    when ``value`` bounds the number the paper's protocol would give (e.g. instances proved within 60 s
    instead of 3600 s: "lower"). ``ceiling``: for a count over a grid still running, the count if every
    missing run were to add one. ``verdict``: set by a function that decides the verdict itself.
    """

    value: float | None
    n: int | None = None
    note: str = ""
    bound: str | None = None
    ceiling: float | None = None
    verdict: str | None = None
    reason: str = ""


_METRICS: dict[str, dict[str, Callable[..., Measured]]] = {}


def metric(paper: str, name: str | None = None):
    """Register a compute function of ``paper``'s claims (decorator); ``name`` defaults to the function's."""
    def register(function: Callable[..., Measured]) -> Callable[..., Measured]:
        _METRICS.setdefault(str(paper).zfill(3), {})[name or function.__name__] = function
        return function
    return register


def metrics(paper: str) -> dict[str, Callable[..., Measured]]:
    """The compute functions registered for ``paper`` (importing ``odtlib.experiments.paper<NNN>``)."""
    paper = str(paper).zfill(3)
    import_module(f"odtlib.experiments.paper{paper}")
    return dict(_METRICS.get(paper, {}))


class StoredResults:
    """The stored runs of one paper's stored profile, read once per experiment."""

    def __init__(self, paper: str, results_dir: str | os.PathLike | None = None):
        self.paper = str(paper).zfill(3)
        self.results_dir = Path(results_dir) if results_dir else stored_results_dir("full")
        self._frames: dict[str, pd.DataFrame] = {}

    def file(self, experiment: str) -> Path:
        return results_file(self.results_dir, self.paper, experiment)

    def has(self, experiment: str) -> bool:
        return self.file(experiment).exists()

    def frame(self, experiment: str, include_tree: bool = False) -> pd.DataFrame:
        """The runs of ``experiment`` (`ResultStore.to_frame` columns; empty when none is stored)."""
        key = f"{experiment}+tree" if include_tree else experiment
        if key not in self._frames:
            self._frames[key] = read_results(self.file(experiment), include_tree=include_tree)
        return self._frames[key]


def declared_papers() -> list[str]:
    """The papers that have a claims file."""
    folder = resources.files("odtlib.reference")
    return [paper for paper in PAPERS if folder.joinpath(f"claims_{paper}.toml").is_file()]


@cache
def _claims_text(paper: str) -> str:
    return resources.files("odtlib.reference").joinpath(f"claims_{paper}.toml").read_text(encoding="utf-8")


def claims(paper: str) -> list[dict]:
    """The declared claims of ``paper`` (checked: required fields, known fields, a valid direction)."""
    paper = str(paper).zfill(3)
    declared = tomllib.loads(_claims_text(paper)).get("claim", [])
    for claim in declared:
        _check_claim(paper, claim)
    return declared


def _check_claim(paper: str, claim: dict) -> None:
    where = f"claims_{paper}.toml, claim {claim.get('id', '?')}"
    missing = [name for name in REQUIRED_FIELDS if name not in claim]
    unknown = set(claim) - CLAIM_FIELDS
    if missing or unknown:
        raise ValueError(f"{where}: missing fields {missing}, unknown fields {sorted(unknown)}")
    if "not_tested" not in claim:
        for name in ("compute", "paper_value", "tolerance", "direction"):
            if name not in claim:
                raise ValueError(f"{where}: a testable claim needs {name!r} (or say why it is not tested)")
        if claim["direction"] not in DIRECTIONS:
            raise ValueError(f"{where}: direction must be one of {DIRECTIONS}, got {claim['direction']!r}")


def judge(claim: dict, measured: Measured) -> tuple[str, str]:
    """The verdict of ``claim`` given our number, and its reasoning in one sentence."""
    extra = claim.get("reasoning", "")
    if measured.value is None or (isinstance(measured.value, float) and math.isnan(measured.value)):
        return "not tested", _sentence(measured.reason or "no stored result yet", extra)
    if measured.verdict is not None:
        if measured.verdict not in VERDICTS:
            raise ValueError(f"claim {claim['id']}: verdict must be one of {VERDICTS}, got {measured.verdict!r}")
        return measured.verdict, _sentence(measured.reason, measured.note, extra)
    paper, tol, direction = float(claim["paper_value"]), float(claim["tolerance"]), claim["direction"]
    ours = float(measured.value)
    unit = f" {claim['unit']}" if claim.get("unit") else ""
    holds = {"at_least": ours >= paper - tol, "at_most": ours <= paper + tol,
             "within": abs(ours - paper) <= tol}[direction]
    compared = f"ours {_num(ours)}{unit} against the paper's {_num(paper)}{unit} ({direction.replace('_', ' ')}, " \
               f"tolerance {_num(tol)})"
    # a bound of our number settles the claim only when it lies on the claim's side
    settles_if_holds = measured.bound is None or (direction, measured.bound) in {("at_least", "lower"),
                                                                                 ("at_most", "upper")}
    settles_if_fails = measured.bound is None or (direction, measured.bound) in {("at_least", "upper"),
                                                                                 ("at_most", "lower")}
    article = "an" if measured.bound == "upper" else "a"
    bound_note = f"our number is {article} {measured.bound} bound" if measured.bound else ""
    if holds and settles_if_holds:
        return "confirmed", _sentence(compared, bound_note + (" and that settles it" if bound_note else ""),
                                      measured.note, extra)
    if not holds and settles_if_fails:
        return "refuted", _sentence(compared, bound_note, measured.note, extra)
    if settled_by_ceiling(claim, measured):
        return "refuted", _sentence(compared, f"the missing runs can raise ours to {_num(measured.ceiling)} "
                                              f"at most, so that settles it", measured.note, extra)
    return "not tested", _sentence(compared, f"not settled: {bound_note} on the other side", measured.note, extra)


def settled_by_ceiling(claim: dict, measured: Measured) -> bool:
    """True when an "at least" claim fails even if every missing run of ``measured`` counted."""
    return (claim.get("direction") == "at_least" and measured.ceiling is not None
            and measured.ceiling < float(claim["paper_value"]) - float(claim["tolerance"]))


def ledger(papers=PAPERS, results_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """One row per declared claim of ``papers``: the claim, the paper's number, ours, the verdict and its
    reasoning (see the module docstring), computed from the stored results in ``results_dir`` (default:
    the checkout's ``results/full``)."""
    rows = []
    for paper in (str(p).zfill(3) for p in papers):
        results = StoredResults(paper, results_dir)
        functions = metrics(paper)
        for claim in claims(paper):
            measured = _measure(claim, functions, results)
            verdict, reasoning = judge(claim, measured) if "not_tested" not in claim else (
                "not tested", _sentence(claim["not_tested"], claim.get("reasoning", "")))
            provisional = (verdict != "not tested" and runs_missing(measured)
                           and not settled_by_ceiling(claim, measured))
            if provisional:
                reasoning = _sentence("Provisional: not all the runs this claim needs are stored yet", reasoning)
            rows.append({"paper": paper, "id": claim["id"], "claim": claim["statement"], "source": claim["source"],
                         "experiment": claim["experiment"], "metric": claim["metric"],
                         "paper_value": claim.get("paper_value"), "tolerance": claim.get("tolerance"),
                         "unit": claim.get("unit", ""), "ours": measured.value, "n": measured.n,
                         "verdict": verdict, "provisional": provisional, "reasoning": reasoning})
    return pd.DataFrame(rows, columns=LEDGER_COLUMNS)


def runs_missing(measured: Measured) -> bool:
    """True when the coverage that ``measured`` states ("X of Y runs ... stored") has X < Y."""
    return any(int(have.replace(",", "")) < int(total.replace(",", ""))
               for have, total in COVERAGE.findall(f"{measured.note} {measured.reason}"))


def _measure(claim: dict, functions: dict, results: StoredResults) -> Measured:
    if "not_tested" in claim:
        return Measured(None, reason=claim["not_tested"])
    name = claim["compute"]
    if name not in functions:
        raise ValueError(f"claims_{results.paper}.toml, claim {claim['id']}: no compute function {name!r} "
                         f"(registered: {sorted(functions)})")
    if not results.has(claim["experiment"]):
        return Measured(None, reason=f"no stored results of experiment {claim['experiment']!r} yet "
                                     f"(run: odtlib reproduce --papers {results.paper} --profile full --recompute)")
    return functions[name](results, **claim.get("args", {}))


def summary(ledger_frame: pd.DataFrame) -> pd.DataFrame:
    """Verdicts counted per paper: one row per paper, one column per verdict, how many of the verdicts are
    provisional (drawn before all their runs were stored), and the total."""
    counts = ledger_frame.groupby(["paper", "verdict"]).size().unstack(fill_value=0)
    counts = counts.reindex(columns=list(VERDICTS), fill_value=0)
    counts["claims"] = counts.sum(axis=1)
    provisional = ledger_frame.groupby("paper")["provisional"].sum().astype(int)
    counts.insert(len(VERDICTS), "of which provisional", provisional.reindex(counts.index, fill_value=0))
    return counts.reset_index()


README_BEGIN = "<!-- claims summary: begin (odtlib claims --readme README.md) -->"
README_END = "<!-- claims summary: end -->"


@dataclass(frozen=True)
class RunTime:
    """What a paper's stored full run cost: ``runs`` stored and ``cpu_hours``, the sum of each run's wall time
    (every run of a stored profile uses one solver thread, so wall time is CPU time)."""
    runs: int
    cpu_hours: float

    def text(self, paper: str) -> str:
        return (f"Measured run time of paper {paper}'s stored full run: {self.cpu_hours:.1f} CPU-hours over "
                f"{self.runs} runs (the sum of each run's wall time, one solver thread per run)")


def run_time(paper: str, results_dir: str | os.PathLike | None = None) -> RunTime:
    """The runs stored for ``paper`` (all its experiments) and the CPU-hours they took."""
    folder = Path(results_dir) if results_dir else stored_results_dir("full")
    frames = [read_results(file) for file in sorted((folder / f"paper{paper}").glob("*.csv.gz"))]
    seconds = sum(float(pd.to_numeric(frame["wall_time"], errors="coerce").sum()) for frame in frames
                  if "wall_time" in frame)
    return RunTime(runs=sum(len(frame) for frame in frames), cpu_hours=seconds / 3600)


def readme_summary(results_dir: str | os.PathLike | None = None) -> str:
    """The README's one-table summary of the ledger: per paper, the verdicts counted, the runs stored, the
    CPU-hours they took (`run_time`) and links to the paper's key figures (`odtlib.experiments.key_figures`,
    committed in ``figures/``); under it, the line of each paper module that has a ``readme_note``."""
    from odtlib.experiments.key_figures import figure_links
    from odtlib.experiments.protocol import paper_module
    from odtlib.experiments.report import markdown_table

    table = ledger(declared_papers(), results_dir=results_dir)
    counts = summary(table)
    totals = [run_time(paper, results_dir) for paper in counts["paper"]]
    counts.insert(1, "stored runs", [total.runs for total in totals])
    counts.insert(2, "CPU-hours", [f"{total.cpu_hours:.1f}" for total in totals])
    counts["key figures"] = [figure_links(paper) for paper in counts["paper"]]
    # a paper module may add one line of its own under the table (its `readme_note(results)`)
    modules = {paper: paper_module(paper) for paper in counts["paper"]}
    notes = [module.readme_note(StoredResults(paper, results_dir)) for paper, module in modules.items()
             if hasattr(module, "readme_note")]
    return "\n\n".join([markdown_table(counts), *notes])


def update_readme(readme: str | os.PathLike, results_dir: str | os.PathLike | None = None) -> bool:
    """Rewrite the summary between the README's claims markers; True when it changed."""
    path = Path(readme)
    text = path.read_text(encoding="utf-8")
    if README_BEGIN not in text or README_END not in text:
        raise ValueError(f"{path} has no claims-summary markers ({README_BEGIN} ... {README_END})")
    head, rest = text.split(README_BEGIN, 1)
    _old, tail = rest.split(README_END, 1)
    new = f"{head}{README_BEGIN}\n{readme_summary(results_dir)}\n{README_END}{tail}"
    path.write_text(new, encoding="utf-8")
    return new != text


def _num(value: float) -> str:
    return f"{value:.4g}" if isinstance(value, float) and not float(value).is_integer() else f"{value:.0f}"


def _sentence(*parts: str) -> str:
    text = "; ".join(part.strip().rstrip(".") for part in parts if part and part.strip())
    return text[:1].upper() + text[1:] + "." if text else ""
