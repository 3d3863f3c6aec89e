# The two commands of the README:
#   make book   create .venv from requirements.txt, build the book: the English
#               edition into _build/html, the Japanese one into _build/html/ja
#               (with the book's wheel, which the learners page links), and both
#               as PDFs, _build/pdf/attention-{en,ja}.pdf (the site links them)
#   make test   the same set-up (plus the Debian packages the tests need), then every test
# and the fast tier, `make check`: ruff and the tests that need no browser, no
# PostgreSQL, no book build and no nbgrader run.
#
# Python 3.11, 3.12 or 3.13: python3 when it is 3.11 or newer, else python3.11;
# PYTHON=/path/to/python overrides.
PYTHON ?= $(shell python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
            && echo python3 || echo python3.11)
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
# Debian packages the tests use: bubblewrap sandboxes the learner's code when grading,
# postgresql is the shared gradebook's server, chromium and a CJK font drive the
# browser tests of the built book (Japanese glossary terms must render); graphviz
# draws the book's diagrams in Noto Sans CJK (both editions' figures use it);
# Chromium prints the PDFs and poppler-utils reads back the page where each chapter
# starts (and the tests read the PDFs with it), so `make book` installs all four;
# Info-ZIP's zip writes LMS zips as many LMSs do (no UTF-8 flag).
BOOK_PACKAGES  := graphviz fonts-noto-cjk chromium poppler-utils
DEBIAN_PACKAGES := $(BOOK_PACKAGES) bubblewrap postgresql zip
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: book locales test check wheel book-packages debian-packages clean

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	# The repository root on sys.path too: setuptools' editable finder comes after the path
	# finder, so run from a course folder (whose data folder is also called autograder/) the
	# package would otherwise be that folder, an empty namespace package.
	$(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' | \
	  xargs -I{} sh -c 'echo "$(CURDIR)" > "{}/attention_book_root.pth"'
	# The Jupyter server extension that serves MathJax 3 to Formgrader (autograder/jupyter_mathjax.py),
	# enabled for this venv as a wheel enables its own: a file in etc/jupyter/jupyter_server_config.d.
	mkdir -p $(VENV)/etc/jupyter/jupyter_server_config.d
	cp autograder/jupyter-config/autograder-mathjax.json $(VENV)/etc/jupyter/jupyter_server_config.d/
	touch $@

book: $(VENV)/.installed book-packages
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python book/_ext/editions.py ja
	$(BIN)/python book/_ext/pdf.py
	@echo "The book is in _build/html: open _build/html/index.html (English) or _build/html/ja/index.html (日本語)."
	@echo "As PDFs: _build/pdf/attention-en.pdf, _build/pdf/attention-ja.pdf."

# After an English edit: the message templates afresh, merged into the Japanese
# catalogs (changed entries become fuzzy, new ones empty; locales/ja/README.md).
locales: $(VENV)/.installed
	@# The HTML and gettext builders cannot share a saved environment: each refuses the other's.
	rm -rf _build/.doctrees
	$(BIN)/jupyter-book build . --builder custom --custom-builder gettext -q
	rm -rf _build/.doctrees
	$(BIN)/sphinx-intl update -p _build/gettext -l ja -d locales
	$(BIN)/python tests/translation.py locales/ja/LC_MESSAGES/book/*.po || \
	  echo "Translate the entries above (locales/ja/README.md), then run make book."

book-packages:
	@$(MAKE) --no-print-directory debian-packages DEBIAN_PACKAGES="$(BOOK_PACKAGES)"

debian-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# The fast tier: lint, then every test that needs neither a browser, nor
# PostgreSQL, nor a book build, nor an nbgrader run, nor a fresh venv.  Three
# pytest-xdist workers on two cores: many tests wait out a time limit of the
# sandbox, and a third worker grades meanwhile.  Tests that must run in order
# share an xdist_group (tests/test_adversarial.py).
XDIST := -n 3 --dist loadgroup
check: $(VENV)/.installed debian-packages
	$(BIN)/ruff check .
	PATH="$(BIN):$$PATH" $(BIN)/pytest $(XDIST) -m "$(FAST)" tests

# The book's package as a wheel (the site ships it too: book/_ext/book_wheel.py).
wheel: $(VENV)/.installed
	$(BIN)/pip wheel --quiet --no-deps --no-build-isolation -w _build/wheel .
	rm -rf build   # setuptools' scratch folder

# Every test: the fast tier first, then every implementation on 20 draws (in parallel:
# each grading is independent), then the rest (the book build with -W, the browser,
# PostgreSQL and nbgrader tests), then nbval on every chapter.
FAST := not browser and not postgres and not book and not nbgrader and not venv and not draws
test: check
	PATH="$(BIN):$$PATH" $(BIN)/pytest $(XDIST) -m draws tests
	PATH="$(BIN):$$PATH" $(BIN)/pytest -m "not ($(FAST)) and not draws" tests
	PATH="$(BIN):$$PATH" $(BIN)/pytest --nbval --nbval-current-env book

clean:
	rm -rf _build build $(VENV) *.egg-info
