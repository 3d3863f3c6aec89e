"""The book as a PDF (book/_ext/pdf.py), both editions, read with poppler's tools.

Each PDF: the chapters in _toc.yml's order, each starting on the page its table of
contents gives and reachable by the contents' links; every font embedded; no missing
glyph; no formula left as raw TeX; a sane number of pages; a tagged PDF with an
outline and the edition's language; the site ships both and links them.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

import helpers

sys.path.insert(0, str(helpers.REPO / "book" / "_ext"))
import pdf  # noqa: E402

EDITIONS = {"en": "", "ja": "ja/"}   # the edition's folder in the site
# Measured when the PDF step was written (252 and 248 pages, A4 at 80 %); 40 % either way.
MEASURED_PAGES = {"en": 252, "ja": 248}
RAW_TEX = re.compile(r"\\frac|\\sqrt|\\mathrm|\\operatorname|\$\$|\\\(|\\\[")


def chapters():
    """The pages of the book in _toc.yml's order: the root, then each part's chapters."""
    toc = yaml.safe_load((helpers.REPO / "_toc.yml").read_text())
    return [toc["root"], *(chapter["file"] for part in toc["parts"] for chapter in part["chapters"])]


def title(site, edition, page):
    """A page's title as the site shows it (its h1, without the heading's link)."""
    h1 = BeautifulSoup((site / f"{EDITIONS[edition]}{page}.html").read_text(), "html.parser").select_one("h1")
    for link in h1.select("a.headerlink"):
        link.decompose()
    return " ".join(h1.get_text().split())


def text(path, first=None, last=None, layout=False):
    pages = [*(["-f", str(first)] if first else []), *(["-l", str(last)] if last else [])]
    command = ["pdftotext", *pages, *(["-layout"] if layout else []), str(path), "-"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def squeeze(words):
    """Text without spaces or hyphens: pdftotext joins a word hyphenated at a line's end."""
    return re.sub(r"[\s\-‐]+", "", words)


def page_count(path):
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


@pytest.fixture(scope="module")
def pdfs(site):
    return {edition: site.parent / "pdf" / f"attention-{edition}.pdf" for edition in EDITIONS}


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_contents_list_every_chapter_in_order_on_the_page_where_it_starts(site, pdfs, edition):
    titles = [title(site, edition, page) for page in chapters()]
    # the contents follow the title page; the first chapter starts after them
    contents_pages = pdf.named_destinations(pdfs[edition])["pdf-chapter-0"] - 1
    # one entry a line, "title .... page"; titles compared without white space
    # (pdftotext spaces CJK and parentheses its own way)
    lines = text(pdfs[edition], 2, contents_pages, layout=True).splitlines()
    entries = [(at, squeeze(m.group(1)), int(m.group(2))) for at, line in enumerate(lines)
               if (m := re.fullmatch(r"\s*(.*?)\s+(\d+)\s*", line))]
    printed = []
    for name in titles:
        found = [(at, number) for at, entry, number in entries if entry == squeeze(name)]
        assert found, f"{name!r} is not in the contents: {lines}"
        printed.append(found[0])
    assert [at for at, _ in printed] == sorted(at for at, _ in printed), "contents not in _toc.yml's order"
    numbers = [number for _, number in printed]
    assert numbers == sorted(set(numbers))
    destinations = pdf.named_destinations(pdfs[edition])
    for n, (name, number) in enumerate(zip(titles, numbers)):
        assert destinations[f"pdf-chapter-{n}"] == number   # the contents' link goes there
        top = squeeze(text(pdfs[edition], number, number))
        assert squeeze(name) in top, f"{name!r} does not start on page {number}: {top[:300]}"


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_contents_link_to_the_chapters(pdfs, edition):
    raw = pdfs[edition].read_bytes()
    linked = set(re.findall(rb"/Subtype /Link.{0,300}?/Dest\s*/pdf-chapter-(\d+)", raw, re.S))
    linked |= set(re.findall(rb"/Dest\s*/pdf-chapter-(\d+)", raw))
    assert {int(n) for n in linked} == set(range(len(chapters())))
    assert len(re.findall(rb"/Subtype /Link", raw)) > 100     # the text's own cross-references too


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_font_is_embedded(pdfs, edition):
    listing = subprocess.run(["pdffonts", str(pdfs[edition])], capture_output=True, text=True, check=True).stdout
    rows = listing.splitlines()[2:]
    assert rows
    # the columns from the right: emb sub uni object ID (a name or type may hold spaces);
    # every font embedded, and mapped to Unicode (text a screen reader can read).
    # Chromium (Skia) embeds CFF fonts, Noto Sans CJK's and MathJax's STIX, as Type 3.
    assert [row for row in rows if row.split()[-5] != "yes" or row.split()[-3] != "yes"] == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_no_missing_glyph_and_no_raw_tex(pdfs, edition):
    words = text(pdfs[edition])
    assert "\ufffd" not in words
    assert RAW_TEX.findall(words) == []
    assert "softmax" in words.lower()
    japanese = len(re.findall(r"[\u3040-\u30ff\u4e00-\u9fff]", words))
    if edition == "ja":
        assert "ソフトマックス" in words and japanese > 20000, japanese
    else:
        assert japanese < 2000, japanese    # the glossary's and the notation's Japanese terms only


