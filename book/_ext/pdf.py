"""The book as a PDF, both editions, from the same sources as the site::

    python book/_ext/pdf.py [--path-output DIR]
    # -> DIR/_build/pdf/attention-en.pdf, DIR/_build/pdf/attention-ja.pdf,
    #    copied into the site as DIR/_build/html/pdf/attention-<language>.pdf

Each edition is built as one page (Jupyter Book's ``singlehtml`` builder; the
Japanese one with ``editions.py ja --builder singlehtml``) into
``DIR/_build/singlehtml[/ja]``, served from localhost (the page loads MathJax
and its figures from the build) and printed by Debian's Chromium, driven by
Playwright, once MathJax has typeset it and every image has loaded.  The print
stylesheet is ``static/print.css``; this script adds a title page and a table
of contents, prints once to learn the page where each chapter starts (the
PDF's named destinations, read with poppler's ``pdfinfo -dests``), writes
those numbers into the contents and prints again.  Chromium writes a tagged
PDF with an outline (bookmarks) from the headings, and embeds every font.

Offline: every request that does not go to the local server is refused.
"""
import argparse
import functools
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import editions  # noqa: E402  (beside this script)

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright's own browser download needs the network
# The flags Chromium needs here: root, no GPU, and no calls home on a closed network (the browser
# tests use the same: tests/conftest.py).
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]

# What the PDF says besides the book's own text, per edition.
WORDS = {"en": {"contents": "Contents"}, "ja": {"contents": "目次"}}
PRINTED_PAGE = "print.html"   # the single page, copied to the build's root (its links are relative to it)

# A4 at 80 %: the layout is 850 CSS px wide, close to the site's column, so that
# display maths and tables laid out for the site fit the page.
PDF_OPTIONS = {"format": "A4", "scale": 0.8, "print_background": True, "outline": True, "tagged": True,
               "margin": {"top": "16mm", "bottom": "18mm", "left": "16mm", "right": "16mm"},
               "display_header_footer": True, "header_template": "<span></span>",
               "footer_template": '<div style="width:100%; text-align:center; font-size:9px; '
                                  'font-family: sans-serif;"><span class="pageNumber"></span></div>'}
PAGE_WIDTH_PX = round((210 - 32) / 25.4 * 96 / PDF_OPTIONS["scale"])   # what the layout gets


class PdfError(Exception):
    """Something the reader can fix or must know; printed as one line."""


def root_doc():
    import yaml
    return yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["root"]


def book_title(language):
    import yaml
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    title = editions.EDITIONS[language].get("config", {}).get("html_title", config["title"])
    return title, config.get("author", ""), str(config.get("copyright", ""))


# --- the single page ----------------------------------------------------------

def build_single_page(language, path_output):
    """Build edition `language` as one page; return its folder."""
    if language == "en":
        command = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(ROOT),
                   "--builder", "singlehtml", "-W", "-n", "--keep-going"]
    else:
        command = [sys.executable, str(HERE / "editions.py"), language, "--builder", "singlehtml"]
    result = subprocess.run([*command, "--path-output", str(path_output)], capture_output=True, text=True)
    if result.returncode != 0:
        print((result.stdout + result.stderr)[-5000:], file=sys.stderr)
        raise PdfError(f"the one-page {editions.EDITIONS[language]['label']} edition did not build")
    folder = Path(path_output) / "_build" / "singlehtml" / editions.EDITIONS[language]["subdir"]
    page = folder / f"{root_doc()}.html"
    # Sphinx writes the page as if it stood at the build's root: put it there, with its
    # links to itself made same-page links (Chromium turns only those into PDF links).
    text = page.read_text(encoding="utf-8")
    text = re.sub(rf'href="{re.escape(root_doc())}\.html(#[^"]*)?"', lambda m: f'href="{m.group(1) or "#"}"', text)
    (folder / PRINTED_PAGE).write_text(text, encoding="utf-8")
    return folder


