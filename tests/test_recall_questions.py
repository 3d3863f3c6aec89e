r"""Recall questions ask what the exam table above them does not answer.

Every chapter ends with `## How this is asked in exams`, a table (the question | what makes
an answer right | the trap), and then `## Recall questions`, bold numbered questions with
folded answers. A recall question whose answer can be copied from a row of the table, just
above it, makes the learner retrieve nothing; an outside review found 6 of 7 such questions
in chapter 1 and 6 of 8 in chapter 3. Here at most one question per chapter may repeat a row.

Two measures, each the cosine similarity of TF-IDF vectors, for one recall question and one
table row: the question with its answer against the row's question with its "what makes an
answer right" (an answer copied from the row), and the question alone against the row's
question (the row's question asked again). Words are lower-cased, stop words and LaTeX layout
commands (``\mathbf``, ``\operatorname``, ...) dropped, other LaTeX names (``\tanh``,
``\sqrt``) and numbers kept; a word's weight is its count times its inverse document frequency
over the paragraphs of the chapter's markdown, so that the words of the whole chapter (softmax,
scores, weights) count little and the words of one row much. A question repeats a row when
either of its largest cosines over the rows is above 0.4.

Calibrated on the questions the review found (REVIEWED below, the sections of commit bce2cab):
5 of the 7 questions of chapter 1 and 5 of the 8 of chapter 3 repeat a row by this measure, and
any five of them in one chapter fail the test (a breaker's trial kept five of each). The
rewritten questions of chapters 1-12 repeat at most one row per chapter by it. What the measure
cannot see is a row copied in other words: it counts shared words, so a paraphrase passes.

Pure Python, a fraction of a second: the fast tier.
"""
import json
import math
import re
from collections import Counter

import pytest

import helpers

THRESHOLD = 0.4
AT_MOST_ABOVE = 1
QUESTIONS_PER_CHAPTER = range(5, 9)
# Every chapter: 1-9 rewritten first, then 10-12.
CHAPTERS = range(1, 13)

TABLE, RECALL = "How this is asked in exams", "Recall questions"
STOP_WORDS = set("""
a about after again all also although an and any are as at be because been before being
between both but by can cannot could did do does done down each else every for from further
get gets give given gives got had has have having he her here his how i if in into is it its
just may might more most must no nor not of off on once one only onto or other our out over
own per same shall she should since so some such than that the their them then there these
they this those though three to too two under up very via was we were what when where whereas
which while who whom whose why will with would you your""".split())
# LaTeX that lays out or decorates maths but names nothing a learner retrieves.
LAYOUT = set("""
aligned approx begin big bigl bigr biggl biggr blacksquare bmatrix boldsymbol cdot cdots
ddots end frac ge in infty iff ldots le left lvert lVert mathbb mathbf mathcal mathrm mid ne
operatorname overleftarrow overrightarrow pmatrix qquad quad right rvert rVert text textrm
tilde times to top vdots xrightarrow""".split())
ANSWER = re.compile(r"```\{admonition\} Answer\n:class: dropdown\n(.*?)```", re.S)

