"""The book builds with zero warnings, only from its table of contents, and works offline.

The build is the `site` fixture (conftest.py), shared with the browser tests.
(The chapters' stored outputs are checked by nbval: `pytest --nbval book`.)
"""
import re
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


@pytest.mark.parametrize("edition", ["", "ja"])
def test_only_pages_in_the_toc_are_built(site, edition):
    root = site / edition
    built = {p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.html")
             if not p.relative_to(root).parts[0].startswith("_") and p.relative_to(root).parts[0] != "ja"}
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
        sources = re.findall(r'<script[^>]*src="([^"]*mathjax/tex-chtml-full-speech\.js[^"]*)"', html)
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


CHAPTERS = [f for f in toc_files() if re.match(r"book/\d\d_", f)]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_ends_the_same_way(site, chapter):
    """Traps table, recall questions with folded answers, and the chapter's exercise with the self-check."""
    html = (site / f"{chapter}.html").read_text()
    text = text_of(html)
    number = re.match(r"book/(\d\d)_", chapter).group(1)
    assert "How this is asked in exams" in text and "<table" in html
    assert "Recall questions" in text and "dropdown" in html  # answers folded behind a toggle
    exercise = next((helpers.REPO / "exercises").glob(f"{number}_*/*.ipynb"))
    # the notebook to download (the site serves it), and where a clone holds it
    assert re.search(r'href="[^"]*_downloads/[^"]*/' + re.escape(exercise.name) + '"', html), f"no link to {exercise}"
    assert f"exercises/{exercise.parent.name}/" in text, f"no folder of {exercise}"
    assert "python -m autograder check" in text
    assert text.index("How this is asked in exams") < text.index("Recall questions")


def test_softmax_chapter_covers_its_topics(site):
    text = text_of((site / "book" / "01_softmax.html").read_text())
    for part in ("column-wise", "row-wise", "nan", "shift invariance", "Temperature", "argmax", "Jacobian"):
        assert part.lower() in text.lower(), part


def test_introduction_states_notation_and_contract(site):
    intro = text_of((site / "book" / "intro.html").read_text())
    for part in ("Notation", "column convention", "row convention", "python -m autograder check",
                 "dot_product_attention_columns", "online_softmax_attention"):
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


def _significant_lines(code):
    """Code lines that carry logic: no blanks, comments or docstring quotes, nothing trivially short."""
    lines = []
    for line in code.splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith(('"""', "'''")) and len(line) > 12:
            lines.append(" ".join(line.split()))
    return lines


def _solutions():
    from autograder import notebooks
    for source in (exercise.source for exercise in helpers.EXERCISES):
        for cell in source.notebook.cells:
            if cell.cell_type == "code" and notebooks.meta(cell).get("solution"):
                body = cell.source.split("### BEGIN SOLUTION")[-1].split("### END SOLUTION")[0]
                yield source.assignment, notebooks.meta(cell)["grade_id"], _significant_lines(body)


def test_no_solution_appears_in_the_book(site):
    """No three consecutive logic lines of any solution are in a chapter's code or on any page."""
    chapters = [nbformat.read(p, as_version=4) for p in sorted((helpers.REPO / "book").glob("*.ipynb"))]
    code = "\n".join("\n".join(_significant_lines(c.source)) for nb in chapters for c in nb.cells
                     if c.cell_type == "code")
    pages = "\n".join(" ".join(text_of(p.read_text()).split()) for p in site.rglob("*.html"))
    checked = 0
    for assignment, grade_id, lines in _solutions():
        for start in range(max(0, len(lines) - 2)):
            window = lines[start:start + 3]
            assert "\n".join(window) not in code, f"{assignment}/{grade_id} solution appears in a chapter"
            assert " ".join(window) not in pages, f"{assignment}/{grade_id} solution appears on a page"
            checked += 1
    assert checked > 20  # the check saw real solutions


