"""Sphinx configuration of the odtlib book (built by ``odtlib book`` / ``make book``; see
odtlib/experiments/book.py, which stages this folder with the generated pages)."""
from pathlib import Path

project = "odtlib"
author = "the odtlib authors"
copyright = "the odtlib authors; datasets CC BY 4.0 (UCI)"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
myst_enable_extensions = ["dollarmath", "amsmath"]
nb_execution_mode = "off"                 # the book shows the notebooks as last executed; it re-runs nothing
nb_merge_streams = True
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_default_options = {"undoc-members": False}
suppress_warnings = ["myst.header", "misc.highlighting_failure"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

html_theme = "furo"
html_title = "odtlib: optimal decision trees by MIP"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
html_show_sourcelink = False

# MathJax bundled with the site when the staging found a local copy (Debian's libjs-mathjax, MathJax 2.7),
# so that formulas render offline; else Sphinx's default (MathJax 3 from its CDN).
# myst-nb marks each notebook page's <section> "tex2jax_ignore mathjax_ignore" (so that a "$" in prose or in an
# output is never taken for math) and tells MathJax 3 which classes to typeset anyway ("processHtmlClass"). MathJax 2
# reads the same rule from tex2jax's processClass/ignoreClass: without it, it skips every formula of a notebook
# page and the reader sees raw \(D\) (issue 34, item 4).
# Output by CommonHTML: the HTML-CSS output's font probe (a "MathJax_Blank" face at about:blank) logs console
# errors in Chromium, which the browser test counts as failures.
MATH_CLASSES = "tex2jax_process|mathjax_process|math|output_area"
if (Path(__file__).parent / "_static" / "mathjax" / "MathJax.js").exists():
    mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML"
    mathjax2_config = {"tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                                   "processClass": MATH_CLASSES, "ignoreClass": "tex2jax_ignore|mathjax_ignore"},
                       "messageStyle": "none"}    # no "Processing math: 100%" box left on the page


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods are not odtlib's API."""
    return True if name.startswith("set_") and name.endswith("_request") else None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
