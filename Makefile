# The two commands of the README:
#   make book   create .venv from requirements.txt, build the book into _build/html
#   make test   the same set-up (plus the Debian packages the tests need), then every test
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
# Debian packages the tests use: bubblewrap sandboxes the learner's code when grading,
# postgresql is the shared gradebook's server, chromium and a CJK font drive the
# browser tests of the built book (Japanese glossary terms must render); graphviz
# draws the book's diagrams, so `make book` installs it too.
BOOK_PACKAGES  := graphviz
DEBIAN_PACKAGES := $(BOOK_PACKAGES) bubblewrap postgresql chromium fonts-noto-cjk
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: book test book-packages debian-packages clean

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

book: $(VENV)/.installed book-packages
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "The book is in _build/html: open _build/html/index.html in a browser."

book-packages:
	@$(MAKE) --no-print-directory debian-packages DEBIAN_PACKAGES="$(BOOK_PACKAGES)"

debian-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# Every test: the book build with -W, nbval on every chapter, the exercises,
# the catalogues, the self-check and the instructor's nbgrader workflow.
test: $(VENV)/.installed debian-packages
	PATH="$(BIN):$$PATH" $(BIN)/pytest --nbval --nbval-current-env tests book

clean:
	rm -rf _build $(VENV) *.egg-info
