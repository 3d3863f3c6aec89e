"""The book builds with zero warnings, only from its table of contents, and works offline.

(The chapters' stored outputs are checked by nbval: `pytest --nbval book`.)
"""
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

import helpers

# Addresses of the public CDNs that Sphinx themes, nbconvert and MathJax default to.
CDN = re.compile(r"https?://[^\s\"')]*(cdn|unpkg\.com|googleapis\.com|cloudflare\.com|jquery\.com)", re.I)


def text_of(html):
    """The visible text of a page: tags removed, entities decoded, spaces folded."""
    import html as html_module
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", "", html)).split())


def toc_files():
    toc = yaml.safe_load((helpers.REPO / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run([str(jupyter_book), "build", str(helpers.REPO), "-W", "-n", "--keep-going",
                             "--path-output", str(out)], capture_output=True, text=True)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    assert not re.search(r"\bWARNING\b", log), log[-5000:]
    return out / "_build" / "html"


def test_only_pages_in_the_toc_are_built(site):
    built = {p.relative_to(site).with_suffix("").as_posix() for p in site.rglob("*.html")
             if not p.relative_to(site).parts[0].startswith("_")}
    assert built - {"index", "genindex", "search"} == set(toc_files())
    for folder in ("solutions", "exercises", "autograder", "tests"):
        assert not (site / folder).exists(), f"{folder}/ must never be part of the book"


def test_no_cdn_address_anywhere_in_the_site(site):
    for path in list(site.rglob("*.html")) + list(site.rglob("*.js")) + list(site.rglob("*.css")):
        match = CDN.search(path.read_text(errors="replace"))
        assert match is None, f"{path.relative_to(site)} names a CDN: ...{match.group(0)}..."


def test_mathjax_is_served_by_the_site_itself(site):
    for page in site.rglob("*.html"):
        if page.relative_to(site).parts[0].startswith("_") or page.name in ("index.html", "genindex.html",
                                                                             "search.html"):
            continue  # index.html only redirects to the introduction
        html = page.read_text()
        sources = re.findall(r'<script[^>]*src="([^"]*MathJax\.js[^"]*)"', html)
        if 'class="math' not in html:
            continue  # Sphinx loads MathJax only on pages with math
        assert len(sources) == 1, page
        assert not sources[0].startswith(("http:", "https:", "//"))
        assert (page.parent / sources[0].split("?")[0]).resolve().is_file(), sources[0]


def test_references_come_from_the_bibliography(site):
    bibliography = text_of((site / "book" / "bibliography.html").read_text()).lower()
    for title in ("Attention is all you need", "Neural machine translation by jointly learning to align",
                  "Effective approaches to attention-based neural machine translation"):
        assert title.lower() in bibliography
    assert 'href="bibliography.html#id' in (site / "book" / "01_softmax.html").read_text()


def test_softmax_chapter_has_its_parts(site):
    html = (site / "book" / "01_softmax.html").read_text()
    assert "dropdown" in html  # recall answers are folded
    for part in ("How this is asked in exams", "Recall questions", "exercises/01_softmax/softmax.ipynb",
                 "python -m autograder check", "Jacobian", "Temperature"):
        assert part in text_of(html), part
    intro = text_of((site / "book" / "intro.html").read_text())
    for part in ("Notation", "column convention", "row convention", "python -m autograder check"):
        assert part.lower() in intro.lower(), part


@pytest.mark.parametrize("chapter", [f for f in toc_files() if (helpers.REPO / f"{f}.ipynb").exists()])
def test_chapter_outputs_are_deterministic_kinds(chapter):
    """Stored outputs that nbval can reproduce: no stderr, figures as PNG only, every cell run."""
    notebook = nbformat.read(helpers.REPO / f"{chapter}.ipynb", as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(c.execution_count is not None for c in code if c.source.strip())
    for cell in code:
        for output in cell.outputs:
            assert output.output_type != "error", cell.source[:80]
            assert not (output.output_type == "stream" and output.name == "stderr"), cell.source[:80]
            data = output.get("data", {})
            assert "image/svg+xml" not in data
            assert not re.search(r"0x[0-9a-f]{6,}", str(data.get("text/plain", ""))), "memory address in output"
