"""Every citation resolves to book/references.bib, and the history page covers its topics.

These tests read the sources only (no build), so they run in a second; the build
itself, with `-W`, is checked by test_book.py.
"""
import re

import nbformat
import pytest

import helpers

BOOK = helpers.REPO / "book"

# {cite}`a`, {cite:p}`a,b`, {cite:t}`a`, {cite:ps}`...`, {cite:year}`...` ...
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
ENTRY = re.compile(r"^@\w+\s*\{\s*([^,\s]+)\s*,", re.M)


def bibliography_keys():
    keys = ENTRY.findall((BOOK / "references.bib").read_text(encoding="utf-8"))
    assert len(keys) == len(set(keys)), "a key is defined twice in references.bib"
    return set(keys)


def sources():
    """(name, text) of every page of the book: the markdown pages and the notebooks' markdown cells."""
    for path in sorted(BOOK.glob("*.md")):
        yield path.name, path.read_text(encoding="utf-8")
    for path in sorted(BOOK.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        yield path.name, "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def cited_keys(text):
    return {key.strip() for group in CITE.findall(text) for key in group.split(",")}


def test_the_cite_pattern_reads_every_role():
    text = "{cite:p}`a, b` and {cite:t}`c` and {cite}`d`"
    assert cited_keys(text) == {"a", "b", "c", "d"}


@pytest.mark.parametrize("name,text", list(sources()), ids=lambda v: v if isinstance(v, str) and
                         v.endswith((".md", ".ipynb")) else "")
def test_every_cited_key_is_in_the_bibliography(name, text):
    missing = cited_keys(text) - bibliography_keys()
    assert not missing, f"{name} cites keys that references.bib does not define: {sorted(missing)}"


def test_the_two_cho_2014_papers_are_told_apart():
    bib = (BOOK / "references.bib").read_text(encoding="utf-8")
    years = dict(re.findall(r"@\w+\{(cho2014b?),.*?year\s*=\s*\{([^}]+)\}", bib, re.S))
    assert years == {"cho2014": "2014a", "cho2014b": "2014b"}


HISTORY_TOPICS = {
    # topic: (words the page must contain, keys it must cite)
    "cocktail party (Cherry 1953)": (["cocktail party"], ["cherry1953"]),
    "filter theory (Broadbent 1958)": (["filter"], ["broadbent1958"]),
    "partial report, iconic memory (Sperling 1960)": (["partial report", "iconic memory"], ["sperling1960"]),
    "eye movements and saliency": (["eye", "saliency map"], ["yarbus1967", "koch1985"]),
    "saliency network (Itti, Koch and Niebur 1998)": (["saliency"], ["itti1998"]),
    "GMDH (Ivakhnenko 1965)": (["group method of data handling", "Kolmogorov"], ["ivakhnenko1965"]),
    "sigma-pi units": (["sigma-pi"], ["rumelhart1986"]),
    "higher-order networks": (["higher-order"], ["giles1987"]),
    "hypernetworks": (["hypernetworks"], ["ha2016"]),
    "fast weights (1992, 1993)": (["fast weight"], ["schmidhuber1992", "schmidhuber1993"]),
    "linear Transformers as fast weight programmers": (["linear Transformers"], ["schlag2021"]),
    "Neural Turing Machine": (["Neural Turing Machine"], ["graves2014"]),
    "Differentiable Neural Computer": (["Differentiable Neural Computer"], ["graves2016"]),
    "intra-attention": (["intra-attention"], ["cheng2016"]),
    "decomposable attention": (["decomposable"], ["parikh2016"]),
    "visual attention and captioning": (["glimpses", "captioning"], ["mnih2014", "xu2015"]),
    "channel attention": (["channel", "Squeeze-and-Excitation"], ["hu2018"]),
    "spatial attention": (["spatial transformer", "CBAM"], ["jaderberg2015", "woo2018"]),
    "further reading": (["Further reading"], ["olah2016", "jurafsky2022", "graves2020"]),
}


@pytest.mark.parametrize("topic", HISTORY_TOPICS)
def test_history_page_covers(topic):
    text = " ".join((BOOK / "history.md").read_text(encoding="utf-8").split())
    words, keys = HISTORY_TOPICS[topic]
    for word in words:
        assert word.lower() in text.lower(), f"history.md does not mention {word!r}"
    missing = set(keys) - cited_keys(text)
    assert not missing, f"history.md does not cite {sorted(missing)} for {topic}"


def test_history_page_is_in_the_table_of_contents():
    import yaml
    toc = yaml.safe_load((helpers.REPO / "_toc.yml").read_text())
    files = [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    assert "book/history" in files
