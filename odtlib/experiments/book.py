"""The collection as a book: the README, the claims ledger, the executed notebooks and the API in one static site.

``odtlib book`` (``make book``) stages a Sphinx source folder under ``book/_build/src`` and builds HTML into
``book/_build/html`` with myst-nb (notebooks and MyST Markdown), autodoc + napoleon (the numpydoc docstrings)
and the furo theme. It re-runs nothing: each notebook page is the executed copy of the newest run folder that
has one (by default ``runs/full`` then ``runs/quick``, the outputs of ``odtlib reproduce``), else the notebook
without outputs. The claims ledger is computed from the stored full results (``results/full``).

Everything a page needs is bundled, so the site reads offline: MathJax is copied from the machine when it has
Debian's ``libjs-mathjax`` (``BUNDLED_MATHJAX``); without it the pages fall back to MathJax's CDN.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd

from odtlib.experiments.batch import notebook_id
from odtlib.experiments.report import markdown_table
from odtlib.experiments.stored import CHECKOUT

BOOK_SOURCES = CHECKOUT / "book"                 # conf.py and the hand-written pages
DEFAULT_RUNS = ("runs/full", "runs/quick")
BUNDLED_MATHJAX = Path("/usr/share/javascript/mathjax")
REEXPORTING = ("odtlib.models", "odtlib.data", "odtlib.solvers", "odtlib.tree")  # API defined in submodules
LEDGER_PAGE_COLUMNS = ["id", "claim", "source", "paper_value", "ours", "unit", "verdict", "reasoning"]
API_MODULES = {  # page section -> modules documented with autodoc
    "Estimators": ["odtlib.models"],
    "Trees": ["odtlib.tree"],
    "Encoders": ["odtlib.encoders"],
    "Data": ["odtlib.data"],
    "Solvers": ["odtlib.solvers"],
    "Experiments": ["odtlib.experiments", "odtlib.experiments.claims", "odtlib.experiments.stored"],
}


def executed_notebooks(runs=DEFAULT_RUNS, notebooks_dir: Path = CHECKOUT / "notebooks") -> dict[str, Path]:
    """Notebook id -> the notebook to show: the executed copy in the first run folder that has one, else the
    source notebook (without outputs)."""
    chosen = {}
    for source in sorted(notebooks_dir.glob("*.ipynb")):
        try:
            key = notebook_id(source)
        except AttributeError:       # not a paper or teaching notebook (e.g. the tutorial's solutions)
            key = source.stem
        executed = [Path(run) / "notebooks" / source.name for run in runs]
        chosen[key] = next((path for path in executed if path.exists()), source)
    return chosen


def ledger_page(results_dir: Path | None = None) -> str:
    """The claims page: the verdicts counted per paper, then each paper's claims with ours and the reasoning."""
    from odtlib.experiments.claims import declared_papers, ledger, summary

    table = ledger(declared_papers(), results_dir=results_dir)
    lines = ["# Which claims hold", "",
             "Each paper's headline claims, the number that carries each, ours from the stored `full` profile "
             "(`results/full/`), and a verdict with its reasoning. `odtlib claims` prints the same table.", "",
             markdown_table(summary(table)), ""]
    for paper, claims in table.groupby("paper", sort=True):
        lines += [f"## Paper {paper}", "", markdown_table(_rounded(claims[LEDGER_PAGE_COLUMNS])), ""]
    return "\n".join(lines)


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    """Numbers as a reader wants them: at most 3 decimals, integers without a decimal point."""
    def show(value):
        if isinstance(value, float) and pd.notna(value):
            return f"{value:.0f}" if float(value).is_integer() else f"{value:.3g}" if abs(value) < 1 else f"{value:.1f}"
        return "" if value is None or (isinstance(value, float) and pd.isna(value)) else value
    return frame.astype(object).map(show)


def api_page() -> str:
    """The API reference: one autodoc section per part of the library."""
    lines = ["# API reference", ""]
    for section, modules in API_MODULES.items():
        lines += [f"## {section}", ""]
        for module in modules:
            options = ["   :members:", *(["   :imported-members:"] if module in REEXPORTING else [])]
            lines += ["```{eval-rst}", f".. automodule:: {module}", *options, "```", ""]
    return "\n".join(lines)


def stage(source: Path, runs=DEFAULT_RUNS, results_dir: Path | None = None) -> Path:
    """Write the Sphinx source folder: conf.py, the front page (the README after the claims summary), the
    claims page, the notebooks, the syllabus when there is one, and the API page."""
    if source.exists():
        shutil.rmtree(source)
    shutil.copytree(BOOK_SOURCES, source, ignore=shutil.ignore_patterns("_build"))
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    (source / "index.md").write_text(_front_page(readme), encoding="utf-8")
    (source / "claims.md").write_text(ledger_page(results_dir), encoding="utf-8")
    (source / "api.md").write_text(api_page(), encoding="utf-8")
    notebooks = source / "notebooks"
    notebooks.mkdir()
    for key, notebook in executed_notebooks(runs).items():
        shutil.copy2(notebook, notebooks / notebook.name)
    syllabus = CHECKOUT / "notebooks" / "SYLLABUS.md"
    if syllabus.exists():
        shutil.copy2(syllabus, source / "syllabus.md")
    if BUNDLED_MATHJAX.is_dir():
        shutil.copytree(BUNDLED_MATHJAX, source / "_static" / "mathjax")
    if (CHECKOUT / "figures").is_dir():   # the README's key figures (odtlib.experiments.key_figures)
        shutil.copytree(CHECKOUT / "figures", source / "figures", ignore=shutil.ignore_patterns("*.md", "*.png"))
    return source


def _front_page(readme: str) -> str:
    """The README as the front page, with links into the repository turned into plain text (the site has
    no copy of those files; the key figures in ``figures/`` are copied, their links kept) and the table of
    contents of the book."""
    import re

    def keep_or_unlink(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        return match.group(0) if target.startswith(("http://", "https://", "#", "figures/")) else text
    body = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", keep_or_unlink, readme)
    toc = ["", "```{toctree}", ":maxdepth: 1", ":caption: Contents", "", "claims",
           *(["syllabus"] if (CHECKOUT / "notebooks" / "SYLLABUS.md").exists() else []),
           "notebooks/index", "api", "```", ""]
    return body + "\n" + "\n".join(toc)


def _notebook_index(notebooks: Path) -> None:
    names = sorted(path.stem for path in notebooks.glob("*.ipynb"))
    lines = ["# Notebooks", "", "The paper notebooks and the teaching notebooks, as last executed.", "",
             "```{toctree}", ":maxdepth: 1", "", *names, "```", ""]
    (notebooks / "index.md").write_text("\n".join(lines), encoding="utf-8")


def build(output: str | os.PathLike = CHECKOUT / "book" / "_build" / "html", runs=DEFAULT_RUNS,
          results_dir: str | os.PathLike | None = None, quiet: bool = True) -> Path:
    """Stage the sources and build the HTML site; returns the site's ``index.html``."""
    from sphinx.cmd.build import build_main

    output = Path(output)
    source = stage(output.parent / "src", runs=[Path(run) for run in runs],
                   results_dir=Path(results_dir) if results_dir else None)
    _notebook_index(source / "notebooks")
    status = build_main(["-b", "html", *(["-q"] if quiet else []), str(source), str(output)])
    if status != 0:
        raise RuntimeError(f"sphinx-build failed with status {status} (rerun with quiet=False to see why)")
    return output / "index.html"
