"""Headless execution of the paper notebooks with papermill, and the summary report of a batch.

``reproduce(...)`` runs ``<notebooks_dir>/paper<NNN>_*.ipynb`` and the teaching notebooks
(`TEACHING_NOTEBOOKS`: the tutorial and the formulation guide) one after the other (each notebook
parallelises its own grid with ``n_jobs``/``scheduler``), in the notebook's folder, with a kernel
running this Python; executed copies go to ``<output_dir>/notebooks/``, each also as a standalone HTML
page (nbconvert, images embedded); ``report.md`` and ``report.html`` in ``<output_dir>`` open with a table
of the notebooks (status, wall time, tables, verdict counts, the page) and gather every notebook's
settings, verdicts, failed runs (with their errors), tables and figures.

A notebook's id is its paper number (``001``) or, for a teaching notebook, its name
(``which_formulation``); its outputs go to `report.paper_dir` of that id.

While a notebook runs, ``reproduce`` echoes the lines its grids append to their progress file
(`report.PROGRESS_FILE`, one line per grid: `following`), indented below the notebook's own line.

A notebook that ran to the end but whose grid holds failed runs (recorded through
`ReportWriter.results`) gets the status "runs failed": ``odtlib reproduce`` then exits non-zero, as for
a notebook that raised.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import html
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import mistune
import pandas as pd

from odtlib.experiments.report import (
    PROGRESS_FILE,
    collect_report,
    config_text,
    markdown_table,
    paper_dir,
    readable_table,
)
from odtlib.experiments.stored import STORED_PROFILES

RUNS_FAILED = "runs failed"

PROFILES = ("smoke", "quick", "full", "paper")
TEACHING_NOTEBOOKS = ("tutorial_mip_trees", "which_formulation")
NOTEBOOK_PATTERN = re.compile(rf"^(?:paper(\d{{3}})_.*|({'|'.join(TEACHING_NOTEBOOKS)}))\.ipynb$")
KERNEL_NAME = "odtlib"
# the notebooks/ folder of the source checkout this package runs from (an editable install), if any
CHECKOUT_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@dataclass
class NotebookRun:
    """Outcome of one notebook: ``status`` is "ok", "failed" (the notebook raised; ``error`` says why) or
    "runs failed" (it finished, but ``failed_runs`` runs of its grids raised; ``error`` summarises them)."""

    paper: str
    notebook: Path
    executed: Path
    status: str
    runtime: float
    error: str | None = None
    failed_runs: int = 0
    page: Path | None = None


def notebook_id(notebook: Path) -> str:
    """``"001"`` for ``paper001_*.ipynb``, the name for a teaching notebook (see `TEACHING_NOTEBOOKS`)."""
    match = NOTEBOOK_PATTERN.match(Path(notebook).name)
    return match.group(1) or match.group(2)


def find_notebooks(notebooks_dir: str | os.PathLike, papers=None) -> list[Path]:
    """The ``paper<NNN>_*.ipynb`` and teaching notebooks of ``notebooks_dir`` (only those of ``papers`` if
    given: paper numbers or teaching-notebook names)."""
    folder = Path(notebooks_dir)
    if not folder.is_dir():
        raise FileNotFoundError(f"notebooks folder {folder} does not exist")
    wanted = None if not papers else {str(p).removeprefix("paper").zfill(3) for p in papers}
    found = sorted(p for p in folder.iterdir() if NOTEBOOK_PATTERN.match(p.name))
    if wanted is not None:
        found = [p for p in found if notebook_id(p) in wanted]
        missing = wanted - {notebook_id(p) for p in found}
        if missing:
            raise FileNotFoundError(f"no notebook for paper(s) {sorted(missing)} in {folder}")
    return found


def default_notebooks_dir() -> Path:
    """Where the paper notebooks are when no folder is given: ``./notebooks`` if it holds any, else
    the ``notebooks/`` folder of the odtlib checkout this package is installed from."""
    for folder in (Path("notebooks"), CHECKOUT_NOTEBOOKS):
        if folder.is_dir() and any(NOTEBOOK_PATTERN.match(p.name) for p in folder.iterdir()):
            return folder
    raise FileNotFoundError(
        f"no paper<NNN>_*.ipynb notebooks in ./notebooks or {CHECKOUT_NOTEBOOKS}: pass the notebooks/ folder "
        "of an odtlib source checkout (odtlib reproduce --notebooks-dir PATH, or reproduce(notebooks_dir=PATH))")


class _NotebookLine:
    """A notebook's progress on ``stream`` (None: none): ``[i/n] name ... status (s)`` on one line; the grid
    lines that arrive while it runs go below it, indented, and the notebook's line is then repeated with
    its status."""

    def __init__(self, stream, text: str):
        self.stream, self.text, self.open = stream, text, stream is not None
        self._write(f"{text} ... ")

    def grid(self, line: str) -> None:
        """One grid's line (`GridSummary.line`), from the notebook's progress file."""
        self._write(("\n" if self.open else "") + f"    {line}\n")
        self.open = False

    def end(self, outcome: str) -> None:
        """The notebook's status and time."""
        self._write(("" if self.open else f"{self.text} ... ") + f"{outcome}\n")
        self.open = False

    def _write(self, text: str) -> None:
        if self.stream is not None:
            self.stream.write(text)
            self.stream.flush()


