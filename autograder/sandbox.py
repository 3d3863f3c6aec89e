"""Start the learner's code in a separate, limited process and talk to it.

The worker (``worker.py``) runs in a fresh Python interpreter, never in the
grader's process and never under IPython.  On Linux with bubblewrap installed
it also runs:

* in an empty root file system that holds only the Python installation
  (read-only) and a small scratch ``/tmp``: no repository, no ``solutions/``,
  no gradebook, no other submission;
* with no network, in its own PID namespace, so every process it starts dies
  with it;
* as an unprivileged user id when the grader runs as root, so that the limit
  on the number of processes applies;
* with limits on CPU time, address space, file size and open files, and a wall
  clock deadline on every request.

Without bubblewrap (a learner's own laptop) the worker is still a separate
process with the same limits and wire format; the instructor's class run
refuses to start without it unless told otherwise (see ``Limits.require_sandbox``).
"""
import dataclasses
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import worker as wire

WORKER_SCRIPT = Path(__file__).with_name("worker.py")


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits for one submission's worker process."""
    cell_seconds: float = 60.0        # wall time to run all of the learner's cells
    call_seconds: float = 20.0        # wall time for one call of a learner's function
    cpu_seconds: int = 120            # CPU time of the worker over its whole life
    total_seconds: float = 300.0      # wall time for the whole submission, all tests together
    memory_bytes: int = 2 << 30       # address space (numpy alone maps ~0.3 GiB)
    max_processes: int = 32           # processes and threads of the sandbox user
    file_bytes: int = 16 << 20        # largest file it may write (in its scratch /tmp)
    require_sandbox: bool = False     # refuse to run without bubblewrap


class WorkerError(Exception):
    """The worker died, timed out, or answered with something that is not plain data."""


class WorkerTimeout(WorkerError):
    """The learner's code ran past a wall-clock limit."""


class WorkerDied(WorkerError):
    """The worker process died (killed, out of memory, exited) or sent garbage."""


class RemoteError(Exception):
    """The learner's code raised an exception; ``str()`` is its one-line description."""


def sandbox_available():
    return sys.platform.startswith("linux") and shutil.which("bwrap") is not None


def _worker_environment():
    env = {
        "PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1",
        # one thread each: the grader may run one worker per core
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    }
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # needed on some CPUs here
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _bind_read_only(path, created):
    """bwrap arguments that bind ``path`` read-only, creating world-readable parents."""
    args = []
    for parent in reversed(Path(path).parents):
        if str(parent) != "/" and str(parent) not in created:
            created.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    created.add(str(path))
    return args + ["--ro-bind", str(path), str(path)]


def _bwrap_command(python):
    created = set()
    args = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--proc", "/proc",
            "--dev", "/dev", "--size", str(64 << 20), "--tmpfs", "/tmp", "--chdir", "/tmp"]
    system = ["/usr"] + [p for p in ("/lib", "/lib64", "/bin") if Path(p).exists()]
    for path in system:
        if Path(path).is_symlink():
            args += ["--symlink", os.readlink(path), path]
        else:
            args += _bind_read_only(path, created)
    interpreter = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(python)).parent.parent}
    for path in sorted(interpreter):
        if not any(str(path).startswith(done + "/") or str(path) == done for done in created):
            args += _bind_read_only(path, created)
    args += ["--perms", "0755", "--dir", "/grader", "--ro-bind", str(WORKER_SCRIPT), "/grader/worker.py"]
    if os.geteuid() == 0:
        # Drop root: the process limit is not enforced for root.  A different
        # uid per grader process keeps parallel graders from sharing the limit.
        uid = str(60000 + os.getpid() % 5000)
        args += ["--", "/usr/bin/setpriv", "--reuid", uid, "--regid", uid, "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all"]
    else:
        args += ["--"]
    return args + [python, "-I", "/grader/worker.py"]


def _set_limits(limits, limit_processes):
    import resource

    def apply():
        os.setsid()  # its own process group, killed as a whole at the end
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if limit_processes:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    return apply


class _DeadlineReader:
    """A file-like reader on a pipe whose reads fail after a deadline."""

    def __init__(self, fd):
        self.fd, self.deadline = fd, None

    def read(self, size):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
            raise TimeoutError
        return os.read(self.fd, min(size, 1 << 20))