# The recall questions the review found repeating the table (commit bce2cab), kept to show
# that the measure catches them.
REVIEWED = {
    "01_softmax": r"""## Recall questions

**1. State the three basic properties of the softmax and the reason for each.**

```{admonition} Answer
:class: dropdown
Positive, since $\exp > 0$; sums to 1, since every entry is divided by the sum of
all; order-preserving, since $\exp$ is increasing and the denominator is shared.
```

**2. In $V \operatorname{Softmax}(K^\top Q)$ with $Q \in \mathbb{R}^{d_k \times n}$,
$K \in \mathbb{R}^{d_k \times m}$ and $V \in \mathbb{R}^{d_v \times m}$, what shape
do the weights have, and which axis sums to 1? What changes in the row convention?**

```{admonition} Answer
:class: dropdown
$m \times n$, each **column** summing to 1 (`axis=0`). In
$\operatorname{softmax}(QK^\top)V$ they are $n \times m$, each **row** summing to
1: the transpose.
```

**3. Prove that $\operatorname{softmax}(x + c\mathbf{1}) = \operatorname{softmax}(x)$.
Why does $c = -\max_j x_j$ prevent overflow and division by zero?**

```{admonition} Answer
:class: dropdown
$e^{c}$ multiplies numerator and denominator and cancels. After the shift every
exponential is at most 1, and the largest is exactly 1, so the denominator is at
least 1.
```

**4. What does $\operatorname{softmax}(x/T)$ tend to as $T \to 0^+$ and as
$T \to \infty$, for $x = (2, 1, 0.1, -1)$? Is the softmax scale invariant?**

```{admonition} Answer
:class: dropdown
$(1, 0, 0, 0)$ and $(1/4, 1/4, 1/4, 1/4)$. No: scaling the scores scales the
gaps, and $s_i/s_j = e^{x_i - x_j}$ depends on them.
```

**5. Why can a soft alignment be trained by gradient descent while a hard
alignment cannot?**

```{admonition} Answer
:class: dropdown
Soft weights are smooth in every score, so the gradient reaches every score and
the network behind it; the argmax is piecewise constant, with gradient 0 almost
everywhere.
```

**6. Derive the Jacobian of the softmax. Why does each row sum to 0, and why is it
singular?**

```{admonition} Answer
:class: dropdown
The quotient rule gives $\partial s_i/\partial x_j = s_i(\delta_{ij} - s_j)$, so
$J = \operatorname{diag}(s) - ss^\top$. Row $i$ sums to $s_i - s_i\sum_j s_j = 0$:
$J\mathbf{1} = 0$, a non-zero null vector, so $J$ is singular (rank $m - 1$).
```

**7. What weight does a score of $-\infty$ receive? And a finite score 1000 below
the maximum, in `float64`? What if every score is $-\infty$?**

```{admonition} Answer
:class: dropdown
Exactly 0 in both cases: $\exp(-\infty) = 0$, and $e^{-1000}$ underflows (from
about 745 below the maximum). If every score is $-\infty$, the shift forms
$-\infty - (-\infty)$ and every weight is `nan`.
```""",
    "03_additive_attention": r"""## Recall questions

**1. List the three steps of additive attention in order, with a formula for each.**

```{admonition} Answer
:class: dropdown
$e_{ij} = \mathbf{v}_a^\top \tanh(W_a \mathbf{s}_{i-1} + U_a \mathbf{h}_j)$; then
$\alpha_{ij} = \exp(e_{ij}) / \sum_k \exp(e_{ik})$ over the input positions; then
$\mathbf{c}_i = \sum_j \alpha_{ij} \mathbf{h}_j$.
```

**2. What do the indices $i$ and $j$ stand for, and why does $\boldsymbol{\alpha}_i$
change from one output step to the next?**

```{admonition} Answer
:class: dropdown
$i$ is the output step, $j$ the input position; the weights of step $i$ come from
$\mathbf{s}_{i-1}$, which changes after every output word.
```

**3. Is the context vector the annotation with the largest weight? Why does it matter for
training?**

```{admonition} Answer
:class: dropdown
No, it is the weighted sum of all of them. The argmax choice has zero gradient
almost everywhere; the soft sum has
$\partial \mathbf{c}_i / \partial e_{ij} = \alpha_{ij}(\mathbf{h}_j - \mathbf{c}_i)$.
```

**4. Give the shapes of $W_a$, $U_a$, $\mathbf{v}_a$, the scores, the weights and the context
for one output step, in the row convention of this book.**

```{admonition} Answer
:class: dropdown
$W_a$ $(d_a, d_s)$, $U_a$ $(d_a, d_h)$, $\mathbf{v}_a$ $(d_a,)$, $HU_a^\top$
$(T_x, d_a)$, scores and weights $(T_x,)$, context $(d_h,)$; for all steps,
$(T_y, T_x)$ and $(T_y, d_h)$.
```

**5. Which decoder state do Bahdanau et al. use in the score, and which do Luong et al. use?**

```{admonition} Answer
:class: dropdown
Bahdanau: the previous state $\mathbf{s}_{i-1}$, and $\mathbf{c}_i$ enters
$\mathbf{s}_i$. Luong: the current state $\mathbf{h}_t$, and $\mathbf{c}_t$ enters
$\tilde{\mathbf{h}}_t$, which input feeding passes to the next step.
```

**6. What would happen to the weights if the $\tanh$ were removed from the score?**

```{admonition} Answer
:class: dropdown
The decoder term $\mathbf{v}_a^\top W_a \mathbf{s}_{i-1}$ would be the same for
every $j$ and cancel in the softmax: the same weights at every step.
```

**7. Where is the bottleneck of the plain encoder–decoder, and how does additive attention
remove it? What does it cost?**

```{admonition} Answer
:class: dropdown
In the single vector $\mathbf{c} = \mathbf{h}_{T_x}$. Every step reads a weighted
sum of all $T_x$ annotations instead, at the cost of $T_y \cdot T_x$ scores and
keeping every annotation.
```

**8. Quote Bahdanau et al.'s main comparison and describe their Figures 2 and 3.**

```{admonition} Answer
:class: dropdown
RNNsearch-50 26.75 BLEU against 17.82 for RNNencdec-50. Figure 2: RNNencdec's BLEU
falls with sentence length, RNNsearch-50's does not. Figure 3: mostly monotone
alignments with local reorderings, such as adjective–noun order.
```""",
}