def read_new_lines(path: Path, offset: int) -> tuple[list[str], int]:
    """The complete lines appended to ``path`` after byte ``offset``, and the offset after them. A last line
    without its newline waits for the next call; a missing file, or one shorter than ``offset`` (started
    afresh), is read from its start."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return [], 0
    offset = offset if size >= offset else 0
    with open(path, "rb") as file:
        file.seek(offset)
        data = file.read()
    end = data.rfind(b"\n") + 1
    return data[:end].decode("utf-8", errors="replace").splitlines(), offset + end


@contextlib.contextmanager
def following(path: Path, echo: Callable[[str], object], interval: float = 1.0):
    """While the block runs, call ``echo(line)`` for every line appended to ``path`` (a thread reads it every
    ``interval`` seconds, and once more when the block ends)."""
    stop, offset = threading.Event(), [0]

    def read() -> None:
        lines, offset[0] = read_new_lines(path, offset[0])
        for line in lines:
            echo(line)

    def poll() -> None:
        while not stop.wait(interval):
            read()

    thread = threading.Thread(target=poll, name="odtlib-grid-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        read()


def _runs_this_python(executable: str) -> bool:
    """Does a kernelspec's argv[0] start this interpreter? jupyter_client itself replaces a bare
    ``python``/``python3``/``python3.X`` by ``sys.executable``. Paths are compared without resolving
    symlinks (a venv's python is a symlink to the base interpreter, which lacks the venv's packages)."""
    bare = {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}
    return executable in bare or os.path.abspath(executable) == os.path.abspath(sys.executable)


def ensure_kernel(name: str = KERNEL_NAME) -> str:
    """Name of a Jupyter kernel that runs this Python (``sys.executable``); installs one if needed.

    Uses the ``odtlib`` or ``python3`` kernelspec if it starts this interpreter, else installs an
    ``odtlib`` kernelspec into ``sys.prefix`` (the venv), never into the user's global Jupyter dir.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    manager = KernelSpecManager()
    for candidate in (name, "python3"):
        try:
            spec = manager.get_kernel_spec(candidate)
        except NoSuchKernel:
            continue
        if spec.argv and _runs_this_python(spec.argv[0]):
            return candidate
    from ipykernel.kernelspec import install

    install(kernel_name=name, display_name=f"Python (odtlib, {sys.prefix})", prefix=sys.prefix)
    spec = KernelSpecManager().get_kernel_spec(name)
    if not _runs_this_python(spec.argv[0]):      # a user-level spec of that name shadows ours
        raise RuntimeError(f"kernelspec {name!r} in {spec.resource_dir} starts {spec.argv[0]}, not "
                           f"{sys.executable}; remove it or reinstall it from this environment")
    return name


def _error_text(exc: BaseException) -> str:
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename:
        return f"{ename}: {evalue}"
    return f"{type(exc).__name__}: {exc}"


