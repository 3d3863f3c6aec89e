"""The learner's side of grading: runs a submission's code and answers calls.

This file is both a module and a script.

* As a script it runs inside the sandbox (see ``sandbox.py``), in a fresh
  Python without IPython and without access to the repository: it executes the
  learner's code cells, each interrupted past its time as a Jupyter kernel's
  cell is (``_CellTimer``), then answers requests ``call NAME(args)`` with the
  return value.
* As a module it gives the grader process the same wire format (``send``,
  ``receive``), so both sides encode and decode in one place.

Only plain data crosses the pipe: a JSON header plus raw ``.npy`` blobs, read
back with ``allow_pickle=False``.  Nothing the learner's code returns is ever
unpickled or called by the grader; an answer that is not a numeric array is
an error for that call.  The learner's code can corrupt its own answers (it
runs in this process), but never the grader's comparison.  Nothing this
process reports about itself decides a score: the grader measures memory
from outside (``sandbox.py``) and keeps its own copy of every input, so a
changed input is only named ("your function changed its input"), never
copied back.
"""
import contextlib
import io
import json
import linecache
import signal
import struct
import sys
import traceback

import numpy as np

MAX_HEADER_BYTES = 1 << 20       # one JSON header
MAX_MESSAGE_BYTES = 64 << 20     # header plus every array in one message, as sent
# Every array of a message counted as float64, what the checks convert answers to:
# a 64 MiB message of bools would otherwise become 512 MiB in the grader.
MAX_FLOAT64_BYTES = 64 << 20
MAX_BLOBS = 1024
NUMERIC_KINDS = "biuf"           # bool, int, unsigned, float: all an exercise returns


class WireError(Exception):
    """A message that is malformed, too large, or holds something other than plain data."""


# --------------------------------------------------------------------------- encoding
def _encode(value, blobs):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in NUMERIC_KINDS:
            raise WireError(f"an array of dtype {value.dtype} is not numeric")
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(value), allow_pickle=False)
        blobs.append(buffer.getvalue())
        return {"__ndarray__": len(blobs) - 1}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, blobs) for v in value]}
    if isinstance(value, list):
        return [_encode(v, blobs) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode(v, blobs) for k, v in value.items()}}
    raise WireError(f"cannot send an object of type {type(value).__name__}")


def _check_array_header(blob):
    """Read a .npy blob's header: a numeric dtype, a shape, and the array's size as float64."""
    stream = io.BytesIO(blob)
    try:
        version = np.lib.format.read_magic(stream)
        shape, _, dtype = (np.lib.format.read_array_header_1_0(stream) if version == (1, 0)
                           else np.lib.format.read_array_header_2_0(stream))
    except (ValueError, TypeError, SyntaxError) as error:
        raise WireError(f"a malformed array ({error})") from None
    if dtype.kind not in NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise WireError("an array that is not numeric")
    return 8 * int(np.prod(shape, dtype=object))


def _decode(value, blobs):
    if isinstance(value, list):
        return [_decode(v, blobs) for v in value]
    if isinstance(value, dict):
        if set(value) == {"__ndarray__"}:
            array = np.load(io.BytesIO(blobs[int(value["__ndarray__"])]), allow_pickle=False)
            if type(array) is not np.ndarray or array.dtype.kind not in NUMERIC_KINDS:
                raise WireError("an array that is not numeric")
            return array
        if set(value) == {"__tuple__"}:
            return tuple(_decode(v, blobs) for v in value["__tuple__"])
        if set(value) == {"__dict__"}:
            return {str(k): _decode(v, blobs) for k, v in value["__dict__"].items()}
        raise WireError("an unknown object in a message")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise WireError("an unknown value in a message")


def send(stream, message):
    """Write one message (a dict of plain data and NumPy arrays) to a binary stream."""
    blobs = []
    header = json.dumps(_encode(message, blobs)).encode()
    parts = [struct.pack("!II", len(header), len(blobs)), header]
    for blob in blobs:
        parts += [struct.pack("!Q", len(blob)), blob]
    stream.write(b"".join(parts))
    stream.flush()


def _read_exactly(stream, size):
    chunks, missing = [], size
    while missing:
        chunk = stream.read(missing)  # a pipe may return fewer bytes than asked
        if not chunk:
            raise EOFError("the other side closed the pipe")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def receive(stream):
    """Read one message written by ``send``; raise WireError on anything malformed."""
    header_size, blob_count = struct.unpack("!II", _read_exactly(stream, 8))
    if header_size > MAX_HEADER_BYTES or blob_count > MAX_BLOBS:
        raise WireError("message header too large")
    header = _read_exactly(stream, header_size)
    total, as_float64, blobs = header_size, 0, []
    for _ in range(blob_count):
        (size,) = struct.unpack("!Q", _read_exactly(stream, 8))
        total += size
        if total > MAX_MESSAGE_BYTES:
            raise WireError(f"message too large (more than {MAX_MESSAGE_BYTES >> 20} MiB)")
        blobs.append(_read_exactly(stream, size))
        as_float64 += _check_array_header(blobs[-1])
        if as_float64 > MAX_FLOAT64_BYTES:
            raise WireError(f"arrays too large (more than {MAX_FLOAT64_BYTES >> 20} MiB as float64)")
    try:
        return _decode(json.loads(header), blobs)
    except (ValueError, IndexError, KeyError, TypeError, RecursionError) as error:
        raise WireError(f"malformed message: {type(error).__name__}") from None


# --------------------------------------------------------------------------- the sandboxed side
def _one_line(error):
    try:
        detail = str(error).strip().splitlines()
    except BaseException:   # the learner's exception may fail to describe itself
        detail = []
    text = f"{type(error).__name__}: {detail[0]}" if detail else type(error).__name__
    return text[:380] + _where(error)