def test_glossary_gives_japanese_terms_and_chapters(site):
    text = text_of((site / "book" / "glossary.html").read_text())
    for english, japanese in [("attention", "注意機構"), ("additive attention", "加法注意"),
                              ("dot-product attention", "ドットプロダクト・アテンション"),
                              ("general attention", "一般アテンション"),
                              ("scaled dot-product attention", "スケールド・ドットプロダクト・アテンション"),
                              ("alignment", "アライメント"), ("context vector", "文脈ベクトル"),
                              ("fixed-length vector", "固定長ベクトル"), ("self-attention", "自己注意"),
                              ("cross-attention", "クロスアテンション"), ("causal mask", "因果マスク"),
                              ("multi-head attention", "マルチヘッドアテンション")]:
        assert english in text and japanese in text, english
    html = (site / "book" / "glossary.html").read_text()
    for chapter in CHAPTERS:
        assert f'href="{chapter.split("/")[1]}.html"' in html, chapter


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_page_offers_download_launch_and_exercise(site, chapter):
    html = (site / f"{chapter}.html").read_text()
    name = chapter.split("/")[1]
    assert f"_sources/book/{name}.ipynb" in html                         # download the notebook
    for launcher in ("mybinder.org/v2/gh/", "colab.research.google.com/github/"):
        assert launcher in html, launcher
    # The JupyterHub button only once a hub is configured, never for a placeholder host.
    hub = (yaml.safe_load((helpers.REPO / "_config.yml").read_text())["launch_buttons"].get("jupyterhub_url")
           or "")
    assert ("hub/user-redirect/git-pull" in html) == bool(hub)
    assert "example.org" not in html
    downloads = re.findall(r'href="(\.\./_downloads/[^"]+\.ipynb)"', html)   # the exercise, shipped with the site
    assert downloads and all((site / "book" / d).resolve().is_file() for d in downloads)


# Chapters that explain a mechanism and draw it (issue 15); chapters not yet in the
# table of contents are not required.
DIAGRAM_CHAPTERS = {2, 3, 4, 6, 7, 8, 9}


def _is_file_name(text):
    """MyST-NB's default alt text is the image's path, e.g. ../_images/1e25d8....png."""
    text = text.strip()
    return bool(re.fullmatch(r"\S+\.(png|jpe?g|gif|svg)", text, re.I)) or ("/" in text and " " not in text)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_image_has_alt_text(site, chapter):
    """Every image of a chapter page (figures of code cells included) says what it shows."""
    html = (site / f"{chapter}.html").read_text()
    missing = []
    for tag in re.findall(r"<img\b[^>]*>", html):
        alt = re.search(r'\balt="([^"]*)"', tag)
        if alt is None or len(alt.group(1).split()) < 2 or _is_file_name(alt.group(1)):
            missing.append(tag[:160])
    assert missing == [], missing


def _diagrams(html):
    """(figure html or None, alt text) of every Graphviz diagram of a page."""
    found = []
    for match in re.finditer(r'<div class="graphviz">(.*?)</div>', html, re.S):
        alt = re.search(r'<p class="warning">(.*?)</p>', match.group(1), re.S)
        start = html.rfind("<figure", 0, match.start())
        end = html.find("</figure>", match.end())
        inside = start != -1 and html.rfind("</figure>", start, match.start()) == -1
        found.append((html[start:end] if inside else None, alt.group(1) if alt else ""))
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_diagrams_have_caption_and_alt_text(site, chapter):
    html = (site / f"{chapter}.html").read_text()
    number = int(re.match(r"book/(\d\d)_", chapter).group(1))
    diagrams = _diagrams(html)
    if number in DIAGRAM_CHAPTERS:
        assert diagrams, f"{chapter} explains a mechanism but draws no diagram"
    for figure, alt in diagrams:
        assert figure is not None and "<figcaption" in figure, f"{chapter}: a diagram without :caption:"
        caption = text_of(figure.split("<figcaption", 1)[1])
        assert len(caption.split()) >= 3, f"{chapter}: caption {caption!r}"
        alt = text_of(alt)
        # Without :alt: Sphinx uses the dot source as the alternative text.
        assert alt and not re.match(r"(strict\s+)?(di)?graph\b", alt), f"{chapter}: diagram without :alt:"
        assert len(alt.split()) >= 5, f"{chapter}: alt text {alt!r} does not say what the diagram shows"