class Worker:
    """One sandboxed interpreter holding one submission's code."""

    def __init__(self, limits=Limits()):
        self.limits = limits
        self.process = None
        self.scratch = None

    # -- life cycle
    def start(self):
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        sandboxed = sandbox_available()
        if not sandboxed and self.limits.require_sandbox:
            raise WorkerError("bubblewrap (bwrap) is not installed: refusing to grade without a sandbox")
        python = sys.executable
        if sandboxed:
            command, cwd = _bwrap_command(python), "/"
            limit_processes = True
        else:
            self.scratch = tempfile.mkdtemp(prefix="attention-grading-")
            command, cwd = [python, "-I", str(WORKER_SCRIPT)], self.scratch
            limit_processes = False  # as an ordinary user the count includes all their processes
        # The worker is told which inherited descriptors are its two pipe ends.
        self.process = subprocess.Popen(
            command + [str(requests_read), str(replies_write)], cwd=cwd, env=_worker_environment(),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(requests_read, replies_write),
            preexec_fn=_set_limits(self.limits, limit_processes),
        )
        os.close(requests_read)
        os.close(replies_write)
        self._requests = os.fdopen(requests_write, "wb", buffering=0)
        self._replies = _DeadlineReader(replies_read)
        return self

    def close(self):
        """Kill the worker and everything it started; remove its scratch folder."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
            self._requests.close()
            os.close(self._replies.fd)
            self.process = None
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    @property
    def alive(self):
        return self.process is not None and self.process.poll() is None

    # -- requests
    def _request(self, message, seconds):
        if not self.alive:
            raise WorkerDied("the Python process running your code is not running")
        self._replies.deadline = time.monotonic() + seconds
        try:
            wire.send(self._requests, message)
            reply = wire.receive(self._replies)
        except TimeoutError:
            self.close()
            raise WorkerTimeout(f"your code did not finish within {seconds:g} s "
                                "(an endless loop, or far too slow)") from None
        except (EOFError, BrokenPipeError, OSError):
            code = self.process.wait() if self.process else None
            self.close()
            raise WorkerDied(_death_reason(code)) from None
        except wire.WireError as error:
            self.close()
            raise WorkerDied(f"the process running your code sent back garbage ({error})") from None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self.close()
            raise WorkerDied("the process running your code sent back garbage")
        return reply

    def run_cell(self, index, source):
        """Execute one learner cell; return (error line or None, captured output)."""
        reply = self._request({"op": "run_cell", "index": index, "source": source}, self.limits.cell_seconds)
        return (None if reply["ok"] else str(reply.get("error"))), str(reply.get("output", ""))

    def call(self, name, args, kwargs, trace_memory=False):
        """Call the learner's function ``name``; return its value as plain arrays.

        With ``trace_memory`` return ``(value, peak_bytes)``: the peak that
        tracemalloc saw while the call ran, measured inside the worker.
        """
        reply = self._request({"op": "call", "name": name, "args": list(args), "kwargs": dict(kwargs),
                               "trace_memory": bool(trace_memory)}, self.limits.call_seconds)
        if not reply["ok"]:
            raise RemoteError(str(reply.get("error")))
        for index, after in dict(reply.get("changed_args") or {}).items():
            target = args[int(index)] if str(index).isdigit() and int(index) < len(args) else None
            if isinstance(target, np.ndarray) and isinstance(after, np.ndarray) and target.shape == after.shape:
                np.copyto(target, after, casting="unsafe")  # mirror the learner's in-place change
        if trace_memory:
            peak = reply.get("peak_bytes")
            if not isinstance(peak, int) or peak < 0:
                raise WorkerDied("the process running your code sent back garbage")
            return reply["value"], peak
        return reply["value"]


def _death_reason(code):
    if code is not None and code < 0:
        sig = -code
        if sig == signal.SIGKILL:
            return "the Python process running your code was killed (it probably used too much memory)"
        if sig == signal.SIGXCPU:
            return "your code used more CPU time than allowed"
        return f"the Python process running your code died with signal {signal.Signals(sig).name}"
    return f"the Python process running your code exited (exit code {code})"
