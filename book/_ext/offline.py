"""Make the built book work with no network: MathJax served locally, no CDN scripts.

* MathJax 3 (see ``autograder.mathjax``) is copied to ``_build/html/_static/mathjax``
  after the build instead of living in a source ``_static/`` folder, because
  Jupyter Book injects every ``.js`` file found under ``_static/`` into every page;
  its settings (assistive MathML, speech, explorer) go to Sphinx as ``mathjax3_config``.
* sphinx-thebe (always loaded by Jupyter Book) writes a script pointing at a
  CDN into every page; the book has no live-code cells, so its scripts are
  dropped from each page.
"""
import copy
from pathlib import Path

from autograder.mathjax import COMPONENT, SETTINGS, SPEECH_CORRECTIONS_SCRIPT, copy_mathjax


def _copy_mathjax_into_site(app, exception):
    if exception is None and app.builder.format == "html":
        copy_mathjax(Path(app.outdir) / "_static" / "mathjax")


def _is_thebe(script):
    text = f"{getattr(script, 'filename', script)} {getattr(script, 'attributes', {}).get('body', '')}"
    return "thebe" in text.lower()


def _drop_thebe_scripts(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        context["script_files"] = [s for s in context["script_files"] if not _is_thebe(s)]


def _use_local_mathjax(app, config):
    config.mathjax_path = f"mathjax/{COMPONENT}"  # relative to _static/
    # A copy: myst-parser writes into it (processHtmlClass).
    config.mathjax3_config = copy.deepcopy(SETTINGS)


# MathJax 3.2.2 speaks mathematics in English only (autograder/mathjax.py): in a page in another
# language each formula says so, so that a screen reader reads its speech with an English voice.
MATHS_SPEAK_ENGLISH = """document.addEventListener("DOMContentLoaded", () => {
  if (!window.MathJax || !MathJax.startup || document.documentElement.lang.startsWith("en")) return;
  MathJax.startup.promise.then(() =>
    document.querySelectorAll("mjx-container").forEach(formula => formula.setAttribute("lang", "en")));
});"""


def setup(app):
    app.add_js_file(None, body=MATHS_SPEAK_ENGLISH)
    app.add_js_file(None, body=SPEECH_CORRECTIONS_SCRIPT)
    app.connect("config-inited", _use_local_mathjax)
    app.connect("build-finished", _copy_mathjax_into_site)
    app.connect("html-page-context", _drop_thebe_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