def chapter_paths():
    paths = sorted(helpers.REPO.glob("book/[0-9][0-9]_*.ipynb"))
    return [p for p in paths if int(p.name[:2]) in CHAPTERS]


def markdown_of(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


def section(markdown, title):
    """The text of the section `## title`, up to the next `## ` heading."""
    text = "\n\n".join(markdown)
    start = text.index(f"## {title}\n") + len(title) + 4
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


def with_recall(markdown, recall):
    """The chapter's markdown with its `## Recall questions` section replaced."""
    out = []
    for text in markdown:
        if f"## {RECALL}\n" in text:
            start = text.index(f"## {RECALL}\n")
            end = text.find("\n## ", start)
            text = text[:start] + recall + ("" if end < 0 else "\n" + text[end:])
        out.append(text)
    return out


def table_rows(markdown):
    """(the question, what makes an answer right) of every row of the exam table."""
    lines = [line for line in section(markdown, TABLE).splitlines() if line.startswith("|")]
    rows = [[cell.strip() for cell in line.strip().strip("|").split(" | ")] for line in lines[2:]]
    assert rows and all(len(row) == 3 for row in rows), "the exam table must have 3 columns"
    return [(question, right) for question, right, _trap in rows]


def recall_questions(markdown):
    """(number, question, answer) of every recall question."""
    parts = re.split(r"(?m)^\*\*(\d+)\. ", section(markdown, RECALL))
    questions = []
    for number, body in zip(parts[1::2], parts[2::2]):
        answer = ANSWER.search(body)
        assert answer, f"question {number} has no folded answer (```{{admonition}} Answer, :class: dropdown)"
        questions.append((int(number), body[:answer.start()].strip(), answer.group(1).strip()))
    return questions


def words(text):
    """The content words of a text: lower-case, stop words and LaTeX layout dropped, names of
    other LaTeX commands and numbers kept, a plural -s cut."""
    text = re.sub(r"\\([A-Za-z]+)", lambda m: " " if m.group(1) in LAYOUT else f" {m.group(1)} ", text)
    out = []
    for word in re.findall(r"[A-Za-z]+|\d+(?:\.\d+)?", text):
        word = word.lower()
        if word in STOP_WORDS or (len(word) < 3 and not word[0].isdigit()):
            continue
        out.append(word[:-1] if word.endswith("s") and len(word) > 4 else word)
    return out


def repetition_scores(markdown, with_answers=True):
    """{question number: largest TF-IDF cosine of the question with a row of the table}.

    with_answers: the question and its answer against the row's question and what makes an
    answer right (an answer copied from a row); otherwise the question alone against the row's
    question (the table's question asked again, whatever the answer says)."""
    paragraphs = [p for text in markdown for p in re.split(r"\n\s*\n", text) if p.strip()]
    frequency = Counter(word for p in paragraphs for word in set(words(p)))

    def vector(text):
        counts = Counter(words(text))
        return {w: n * (math.log((len(paragraphs) + 1) / (frequency[w] + 1)) + 1)
                for w, n in counts.items()}

    def cosine(a, b):
        dot = sum(value * b.get(word, 0.0) for word, value in a.items())
        norm = math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
        return dot / norm if norm else 0.0

    rows = [vector(f"{question} {right}" if with_answers else question)
            for question, right in table_rows(markdown)]
    return {number: max(cosine(vector(f"{question} {answer}" if with_answers else question), row)
                        for row in rows)
            for number, question, answer in recall_questions(markdown)}


def repeating(markdown):
    """{question number: its scores} for the questions that repeat a row: their answer copies
    the row's, or they ask the row's question again."""
    copied, asked = repetition_scores(markdown), repetition_scores(markdown, with_answers=False)
    return {number: (round(copied[number], 2), round(asked[number], 2)) for number in copied
            if copied[number] > THRESHOLD or asked[number] > THRESHOLD}


def test_every_chapter_has_both_sections():
    paths = chapter_paths()
    assert [int(p.name[:2]) for p in paths] == list(CHAPTERS)
    for path in paths:
        text = "\n\n".join(markdown_of(path))
        assert f"## {TABLE}\n" in text and f"## {RECALL}\n" in text, path.name
        assert text.index(f"## {TABLE}\n") < text.index(f"## {RECALL}\n"), path.name


@pytest.mark.parametrize("path", chapter_paths(), ids=lambda p: p.stem)
def test_recall_questions_ask_what_the_table_does_not_answer(path):
    markdown = markdown_of(path)
    questions = recall_questions(markdown)
    assert len(questions) in QUESTIONS_PER_CHAPTER, f"{len(questions)} recall questions"
    assert [number for number, _, _ in questions] == list(range(1, len(questions) + 1))
    above = repeating(markdown)
    assert len(above) <= AT_MOST_ABOVE, (
        f"questions {sorted(above)} repeat a row of the exam table (score above {THRESHOLD}: "
        f"{above}); ask for a computation, a prediction or a reason the table does not give")


@pytest.mark.parametrize("name", sorted(REVIEWED))
def test_the_measure_catches_the_questions_the_review_found(name):
    markdown = markdown_of(helpers.REPO / "book" / f"{name}.ipynb")
    above = repeating(with_recall(markdown, REVIEWED[name]))
    assert len(above) > AT_MOST_ABOVE, f"the reviewed questions of {name} pass: {above}"


@pytest.mark.parametrize("name, kept", [("01_softmax", (1, 2, 4, 5, 6)),
                                        ("03_additive_attention", (1, 4, 5, 7, 8))])
def test_five_of_the_reviewed_questions_fail_too(name, kept):
    """A breaker's trial: five of the reviewed questions, renumbered, in one chapter."""
    blocks = [b for b in re.split(r"(?m)^(?=\*\*\d+\. )", REVIEWED[name]) if b.startswith("**")]
    recall = f"## {RECALL}\n\n" + "".join(
        re.sub(r"^\*\*\d+\.", f"**{number}.", blocks[old - 1]) for number, old in enumerate(kept, 1))
    markdown = markdown_of(helpers.REPO / "book" / f"{name}.ipynb")
    assert len(repeating(with_recall(markdown, recall))) > AT_MOST_ABOVE