def _where(error):
    """' (in your function f, called from g: `line`)': the learner's innermost function in the
    traceback, the learner's functions that called it, and its line (the grader names the function
    where the bug is, not only the one it called)."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename.startswith("<cell ")]
    if not frames or frames[-1].name == "<module>":
        return ""   # a cell's own statement: the error is shown next to that cell
    inner = frames[-1]
    callers = [frame.name for frame in frames[:-1] if frame.name not in ("<module>", inner.name)]
    text = f" (in your function {inner.name}"
    if callers:
        text += f", called from {', '.join(dict.fromkeys(reversed(callers)))}"
    line = (inner.line or "").strip().replace("`", "'")
    return text + (f": `{line[:100]}`" if line else "") + ")"


class _IPythonStub:
    """Stands in for get_ipython() so that magics such as %matplotlib do nothing."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _as_plain(value):
    """Turn a learner's return value into numeric arrays (in tuples and str-keyed dicts), or raise WireError."""
    if isinstance(value, tuple):
        return tuple(_as_plain_part(v) for v in value)
    if isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
        return [_as_plain_part(v) for v in value]   # a list stays a list, as a notebook kernel's caller sees it
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _as_plain(v) for k, v in value.items()}   # a KV cache {"K": ..., "V": ...}
    if value is None:
        raise WireError("the function returned None (is a `return` missing?)")
    array = np.array(value, copy=True)  # any array-like: lists, NumPy scalars, subclasses
    if array.dtype.kind not in NUMERIC_KINDS:
        raise WireError(f"the function returned {type(value).__name__}, not a numeric array")
    return np.asarray(array)


UNUSABLE_PART = "(not an array)"


def _as_plain_part(value):
    """A part of a returned tuple; one that is no numeric array (the cache of a backward pass, a list of
    tuples) crosses as ``UNUSABLE_PART``, so that the grader still sees the tuple's form."""
    if value is None:
        return UNUSABLE_PART      # (h, None): a cache that is None
    try:
        return _as_plain(value)
    except (WireError, ValueError, TypeError, RecursionError, MemoryError):   # ragged lists raise ValueError
        return UNUSABLE_PART


def _warm_up():
    """Let NumPy and BLAS set up their buffers (trusted code, before the learner's), so that a
    memory measurement that starts afterwards counts only what the learner's code holds."""
    a = np.ones((512, 256))
    for _ in range(2):
        (a @ a.T[:, :64]).sum()
        np.exp(a).max(axis=1)
        np.einsum("ij,kj->ik", a[:64], a[:64])
    del a


class _CellTimer:
    """Interrupts a cell that runs past its time as Jupyter interrupts a kernel: KeyboardInterrupt
    raised inside the learner's code, so what the cell defined before it stays defined.  The
    learner's code may ignore or swallow it; the grader then kills this process (``sandbox.py``)."""

    def __init__(self):
        self.fired = False

    def _interrupt(self, signum, frame):
        self.fired = True
        raise KeyboardInterrupt

    @contextlib.contextmanager
    def running(self, seconds):
        if not seconds:
            yield
            return
        # Installed again for every cell: an earlier cell may have replaced the handler.
        signal.signal(signal.SIGALRM, self._interrupt)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def serve(requests, replies):
    """Execute cells and answer calls until the grader closes the pipe."""
    namespace = {"__name__": "__main__", "get_ipython": _IPythonStub}
    timer = _CellTimer()
    while True:
        try:
            request = receive(requests)
        except EOFError:
            return
        captured = io.StringIO()
        sys.stdout = sys.stderr = captured
        timer.fired = False  # this request's own
        try:
            if request["op"] == "run_cell":
                filename = f"<cell {request['index']}>"
                # Tracebacks can then quote the learner's line (see _where).
                linecache.cache[filename] = (len(request["source"]), None, request["source"].splitlines(True), filename)
                code = compile(request["source"], filename, "exec")
                with timer.running(request.get("seconds")):
                    exec(code, namespace)
                reply = {"ok": True}
            elif request["op"] == "call":
                function = namespace.get(request["name"])
                if not callable(function):
                    raise NameError(f"no function named {request['name']!r} is defined")
                args = request["args"]
                before = [np.array(a, copy=True) if isinstance(a, np.ndarray) else None for a in args]
                value = _as_plain(function(*args, **request["kwargs"]))
                # Which arguments the call changed in place: the grader names the mistake
                # (its own arrays are untouched, whatever this process says).
                changed = [i for i, (a, b) in enumerate(zip(args, before))
                           if b is not None and not np.array_equal(a, b, equal_nan=True)]
                reply = {"ok": True, "value": value, "changed_args": changed}
            elif request["op"] == "ping":  # before any learner code: what holding the inputs costs
                _warm_up()
                reply = {"ok": True}
            else:
                reply = {"ok": False, "error": f"unknown request {request['op']!r}"}
        except BaseException as error:  # the learner's exception, even SystemExit
            reply = {"ok": False, "error": _one_line(error)}
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        if timer.fired:  # even if the cell caught the interruption and ended normally, as in Jupyter
            reply = {"ok": False, "interrupted": True, "error": "KeyboardInterrupt"}
        reply["output"] = captured.getvalue()[-4000:]
        try:
            send(replies, reply)
        except WireError as error:
            send(replies, {"ok": False, "error": f"could not send the result back: {error}",
                           "output": reply["output"]})


if __name__ == "__main__":
    # The grader names the two inherited pipe ends: requests in, replies out.
    # The learner's prints go to the real stdout, which the grader discards.
    requests_fd, replies_fd = (int(arg) for arg in sys.argv[1:3])
    serve(open(requests_fd, "rb", buffering=0), open(replies_fd, "wb", buffering=0))