@contextmanager
def serve(folder):
    """Serve `folder` on 127.0.0.1 (a free port) while the block runs; yield its URL."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


# --- in the browser -----------------------------------------------------------

# MathJax 3 (startup.promise) or 2 (its queue); false when the page has no MathJax.
WAIT_FOR_MATHJAX = """() => !window.MathJax ? false :
    (MathJax.startup ? MathJax.startup.promise : new Promise(r => MathJax.Hub.Queue(r))).then(() => true)"""

# Every image loaded (lazy ones told to load now) and every SVG diagram (<object>).
WAIT_FOR_IMAGES = """async () => {
    document.querySelectorAll('img[loading="lazy"]').forEach(i => i.loading = 'eager');
    const loaded = o => o.tagName === 'IMG' ? o.complete && o.naturalWidth > 0 : !!o.contentDocument;
    for (let tries = 0; tries < 600; tries++) {
        const waiting = [...document.querySelectorAll('img, object')].filter(o => !loaded(o));
        if (!waiting.length) return [];
        await new Promise(r => setTimeout(r, 100));
    }
    return [...document.querySelectorAll('img, object')].filter(o => !loaded(o)).map(o => o.src || o.data);
}"""

# The page's text without code and typeset maths: raw TeX there is a formula left untypeset.
RAW_TEX = """() => {
    const clone = document.body.cloneNode(true);
    clone.querySelectorAll('script, style, pre, code, mjx-container, .MathJax_Preview, .MathJax, '
                           + '.MathJax_Display, .MathJax_SVG, .MathJax_CHTML').forEach(e => e.remove());
    return (clone.innerText.match(/\\\\\\(|\\\\\\[|\\$\\$|\\\\frac|\\\\sqrt|\\\\mathrm|\\\\operatorname/g) || []);
}"""

# The title page and the table of contents, before the book's first page.  A chapter is the
# root page and each page Sphinx inlined (its <span id="document-...">); the part captions
# come from the navigation.  Each chapter gets a page break and a unique anchor,
# #pdf-chapter-N, which the contents link to.
FRONT_MATTER = """([title, author, year, contents]) => {
    const make = (tag, cls, text) => { const e = document.createElement(tag);
        if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
    const article = document.querySelector('article.bd-article');
    const firstSection = article.querySelector('section');
    const starts = [firstSection, ...[...article.querySelectorAll('span[id^="document-"]')]
        .map(s => s.nextElementSibling)];
    const captionOf = {};
    // the theme's print-only contents of the page (all the book here): its part captions
    const themeToc = document.getElementById('jb-print-docs-body');
    themeToc.querySelectorAll('p.caption').forEach(caption => {
        const list = caption.nextElementSibling;
        list && list.querySelectorAll('a[href^="#document-"]').forEach(a =>
            captionOf[a.getAttribute('href').slice(1)] = caption.textContent.trim());
    });
    themeToc.remove();
    const titlePage = make('section', 'pdf-title-page');
    titlePage.append(make('h1', 'pdf-title', title), make('p', 'pdf-author', author),
                     make('p', 'pdf-year', year));
    const toc = make('nav', 'pdf-toc'); toc.setAttribute('aria-labelledby', 'pdf-toc-heading');
    const heading = make('h1', '', contents); heading.id = 'pdf-toc-heading'; toc.append(heading);
    let list = make('ol', 'pdf-toc-list'), lastCaption = null;
    toc.append(list);
    const chapters = [];
    starts.forEach((section, n) => {
        const head = section.querySelector('h1, h2');
        const name = head.cloneNode(true);
        name.querySelectorAll('.headerlink').forEach(e => e.remove());
        const span = section.previousElementSibling;
        const doc = span && span.id.startsWith('document-') ? span.id : null;
        const caption = doc ? captionOf[doc] : null;
        if (caption && caption !== lastCaption) {
            toc.append(make('p', 'pdf-toc-part', caption));
            list = make('ol', 'pdf-toc-list'); toc.append(list); lastCaption = caption;
        }
        const anchor = make('div', 'pdf-chapter-start'); anchor.id = `pdf-chapter-${n}`;
        section.before(anchor);
        const item = make('li'), link = make('a', 'pdf-toc-entry');
        link.href = `#${anchor.id}`;
        link.append(make('span', 'pdf-toc-title', name.textContent.trim()),
                    make('span', 'pdf-toc-page', '000'));
        item.append(link); list.append(item);
        chapters.push({anchor: anchor.id, title: name.textContent.trim()});
    });
    article.prepend(titlePage, toc);
    document.body.classList.add('pdf-book');   // print.css: the PDF's own rules
    return chapters;
}"""

# A diagram is an <object> (sphinx.ext.graphviz), which Chromium tags as a figure without
# alternative text: on paper it becomes an <img> of the same SVG, with the diagram's alt text.
DIAGRAMS_AS_IMAGES = """() => document.querySelectorAll('object[type="image/svg+xml"]').forEach(object => {
    const image = document.createElement('img');
    for (const name of ['class', 'width', 'height', 'style']) {
        if (object.hasAttribute(name)) image.setAttribute(name, object.getAttribute(name));
    }
    image.alt = object.getAttribute('aria-label') || object.textContent.trim();
    image.src = object.data;
    // its <figure> is a figure too in the tags: the same alternative text
    const figure = object.closest('figure');
    if (figure) figure.setAttribute('aria-label', image.alt);
    object.replaceWith(image);
})"""

# Every chapter's title is a level-1 heading, so that the tagged PDF and its bookmarks list the
# chapters side by side (the one-page build nests them under the introduction's <h1>), and a
# title is one line of text (Chromium writes a line break in it into the bookmark as nothing).
CHAPTER_HEADINGS = """() => document.querySelectorAll('.pdf-chapter-start + section')
    .forEach(section => {
        const head = section.querySelector('h1, h2');
        const walker = document.createTreeWalker(head, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) walker.currentNode.textContent = walker.currentNode.textContent.replace(/\\s+/g, ' ');
        if (head.tagName === 'H2') {
            const h1 = document.createElement('h1');
            for (const attribute of head.attributes) h1.setAttribute(attribute.name, attribute.value);
            h1.append(...head.childNodes);
            head.replaceWith(h1);
        }
    })"""

SET_PAGE_NUMBERS = """(pages) => document.querySelectorAll('.pdf-toc-entry').forEach(link =>
    link.querySelector('.pdf-toc-page').textContent = pages[link.getAttribute('href').slice(1)])"""

# What would be cut off in print: lines of code wider than their box, anything wider than the page.
CLIPPED = """() => {
    const article = document.querySelector('article.bd-article').getBoundingClientRect();
    const shown = e => e.getClientRects().length > 0;
    const wide = [...document.querySelectorAll('article pre')]
        .filter(e => shown(e) && e.scrollWidth > e.clientWidth + 1);
    const out = [...document.querySelectorAll('article section > *, article .cell_output > *, article table')]
        .filter(e => shown(e) && (e.getBoundingClientRect().right > article.right + 1
                                  || e.getBoundingClientRect().left < article.left - 1));
    return [...wide, ...out].map(e => `${e.tagName.toLowerCase()}: ${e.textContent.trim().slice(0, 50)}`);
}"""


def named_destinations(pdf):
    """{name: page} of a PDF's named destinations (poppler's pdfinfo)."""
    out = subprocess.run(["pdfinfo", "-dests", str(pdf)], capture_output=True, text=True, check=True).stdout
    return {m.group(2): int(m.group(1)) for m in re.finditer(r'^\s*(\d+)\s+\[.*\]\s+"(.*)"\s*$', out, re.M)}


def print_edition(browser, url, language, target):
    """Print the one-page edition at `url` into `target`; return (pages, {chapter: page})."""
    page = browser.new_page(viewport={"width": PAGE_WIDTH_PX, "height": 1100})
    page.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())   # offline
    page.goto(f"{url}/{PRINTED_PAGE}", wait_until="networkidle", timeout=300_000)
    if not page.evaluate(WAIT_FOR_MATHJAX):
        raise PdfError(f"{language}: MathJax did not load")
    leftover = page.evaluate(RAW_TEX)
    if leftover:
        raise PdfError(f"{language}: formulas left as raw TeX: {sorted(set(leftover))}")
    page.evaluate(DIAGRAMS_AS_IMAGES)
    missing = page.evaluate(WAIT_FOR_IMAGES)
    if missing:
        raise PdfError(f"{language}: images not loaded: {missing[:3]}")
    title, author, year = book_title(language)
    chapters = page.evaluate(FRONT_MATTER, [title, author, year, WORDS[language]["contents"]])
    page.evaluate(CHAPTER_HEADINGS)
    page.emulate_media(media="print")
    clipped = page.evaluate(CLIPPED)
    if clipped:
        raise PdfError(f"{language}: wider than the page: {clipped[:3]}")
    anchors = [chapter["anchor"] for chapter in chapters]
    with tempfile.TemporaryDirectory() as scratch:
        first = Path(scratch) / "first.pdf"
        page.pdf(path=first, **PDF_OPTIONS)
        starts = {name: at for name, at in named_destinations(first).items() if name in anchors}
        if sorted(starts) != sorted(anchors):
            raise PdfError(f"{language}: Chromium wrote no destination for {sorted(set(anchors) - set(starts))}")
        page.evaluate(SET_PAGE_NUMBERS, starts)
        page.pdf(path=target, **PDF_OPTIONS)
    page.close()
    again = {name: at for name, at in named_destinations(target).items() if name in anchors}
    if again != starts:   # the numbers are as wide as their placeholders: nothing moves
        raise PdfError(f"{language}: the chapters moved between the two passes")
    pages = int(re.search(r"^Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(target)], capture_output=True,
                                                             text=True, check=True).stdout, re.M).group(1))
    return pages, starts


def make_pdfs(path_output, languages=tuple(editions.EDITIONS)):
    from playwright.sync_api import sync_playwright
    build = Path(path_output) / "_build"
    (build / "pdf").mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            for language in languages:
                started = time.monotonic()
                folder = build_single_page(language, path_output)
                built = time.monotonic()
                target = build / "pdf" / f"attention-{language}.pdf"
                with serve(folder) as url:
                    pages, _ = print_edition(browser, url, language, target)
                printed = time.monotonic()
                site = build / "html" / "pdf"
                if (build / "html").is_dir():
                    site.mkdir(exist_ok=True)
                    shutil.copy2(target, site / target.name)
                print(f"{target}: {pages} pages (one-page build {built - started:.0f} s, "
                      f"printing {printed - built:.0f} s)")
        finally:
            browser.close()


def main(argv):
    parser = argparse.ArgumentParser(prog="python book/_ext/pdf.py",
                                     description="Print both editions of the book as PDFs.")
    parser.add_argument("--path-output", default=str(ROOT),
                        help="the PDFs go to PATH_OUTPUT/_build/pdf (and into the site, _build/html/pdf)")
    args = parser.parse_args(argv)
    for tool in ("pdfinfo",):
        if not shutil.which(tool):
            print(f"error: {tool} not found: install Debian's poppler-utils", file=sys.stderr)
            return 1
    if not Path(CHROMIUM).exists():
        print(f"error: {CHROMIUM} not found: install Debian's chromium", file=sys.stderr)
        return 1
    try:
        make_pdfs(args.path_output)
    except PdfError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