def reproduce(papers=None, profile: str = "quick", n_jobs: int = 1, scheduler: str | None = None,
              output_dir: str | os.PathLike = "results/reproduce", notebooks_dir: str | os.PathLike | None = None,
              solver: str = "highs", time_limit: float | None = None, execution_timeout: float | None = None,
              log_output: bool = False, progress=None, recompute: bool | str = False,
              results_dir: str | os.PathLike | None = None) -> list[NotebookRun]:
    """Execute the paper notebooks with papermill and write ``report.md``/``report.html``.

    Each notebook receives the parameters ``profile``, ``solver``, ``time_limit`` (None = the
    profile's default), ``n_jobs``, ``scheduler`` and ``output_dir`` (absolute); the paper notebooks also
    ``recompute`` and ``results_dir`` (the stored ``full`` profile: `odtlib.experiments.stored`). The ``full``
    profile runs the paper notebooks only, unless ``papers`` names a teaching notebook. A failing notebook
    is recorded (its executed copy keeps the traceback) and the batch goes on.
    ``notebooks_dir=None`` looks the notebooks up (`default_notebooks_dir`). ``progress``: a text
    stream (e.g. ``sys.stderr``) that gets one line per notebook, ``[i/n] name ... status (seconds)``, and one
    indented line per grid the notebook runs (`following`).
    Ctrl-C (KeyboardInterrupt) ends the batch without a report; the runs the notebooks stored are kept.
    """
    import papermill as pm

    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    notebooks_dir = default_notebooks_dir() if notebooks_dir is None else notebooks_dir
    notebooks = find_notebooks(notebooks_dir, papers)
    if profile in STORED_PROFILES and not papers:
        notebooks = [notebook for notebook in notebooks if notebook_id(notebook).isdigit()]
    output_dir = Path(output_dir).resolve()
    executed_dir = output_dir / "notebooks"
    if executed_dir == Path(notebooks_dir).resolve() or output_dir == Path(notebooks_dir).resolve():
        raise ValueError("output_dir must not be the notebooks folder (executed copies would overwrite the sources)")
    executed_dir.mkdir(parents=True, exist_ok=True)
    kernel = ensure_kernel()
    parameters = {"profile": profile, "solver": solver, "time_limit": time_limit, "n_jobs": n_jobs,
                  "scheduler": scheduler, "output_dir": str(output_dir)}
    stored = {"recompute": recompute, "results_dir": str(Path(results_dir).resolve()) if results_dir else None}
    runs = []
    for number, notebook in enumerate(notebooks, start=1):
        paper = notebook_id(notebook)
        executed = executed_dir / notebook.name
        line = _NotebookLine(progress, f"[{number}/{len(notebooks)}] {notebook.name}")
        grid_log = paper_dir(output_dir, paper) / PROGRESS_FILE
        grid_log.unlink(missing_ok=True)
        tic = time.perf_counter()
        try:
            given = {**parameters, **stored} if paper.isdigit() else parameters
            with following(grid_log, line.grid) if progress is not None else contextlib.nullcontext():
                pm.execute_notebook(str(notebook), str(executed), parameters=given, kernel_name=kernel,
                                    cwd=str(notebook.parent.resolve()), progress_bar=False,
                                    log_output=log_output, execution_timeout=execution_timeout)
            status, error = "ok", None
        except KeyboardInterrupt:
            line.end(f"interrupted ({time.perf_counter() - tic:.0f} s)")
            raise
        except Exception as exc:  # noqa: BLE001 - one failing notebook must not stop the batch
            status, error = "failed", _error_text(exc)
        runtime = time.perf_counter() - tic
        runs.append(NotebookRun(paper, notebook, executed, status, runtime, error, page=notebook_page(executed)))
        line.end(f"{status} ({runs[-1].runtime:.0f} s)")
    runs = [with_failed_runs(run, output_dir) for run in runs]
    write_report(runs, output_dir, parameters)
    return runs


def notebook_page(executed: Path) -> Path | None:
    """Write the executed notebook as a standalone HTML page beside it (images embedded); None if papermill
    left no executed copy."""
    if not executed.exists():
        return None
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(embed_images=True)
    body, _resources = exporter.from_notebook_node(nbformat.read(executed, as_version=4))
    page = executed.with_suffix(".html")
    page.write_text(body, encoding="utf-8")
    return page


def with_failed_runs(run: NotebookRun, output_dir: str | os.PathLike) -> NotebookRun:
    """``run`` with ``failed_runs`` counted from the notebook's ``summary.json``; a notebook that finished
    with failed runs gets the status "runs failed" and an error naming the first one."""
    failures = _failures(collect_report(output_dir, run.paper))
    if not failures:
        return run
    error = run.error
    if run.status == "ok":
        first = failures[0]
        error = f"{len(failures)} run(s) failed; first: {first['error']} ({first['experiment']})"
    return replace(run, status=RUNS_FAILED if run.status == "ok" else run.status, error=error,
                   failed_runs=len(failures))