@pytest.mark.parametrize("edition", EDITIONS)
def test_page_count_is_near_the_measured_one(pdfs, edition):
    assert 0.6 * MEASURED_PAGES[edition] <= page_count(pdfs[edition]) <= 1.4 * MEASURED_PAGES[edition]


@pytest.mark.parametrize("edition", EDITIONS)
def test_tagged_with_an_outline_and_the_editions_language(pdfs, edition):
    info = subprocess.run(["pdfinfo", str(pdfs[edition])], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Tagged:\s+yes", info, re.M)
    raw = pdfs[edition].read_bytes()
    assert re.search(rb"/Lang \(" + edition.encode() + rb"\)", raw)
    outline = re.search(rb"/Outlines\s+/First \d+ 0 R\s+/Last \d+ 0 R\s+/Count (\d+)", raw)
    assert outline and int(outline.group(1)) >= len(chapters()), outline
    # every figure, plot or diagram, carries its alternative text into the tags
    figures = [o for o in raw.split(b"endobj") if re.search(rb"/S\s*/Figure\b", o)]
    assert len(figures) > 20 and [o[-200:] for o in figures if b"/Alt" not in o] == []
    # each chapter is a level-1 heading, beside the others (not nested under the introduction)
    assert len(re.findall(rb"/S\s*/H1\b", raw)) >= len(chapters())


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_site_ships_and_links_its_editions_pdf(site, pdfs, edition):
    shipped = site / "pdf" / f"attention-{edition}.pdf"
    assert shipped.read_bytes() == pdfs[edition].read_bytes()
    for page in chapters():
        here = site / f"{EDITIONS[edition]}{page}.html"
        link = BeautifulSoup(here.read_text(), "html.parser").select_one("a.edition-pdf")
        assert (here.parent / link["href"]).resolve() == shipped.resolve(), here


def test_a_wrong_option_is_one_line_and_a_failure():
    result = subprocess.run([sys.executable, str(Path(pdf.__file__)), "--no-such-option"],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].endswith("unrecognized arguments: --no-such-option")


@pytest.mark.parametrize("edition", EDITIONS)
def test_figures_citations_and_bibliography(site, pdfs, edition):
    plots = set()
    for page in chapters():
        soup = BeautifulSoup((site / f"{EDITIONS[edition]}{page}.html").read_text(), "html.parser")
        plots |= {Path(img["src"]).name for img in soup.select("article img") if img["src"].endswith(".png")}
    listing = subprocess.run(["pdfimages", "-list", str(pdfs[edition])], capture_output=True, text=True,
                             check=True).stdout
    assert len(listing.splitlines()[2:]) >= len(plots) > 20
    words = text(pdfs[edition])
    citation = {"en": "[Vaswani et al., 2017]", "ja": "[Vaswani ら, 2017]"}[edition]
    assert words.count(citation) > 5
    bibliography = text(pdfs[edition], pdf.named_destinations(pdfs[edition])[f"pdf-chapter-{len(chapters()) - 1}"])
    assert "Attention is all you need" in " ".join(bibliography.split())