def _failures(summary: dict | None) -> list[dict]:
    """The failed runs a notebook recorded: experiment, config, error."""
    return [{"experiment": experiment, **failure}
            for experiment, failures in (summary or {}).get("failures", {}).items() for failure in failures]


def write_report(runs: list[NotebookRun], output_dir: str | os.PathLike, parameters: dict) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` in ``output_dir``: the requested parameters, a status line
    per notebook (with the settings it really used and its failed runs), every notebook's verdicts, the
    failed runs with their errors, then each notebook's tables, texts and figures (from its
    ``summary.json``)."""
    output_dir = Path(output_dir)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    summaries = {run.paper: collect_report(output_dir, run.paper) for run in runs}
    requested = ", ".join(f"{k}={v}" for k, v in parameters.items() if k != "output_dir")
    intro = (f"{stamp}; requested: {requested}. Each notebook's own solver and time limit are in the "
             "`used` column (a notebook may use other solvers than the one requested).")
    status = _status_frame(runs, summaries, output_dir)
    claims_md, claims_html = _claims_section(runs, summaries)
    md = ["# odtlib reproduction report", "", intro, *claims_md, "", "## Notebooks", "",
          markdown_table(status) if runs else "(no notebooks)"]
    body = ["<h1>odtlib reproduction report</h1>", _markdown_html(intro), *claims_html,
            "<h2>Notebooks</h2>", _status_html(status)]
    for section_md, section_html in (_verdict_section(runs, summaries), _failure_section(runs, summaries)):
        md += section_md
        body += section_html
    for run in runs:
        section_md, section_html = _notebook_section(run, summaries[run.paper], output_dir)
        md += section_md
        body += section_html
    md_path, html_path = output_dir / "report.md", output_dir / "report.html"
    md_path.write_text("\n".join(md) + "\n", encoding="utf-8")
    html_path.write_text(_HTML_PAGE.format(body=with_table_of_contents("\n".join(body))), encoding="utf-8")
    return md_path, html_path


def _status_frame(runs: list[NotebookRun], summaries: dict, output_dir: Path) -> pd.DataFrame:
    """One row per notebook: status, wall time, failed runs, the settings it used, the tables it reported,
    the verdicts of its paper-vs-ours tables counted by kind, its HTML page, the error."""
    rows = []
    for run in runs:
        summary = summaries[run.paper] or {}
        settings = summary.get("settings") or {}
        tables, verdicts = _table_counts(summary)
        rows.append({"paper": run.paper, "notebook": run.notebook.name, "status": run.status,
                     "runtime_s": round(run.runtime, 1), "failed_runs": run.failed_runs,
                     "used": "; ".join(f"{k}={v}" for k, v in settings.items()) or "(not reported)",
                     "tables": tables, "verdicts": verdicts,
                     "page": _rel(run.page, output_dir) if run.page else "", "error": run.error or ""})
    return pd.DataFrame(rows)


def _table_counts(summary: dict) -> tuple[int, str]:
    """How many tables a notebook reported, and its tables' ``verdict`` cells counted by kind
    ("within tolerance: 3; lower: 1; not comparable: 2"; the reason after "not comparable:" is dropped)."""
    tables = [item["path"] for item in summary.get("items", []) if item["kind"] == "table" and item["path"].exists()]
    counts: dict[str, int] = {}
    for path in tables:
        frame = pd.read_csv(path)
        for verdict in frame["verdict"].dropna() if "verdict" in frame else []:
            kind = str(verdict).split(":")[0]
            counts[kind] = counts.get(kind, 0) + 1
    return len(tables), "; ".join(f"{kind}: {n}" for kind, n in sorted(counts.items()))


def _status_html(status: pd.DataFrame) -> str:
    """The status table as HTML, each notebook's name linking to its executed page."""
    cells = status.astype(str).map(html.escape) if len(status) else status
    if len(status):
        cells["notebook"] = [f'<a href="{html.escape(page)}">{name}</a>' if page else name
                             for name, page in zip(cells["notebook"], status["page"])]
    return f'<div class="scroll">{cells.to_html(index=False, na_rep="", escape=False)}</div>'


CLAIMS_ITEM = "claims"   # the name under which a paper notebook reports its claims ledger
CLAIMS_COLUMNS = ["paper", "id", "claim", "source", "paper_value", "ours", "unit", "verdict", "reasoning"]


def _claims_section(runs: list[NotebookRun], summaries: dict) -> tuple[list[str], list[str]]:
    """The claims ledgers the paper notebooks reported (their ``claims`` tables), one table at the top."""
    frames = [pd.read_csv(item["path"], dtype={"paper": str})
              for run in runs for item in (summaries[run.paper] or {}).get("items", [])
              if item["name"] == CLAIMS_ITEM and item["kind"] == "table" and Path(item["path"]).exists()]
    if not frames:
        return [], []
    ledger = pd.concat(frames, ignore_index=True)
    ledger = ledger[[c for c in CLAIMS_COLUMNS if c in ledger]]
    counts = ledger["verdict"].value_counts()
    note = "Which of the papers' claims hold: " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items()) + \
           " (from the stored full-profile results; each claim's reasoning says how far they cover it)."
    table_md, table_html = _rendered_table(ledger)
    return (["", "## Claims ledger", "", note, "", *table_md],
            ["<h2>Claims ledger</h2>", f"<p>{html.escape(note)}</p>", table_html])


def _verdict_section(runs: list[NotebookRun], summaries: dict) -> tuple[list[str], list[str]]:
    """The verdicts of every notebook (``ReportWriter.verdict`` items), as Markdown and as HTML."""
    md, body = [], []
    for run in runs:
        for item in (summaries[run.paper] or {}).get("items", []):
            if item.get("verdict") and Path(item["path"]).exists():
                text = Path(item["path"]).read_text(encoding="utf-8")
                md += ["", f"### {_label(run)}: {item['name']}", "", text]
                body += [f"<h3>{html.escape(_label(run))}: {html.escape(item['name'])}</h3>", _markdown_html(text)]
    if not md:
        return [], []
    return ["", "## Verdicts", *md], ["<h2>Verdicts</h2>", *body]


def _failure_section(runs: list[NotebookRun], summaries: dict) -> tuple[list[str], list[str]]:
    """Every failed run with its error (none: an empty section is left out)."""
    rows = [{"paper": run.paper, **failure, "config": config_text(failure["config"])}
            for run in runs for failure in _failures(summaries[run.paper])]
    if not rows:
        return [], []
    frame = pd.DataFrame(rows)[["paper", "experiment", "config", "error"]]
    note = (f"{len(frame)} run(s) raised instead of returning a result. They are counted as failures, "
            "left out of the solved / time / gap numbers, and make the batch exit non-zero.")
    return (["", "## Failed runs", "", note, "", markdown_table(frame)],
            ["<h2>Failed runs</h2>", f"<p>{html.escape(note)}</p>", _table_html(frame)])


def _notebook_section(run: NotebookRun, summary: dict | None, output_dir: Path) -> tuple[list[str], list[str]]:
    """One notebook's heading, status line, error and items (verdicts stay at the top of the report)."""
    title = _label(run) + (f": {summary['title']}" if summary and summary.get("title") else "")
    line = f"{run.status}, {run.runtime:.1f} s, executed notebook `{_rel(run.executed, output_dir)}`"
    page = _rel(run.page, output_dir) if run.page else None
    md = ["", f"## {title}", "", line + (f" ([page]({page}))" if page else "")]
    body = [f"<h2>{html.escape(title)}</h2>", _markdown_html(line + (f" ([page]({page}))" if page else ""))]
    if run.error:
        md += ["", f"Error: `{run.error}`"]
        body.append(f"<p><b>Error:</b> <code>{html.escape(run.error)}</code></p>")
    for item in (summary or {}).get("items", []):
        if item.get("verdict") or item["name"] == CLAIMS_ITEM:
            continue
        item_md, item_html = _render_item(item, output_dir)
        md += ["", *item_md]
        body.append(item_html)
    return md, body


def _label(run: NotebookRun) -> str:
    """"Paper 001" for a paper notebook, the name for a teaching notebook."""
    return f"Paper {run.paper}" if run.paper.isdigit() else run.paper


def _rendered_table(frame: pd.DataFrame) -> tuple[list[str], str]:
    """A table for both reports (`readable_table`: rounded, constant columns dropped and named above it), as
    Markdown lines and as HTML."""
    shown, note = readable_table(frame)
    md = ([f"_{note}_", ""] if note else []) + [markdown_table(shown)]
    return md, (f'<p class="note">{html.escape(note)}</p>' if note else "") + _table_html(shown)


def _table_html(frame: pd.DataFrame) -> str:
    """A table in a horizontally scrolling box (wide tables must not break the page)."""
    return f'<div class="scroll">{frame.to_html(index=False, na_rep="", escape=True)}</div>'


def _markdown_html(text: str) -> str:
    """Markdown (what the notebooks write: paragraphs, nested lists, emphasis, code, links, tables) as HTML, by
    mistune (nbconvert's own Markdown renderer); raw HTML in the text is escaped."""
    return _MARKDOWN(text)


_MARKDOWN = mistune.create_markdown(escape=True, plugins=["table"])


def _rel(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _render_item(item: dict, root: Path) -> tuple[list[str], str]:
    path, caption = Path(item["path"]), item.get("caption", "")
    heading = f"### {item['name']}" + (f" — {caption}" if caption else "")
    heading_html = f"<h3>{html.escape(item['name'])}</h3>" + (f"<p>{html.escape(caption)}</p>" if caption else "")
    if not path.exists():
        return [heading, "", f"(missing file {path.name})"], heading_html + "<p>(missing file)</p>"
    if item["kind"] == "table":
        table_md, table_html = _rendered_table(pd.read_csv(path))
        return [heading, "", *table_md], heading_html + table_html
    if item["kind"] == "figure":
        rel = _rel(path, root)
        return [heading, "", f"![{item['name']}]({rel})"], heading_html + f'<img src="{html.escape(rel)}">'
    text = path.read_text(encoding="utf-8")
    return [heading, "", text], heading_html + _markdown_html(text)


def _anchor(text: str, taken: set[str]) -> str:
    """A unique HTML id from a heading's text ("Paper 001: table2" -> "paper-001-table2")."""
    base = re.sub(r"[^a-z0-9]+", "-", html.unescape(re.sub(r"<[^>]+>", "", text)).lower()).strip("-") or "section"
    anchor, n = base, 1
    while anchor in taken:
        n += 1
        anchor = f"{base}-{n}"
    taken.add(anchor)
    return anchor


def with_table_of_contents(body: str) -> str:
    """``body`` with an anchor before every ``<h2>``/``<h3>`` and, after the ``<h1>``, a table of contents linking
    to them: the report's sections and notebooks, each with its tables, texts and figures nested below it."""
    taken: set[str] = set()
    entries: list[tuple[int, str, str]] = []
    section = [""]     # the anchor of the last <h2>: a table's anchor starts with its notebook's

    def add_id(match: re.Match) -> str:
        level, text = int(match.group(1)), match.group(2)
        anchor = _anchor(text if level == 2 else f"{section[0]} {text}", taken)
        if level == 2:
            section[0] = anchor
        entries.append((level, anchor, text))
        return f'<a id="{anchor}"></a>{match.group(0)}'   # the heading itself unchanged: tests and styles find it
    body = re.sub(r"<h([23])>(.*?)</h\1>", add_id, body)
    items, open_sublist = [], False
    for level, anchor, text in entries:
        if level == 3 and not open_sublist:
            items.append("<ul>")
            open_sublist = True
        elif level == 2 and open_sublist:
            items.append("</ul></li>")
            open_sublist = False
        elif level == 2 and items:
            items.append("</li>")
        items.append(f'<li><a href="#{anchor}">{text}</a>' + ("</li>" if level == 3 else ""))
    if entries:
        items.append("</ul></li>" if open_sublist else "</li>")
    toc = f'<nav class="toc"><h2>Contents</h2><ul>{"".join(items)}</ul></nav>' if entries else ""
    head, h1_end, rest = body.partition("</h1>")
    return f"{head}{h1_end}\n{toc}{rest}" if h1_end else toc + body


_HTML_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>odtlib reproduction report</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:auto}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 6px;vertical-align:top}} th{{white-space:nowrap}}
td{{min-width:3em;max-width:40em}} img{{max-width:100%}} .note{{color:#555;font-size:90%}}
.scroll{{overflow-x:auto;max-width:100%}} .toc ul{{margin:0.2em 0}}</style></head>
<body>
{body}
</body></html>
"""
