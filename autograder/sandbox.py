"""Start the learner's code in a separate, limited process and talk to it.

The worker (``worker.py``) runs in a fresh Python interpreter, never in the
grader's process and never under IPython.  On Linux with bubblewrap installed
it also runs:

* in an empty root file system that holds only the Python installation
  (read-only) and a small scratch ``/tmp``: no repository, no ``solutions/``,
  no gradebook, no other submission; the grader's package and the book's
  library, when installed there, and a course folder inside the installation
  are covered by empty folders (``_bwrap_command``);
* with no network, in its own PID namespace, so every process it starts dies
  with it;
* as an unprivileged user id when the grader runs as root, so that the limit
  on the number of processes applies;
* with limits on CPU time, address space, file size and open files, and a wall
  clock deadline on every request;
* in a memory cgroup of its own where the machine offers one (cgroup v2, or the
  v1 memory controller), which bounds the memory of the whole process tree and
  gives the grader the kernel's count of its peak (``MemoryCgroup``).  Without
  one (or without the sandbox, which keeps the count out of the learner's
  reach), memory is bounded per process only and a peak cannot be measured
  (``MemoryUnmeasurable``): nothing else in the kernel counts a whole process
  tree, exited processes included, in a way the tree's own code cannot reset.

Without bubblewrap (a learner's own laptop) the worker is still a separate
process with the same limits and wire format; the instructor's class run
refuses to start without it unless told otherwise (see ``Limits.require_sandbox``).
"""
import contextlib
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


from . import safe
from . import worker as wire
from .i18n import N_, _

WORKER_SCRIPT = Path(__file__).with_name("worker.py")


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits for one submission (book/instructors.md, "Limits", states them)."""
    cell_seconds: float = 60.0        # wall time of one learner cell, then it is interrupted (nbgrader's Execute.timeout)
    call_seconds: float = 20.0        # wall time for one call of a learner's function
    cpu_seconds: int = 120            # CPU time of one worker over its whole life
    total_seconds: float = 300.0      # wall time for the whole submission, enforced during every request
    memory_bytes: int = 2 << 30       # address space of each process (numpy alone maps ~0.3 GiB)
    tree_memory_bytes: int = 1 << 30  # memory of the whole sandboxed process tree (cgroup)
    max_processes: int = 32           # processes and threads of the sandbox user
    file_bytes: int = 16 << 20        # largest file it may write (in its scratch /tmp)
    reply_bytes: int = 256 << 20      # everything the worker may send back, all replies together
    output_chars: int = 20_000        # printed output and error lines kept, all cells together
    require_sandbox: bool = False     # refuse to run without bubblewrap


class WorkerError(Exception):
    """The worker died, timed out, or answered with something that is not plain data."""


class WorkerTimeout(WorkerError):
    """The learner's code ran past a wall-clock limit."""


class DeadlinePassed(WorkerTimeout):
    """The whole submission ran past its wall-clock limit (``Limits.total_seconds``)."""


class CellInterrupted(WorkerTimeout):
    """A learner cell ran past ``Limits.cell_seconds`` and the worker interrupted it, as Jupyter
    interrupts a kernel; the worker lives on with what the cell defined before.  ``output`` is
    what the cell printed."""

    def __init__(self, message, output):
        super().__init__(message)
        self.output = output


class CellHung(WorkerTimeout):
    """A learner cell did not stop when interrupted (it ignores or swallows the interruption);
    its worker was killed."""


class WorkerDied(WorkerError):
    """The worker process died (killed, out of memory, exited) or sent garbage."""


class RemoteError(Exception):
    """The learner's code raised an exception; ``str()`` is its one-line description."""


class MemoryUnmeasurable(WorkerError):
    """A call's peak memory was asked for, and this machine gives the grader no memory cgroup out of
    the learner's reach (``count_out_of_reach``), or its count could not be read: no figure rather than
    one the learner's code could have lowered (``/proc``'s VmHWM: reset by ``clear_refs``, blind to
    exited children; ``getrusage``: the largest single child, never the tree's sum).  ``str()``
    is the one line a memory test then says (``Kind.NOT_MEASURED``)."""

    def __init__(self):
        super().__init__(_(MEMORY_UNMEASURABLE))


MEMORY_UNMEASURABLE = N_(
    "not measured on this machine: a bound on memory needs a memory cgroup out of your code's reach (the sandbox, "
    "bubblewrap, with cgroup v2's memory controller delegated to the grader, or cgroup v1 as root), and the grader "
    "has none here; the class run measures it on a machine that has one, a laptop's self-check cannot")


# --------------------------------------------------------------------------- memory cgroups
def _own_cgroup(version_line):
    """This process's cgroup path in the hierarchy whose /proc/self/cgroup line matches."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            number, controllers, path = line.split(":", 2)
            if version_line(number, controllers.split(",")):
                return path
    except (OSError, ValueError):
        pass
    return None


def _mount_point(fstype, option=None):
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, right = line.split(" - ", 1)
            fields, extra = left.split(), right.split()
            if extra[0] == fstype and (option is None or option in extra[2].split(",")):
                return Path(fields[4])
    except (OSError, ValueError, IndexError):
        pass
    return None


class MemoryCgroup:
    """A memory cgroup for one worker's process tree: a limit, the kernel's peak, and kill-all.

    cgroup v2 (``memory.max``, ``memory.peak``) where the grader's cgroup may have
    children with the memory controller, else the v1 memory controller
    (``memory.limit_in_bytes``, ``memory.max_usage_in_bytes``).  ``create`` returns
    None when neither is writable (then the worker is bounded per process only).

    The kernel counts every page the tree is charged for, exited processes' included;
    ``count_out_of_reach`` says when the learner's code cannot reset that count.
    """
    _count = 0

    def __init__(self, path, version):
        self.path, self.version = path, version
        self._peak_file = None   # v2: the open memory.peak whose own peak was reset (``reset_peak``)

    @classmethod
    def create(cls, limit_bytes):
        cls._count += 1
        name = f"attention-grader-{os.getpid()}-{cls._count}"
        for version, parent in ((2, cls._v2_parent()), (1, cls._v1_parent())):
            if parent is None:
                continue
            group = cls(parent / name, version)
            try:
                group.path.mkdir()
            except OSError:
                continue
            try:
                group._limit(limit_bytes)
                return group
            except OSError:
                group.remove()
        return None

    @staticmethod
    def _v2_parent():
        mount, own = _mount_point("cgroup2"), _own_cgroup(lambda n, c: n == "0")
        if mount is None or own is None:
            return None
        parent = mount / own.lstrip("/")
        try:
            if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
                return None
        except OSError:
            return None
        return parent

    @staticmethod
    def _v1_parent():
        mount, own = _mount_point("cgroup", "memory"), _own_cgroup(lambda n, c: "memory" in c)
        if mount is None or own is None:
            return None
        parent = mount / own.lstrip("/")
        return parent if (parent / "memory.limit_in_bytes").exists() else None

    def _write(self, name, value):
        with open(self.path / name, "w") as handle:
            handle.write(str(value))

    def _read_int(self, name):
        try:
            text = (self.path / name).read_text().strip()
            return int(text) if text.isdigit() else None
        except OSError:
            return None

    def _limit(self, limit_bytes):
        if self.version == 2:
            self._write("memory.max", limit_bytes)
            with contextlib.suppress(OSError):
                self._write("memory.swap.max", 0)
        else:
            self._write("memory.limit_in_bytes", limit_bytes)
            with contextlib.suppress(OSError):  # no swap accounting on this kernel
                self._write("memory.memsw.limit_in_bytes", limit_bytes)

    def add_self(self):
        """Put the calling process in the group (its children follow); runs in the child before exec."""
        self._write("cgroup.procs", os.getpid())

    def reset_peak(self):
        """Start counting the peak from now (v1: write 0; v2, Linux 6.12+: write through one open file,
        which resets the peak that file reads and no other).

        On v2 before Linux 6.12 the peak counts from the group's creation: the interpreter's start
        is counted too, so the figure can only be higher than the truth (by about 1 MB), never lower."""
        if self.version == 1:
            with contextlib.suppress(OSError):
                self._write("memory.max_usage_in_bytes", 0)
            return
        try:
            peak_file = open(self.path / "memory.peak", "r+")
        except OSError:
            return   # no per-file reset on this kernel
        try:
            peak_file.write("reset\n")
            peak_file.flush()
        except OSError:
            peak_file.close()
            return
        self._peak_file = peak_file

    def usage(self):
        return self._read_int("memory.current" if self.version == 2 else "memory.usage_in_bytes")

    def peak(self):
        """The most memory the tree has held since ``reset_peak`` (or creation), in bytes, or None."""
        if self._peak_file is not None:
            try:
                self._peak_file.seek(0)
                return int(self._peak_file.read().strip())
            except (OSError, ValueError):
                return None
        return self._read_int("memory.peak" if self.version == 2 else "memory.max_usage_in_bytes")

    def oom_kills(self):
        """How many processes of the tree the kernel killed for passing the limit (v2 ``memory.events``,
        v1 ``memory.oom_control``), or None where the kernel does not say: a fact the learner's code
        cannot forge, unlike an exit code."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            lines = (self.path / name).read_text().splitlines()
        except OSError:
            return None
        counts = dict(line.split(None, 1) for line in lines if len(line.split()) == 2)
        return int(counts["oom_kill"]) if counts.get("oom_kill", "").isdigit() else None

    def kill_all(self):
        try:
            pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self):
        if self._peak_file is not None:
            self._peak_file.close()
            self._peak_file = None
        for _attempt in range(50):  # the processes may take a moment to be gone
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                self.kill_all()
                time.sleep(0.02)


def count_out_of_reach(cgroup, sandboxed):
    """Can the learner's code neither reset ``cgroup``'s count of the peak nor move a process out of it?

    Only inside the sandbox: it has no ``/sys`` and a cgroup namespace rooted at the group, so a
    cgroup file system its code mounts in a user namespace of its own shows that group alone (a
    child group it makes there is counted in its parent).  There v2 is out of reach for any uid (a
    write to ``memory.peak`` resets only the writer's own open file), v1 only when the group's files
    belong to another uid than the sandbox's, that is when the grader runs as root and the sandbox
    as an unprivileged uid: writing 0 to v1's ``memory.max_usage_in_bytes`` resets it for everyone.
    """
    return cgroup is not None and sandboxed and (cgroup.version == 2 or os.geteuid() == 0)


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


def _inside(path, folder):
    return path.startswith(folder.rstrip("/") + "/")


def _grader_packages(prefixes):
    """The folders of this package and of the book's library (``attention``) wherever the worker's
    Python finds packages: with a non-editable install they hold the public course and the library's
    reference implementations."""
    import site
    folders = {Path(__file__).resolve().parent}
    for entry in [*sys.path, *site.getsitepackages(sorted(map(str, prefixes)))]:
        folders |= {Path(entry) / name for name in ("autograder", "attention") if entry}
    return folders


def _hide(paths, bound, keep):
    """bwrap arguments that cover each folder of ``paths`` lying inside a bound folder of ``bound``
    with an empty, read-only tmpfs, binding again a folder of ``keep`` (the worker's Python) that lies
    inside it (a venv made in a course).  WorkerError for one that is itself the worker's Python (a
    venv made as the course folder): it could be neither shown nor covered."""
    args = []
    for path in sorted({os.path.realpath(p) for p in paths if os.path.isdir(p)}):
        if any(path == os.path.realpath(folder) for folder in [*bound, *map(str, keep)]):
            raise WorkerError(_("the course folder {path} is also the Python installation that runs your code: "
                                "the instructor must make the venv outside the course").format(path=path))
        where = next((folder + path[len(os.path.realpath(folder)):] for folder in bound
                      if _inside(path, os.path.realpath(folder))), None)
        if where is None:
            continue   # outside every bound folder: the worker cannot see it anyway
        args += ["--tmpfs", where]
        args += [arg for folder in sorted(map(str, keep)) if _inside(os.path.realpath(folder), path)
                 for arg in ("--ro-bind", folder, folder)]
        args += ["--remount-ro", where]
    return args


def sandbox_uid(pid=None):
    """The unprivileged uid the sandboxes of grader process ``pid`` (default: this one) run as when the
    grader is root: one per grader process, so that parallel graders do not share the process limit,
    and never an account of this machine (whose files it could then read or write, an exchange's say)."""
    import grp
    import pwd
    uid = 60000 + (os.getpid() if pid is None else pid) % 5000
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            try:
                grp.getgrgid(uid)     # the same number is its group id
            except KeyError:
                return uid
        uid += 5000   # the accounts of a machine are finitely many


def _bwrap_command(python, hidden=()):
    """bwrap's command line for the worker: an empty root holding the system's libraries and the
    Python installation, read-only, and nothing that holds a reference solution, a model answer,
    the course's secret or its gradebook.

    Binding an installation binds what is installed in it: the grader's own package and the book's
    library (``_grader_packages``), and maybe the course itself (``hidden``: its root, under /usr or
    in a venv), which an empty tmpfs then covers.  The worker needs none of them: worker.py is bound
    alone, runs with -I and imports only the standard library and NumPy."""
    created, bound = set(), []
    args = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--proc", "/proc",
            "--dev", "/dev", "--size", str(64 << 20), "--tmpfs", "/tmp", "--chdir", "/tmp"]
    system = ["/usr"] + [p for p in ("/lib", "/lib64", "/bin") if Path(p).exists()]
    for path in system:
        if Path(path).is_symlink():
            args += ["--symlink", os.readlink(path), path]
        else:
            args += _bind_read_only(path, created)
            bound.append(path)
    interpreter = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(python)).parent.parent}
    for path in sorted(interpreter):
        # Skip one inside a bound folder (not one inside a mere parent made for another's binding).
        if not any(str(path) == done or _inside(str(path), done) for done in bound):
            args += _bind_read_only(path, created)
            bound.append(str(path))
    args += _hide([*hidden, *_grader_packages(interpreter)], bound, interpreter)
    args += ["--perms", "0755", "--dir", "/grader", "--ro-bind", str(WORKER_SCRIPT), "/grader/worker.py"]
    if os.geteuid() == 0:
        # Drop root: the process limit is not enforced for root.  A different
        # uid per grader process keeps parallel graders from sharing the limit.
        uid = str(sandbox_uid())
        args += ["--", "/usr/bin/setpriv", "--reuid", uid, "--regid", uid, "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all"]
    else:
        args += ["--"]
    return args + [python, "-I", "/grader/worker.py"]


def _set_limits(limits, limit_processes, cgroup=None):
    import resource

    def apply():
        if cgroup is not None:
            cgroup.add_self()  # before exec: bwrap and everything under it is counted
        os.setsid()  # its own process group, killed as a whole at the end
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if limit_processes:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    return apply


class _DeadlineReader:
    """A file-like reader on a pipe whose reads fail after a deadline or past a byte budget."""

    def __init__(self, fd, budget):
        self.fd, self.deadline, self.budget = fd, None, budget

    def read(self, size):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
            raise TimeoutError
        data = os.read(self.fd, min(size, 1 << 20))
        self.budget.spend(len(data))
        return data


class _DeadlineWriter:
    """A file-like writer on a pipe whose writes fail after a deadline (``_DeadlineReader``'s twin).

    The pipe is non-blocking and written in chunks as the worker reads them: a worker that stops
    reading its requests (a learner cell that forged a reply, then sleeps) fills the pipe's buffer,
    and the write then ends at the request's deadline instead of blocking the grader for ever."""

    def __init__(self, fd):
        self.fd, self.deadline = fd, None
        os.set_blocking(fd, False)

    def write(self, data):
        view = memoryview(data).cast("B")
        while view:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not select.select([], [self.fd], [], remaining)[1]:
                raise TimeoutError
            try:
                written = os.write(self.fd, view[:1 << 20])
            except BlockingIOError:  # writable, but not for this many bytes yet (an atomic small write)
                time.sleep(0.001)
                continue
            view = view[written:]
        return len(data)

    def flush(self):
        pass

    def close(self):
        os.close(self.fd)


class ReplyBudget:
    """Bytes every worker of one submission may still send back, all replies together."""

    def __init__(self, limit):
        self.limit, self.used = limit, 0

    def spend(self, size):
        self.used += size
        if self.used > self.limit:
            raise OverBudget(_("your code's answers came to more than {mib} MiB in total").format(
                mib=self.limit >> 20))


class OverBudget(wire.WireError):
    """The worker sent back more than the submission's reply budget."""


class Worker:
    """One sandboxed interpreter holding one submission's code."""

    def __init__(self, limits=Limits(), *, deadline=None, budget=None, hidden=()):
        self.limits = limits
        self.deadline = deadline          # time.monotonic() after which no request may run
        self.hidden = tuple(hidden)       # folders the learner's code must not see (the course's root)
        self.budget = budget or ReplyBudget(limits.reply_bytes)
        self.process = None
        self.scratch = None
        self.cgroup = None
        self.counts_memory = False        # does the cgroup count a peak the learner's code cannot reset?
        self.baseline = None              # memory the worker held before any learner code ran
        self.last_changed = []            # arguments the last call changed in place

    # -- life cycle
    def start(self):
        sandboxed = sandbox_available()
        if not sandboxed and self.limits.require_sandbox:
            raise WorkerError(_("bubblewrap (bwrap) is not installed: refusing to grade without a sandbox"))
        python = os.path.abspath(sys.executable)   # "../venv/bin/python" would not resolve in the sandbox
        if sandboxed:
            command, cwd = _bwrap_command(python, self.hidden), "/"
            limit_processes = True
        else:
            self.scratch = tempfile.mkdtemp(prefix="attention-grading-")
            command, cwd = [python, "-I", str(WORKER_SCRIPT)], self.scratch
            limit_processes = False  # as an ordinary user the count includes all their processes
        requests_read, requests_write = os.pipe()   # after every refusal above: none leaks its pipes
        replies_read, replies_write = os.pipe()
        self.cgroup = MemoryCgroup.create(self.limits.tree_memory_bytes)
        self.counts_memory = count_out_of_reach(self.cgroup, sandboxed)
        # The worker is told which inherited descriptors are its two pipe ends.
        self.process = subprocess.Popen(
            command + [str(requests_read), str(replies_write)], cwd=cwd, env=_worker_environment(),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(requests_read, replies_write),
            preexec_fn=_set_limits(self.limits, limit_processes, self.cgroup),
        )
        os.close(requests_read)
        os.close(replies_write)
        self._requests = _DeadlineWriter(requests_write)
        self._replies = _DeadlineReader(replies_read, self.budget)
        return self

    def peak_memory(self):
        """The most memory the worker's process tree has held since the baseline, counted by the kernel
        in its memory cgroup; MemoryUnmeasurable without one out of the learner's reach."""
        peak = self.cgroup.peak() if self.counts_memory else None
        if peak is None:
            raise MemoryUnmeasurable()
        return peak

    def close(self):
        """Kill the worker and everything it started; remove its scratch folder."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if self.cgroup is not None:
                self.cgroup.kill_all()  # processes that left the group's session
            self.process.wait()
            self._requests.close()
            os.close(self._replies.fd)
            self.process = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
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
    def _request(self, message, seconds, late=None):
        """The worker's reply to ``message`` within ``seconds`` (and the submission's deadline); else the
        worker is killed and ``late`` raised (default: a call's WorkerTimeout)."""
        if not self.alive:
            raise WorkerDied(_("the Python process running your code is not running"))
        now = time.monotonic()
        overall = self.deadline is not None and self.deadline - now < seconds
        # One deadline for writing the request and reading its reply: a worker that stops reading
        # its pipe is killed at it, as one that never answers is.
        deadline = min(now + seconds, self.deadline) if self.deadline is not None else now + seconds
        self._requests.deadline = self._replies.deadline = deadline
        try:
            wire.send(self._requests, message)
            reply = wire.receive(self._replies)
        except TimeoutError:
            self.close()
            if overall:
                raise DeadlinePassed(_("grading stopped: the whole notebook took more than {seconds:g} s").format(
                    seconds=self.limits.total_seconds)) from None
            raise late or WorkerTimeout(_(TOO_SLOW).format(seconds=seconds)) from None
        except (EOFError, BrokenPipeError, OSError):
            code = self.process.wait() if self.process else None
            out_of_memory = self.cgroup is not None and bool(self.cgroup.oom_kills())
            self.close()
            raise WorkerDied(_(OUT_OF_MEMORY).format(megabytes=self.limits.tree_memory_bytes >> 20) if out_of_memory
                             else _death_reason(code)) from None
        except OverBudget as error:
            self.close()
            raise WorkerDied(str(error)) from None
        except wire.WireError as error:
            self.close()
            raise WorkerDied(_("the process running your code sent back garbage ({error})").format(error=error)) from None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self.close()
            raise WorkerDied(_("the process running your code sent back garbage"))
        return reply

    def run_cell(self, index, source, seconds=None):
        """Execute one learner cell; return (error line or None, captured output), both cut short.

        Past ``seconds`` (default ``cell_seconds``) the worker interrupts the cell: CellInterrupted,
        the worker lives on.  A cell still running ``CELL_GRACE_SECONDS`` later ignored the
        interruption: its worker is killed, CellHung.
        """
        seconds = self.limits.cell_seconds if seconds is None else seconds
        hung = CellHung(_("this cell did not finish within {seconds:g} s and did not stop when interrupted: "
                          "it was skipped, and the cells after it ran without it (an endless loop that "
                          "ignores interruptions, or far too slow)").format(seconds=seconds))
        started = time.monotonic()
        reply = self._request({"op": "run_cell", "index": index, "source": source, "seconds": seconds},
                              seconds + CELL_GRACE_SECONDS, hung)
        output = _short(reply.get("output", ""), MAX_OUTPUT_CHARS, keep_end=True)
        # A timeout by the grader's own clock: the learner's process may say "interrupted" (or set off
        # its own alarm) after a millisecond.
        if reply.get("interrupted") is True and time.monotonic() - started >= seconds:
            raise CellInterrupted(_("this cell did not finish within {seconds:g} s and was interrupted "
                                    "(an endless loop, or far too slow)").format(seconds=seconds), output)
        error = None if reply["ok"] else _short(reply.get("error"), MAX_ERROR_CHARS)
        return error, output

    def measure_baseline(self, args, kwargs):
        """Before any learner code: what the fresh worker holds once it has received these inputs
        and NumPy's first matrix products have set up their buffers.  The peak counts from here.
        MemoryUnmeasurable, before anything runs, when no memory cgroup counts the tree out of the
        learner's reach (``count_out_of_reach``)."""
        if not self.counts_memory:
            raise MemoryUnmeasurable()
        self._request({"op": "ping", "args": list(args), "kwargs": dict(kwargs)}, self.limits.call_seconds)
        self.cgroup.reset_peak()
        self.baseline = self.cgroup.usage()
        if self.baseline is None:
            raise MemoryUnmeasurable()

    def call(self, name, args, kwargs):
        """Call the learner's function ``name``; return its value as plain arrays.

        The grader's ``args`` are never changed: the worker has its own copy.  The
        indexes of the arguments the call changed in place are in ``last_changed``.
        """
        self.last_changed = []
        reply = self._request({"op": "call", "name": name, "args": list(args), "kwargs": dict(kwargs)},
                              self.limits.call_seconds)
        if not reply["ok"]:
            raise RemoteError(_short(reply.get("error"), MAX_ERROR_CHARS))
        changed = reply.get("changed_args") or []
        if not isinstance(changed, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                    and 0 <= i < len(args) for i in changed):
            self.close()
            raise WorkerDied(_("the process running your code sent back garbage"))
        self.last_changed = sorted(set(changed))
        return reply.get("value")


# What a call that does not return in time is told (a cell's own messages are in run_cell).
TOO_SLOW = N_("your code did not finish within {seconds:g} s (an endless loop, or far too slow)")
# How long an interrupted cell may take to stop before its worker is killed (it ignores the interruption).
CELL_GRACE_SECONDS = 2.0
MAX_OUTPUT_CHARS = 4000   # printed output kept per cell
MAX_ERROR_CHARS = 500     # one error line


def _short(text, limit, keep_end=False):
    """A string from the worker, at most ``limit`` characters, whatever it sent."""
    text = safe.clean(text if isinstance(text, str) else str(text)[:limit], limit)
    if len(text) <= limit:
        return text
    return "..." + text[-(limit - 3):] if keep_end else text[:limit - 3] + "..."


OUT_OF_MEMORY = N_("the Python process running your code was stopped: it used more memory than the "
                   "{megabytes} MB allowed (for it and every process it starts together)")


def _death_reason(code):
    """What an exit code says; bubblewrap exits 128 + N when the process it ran died of signal N."""
    if code is not None and code > 128 and code - 128 in set(signal.Signals):
        code = 128 - code
    if code is not None and code < 0:
        sig = -code
        if sig == signal.SIGKILL:
            return _("the Python process running your code was killed (it probably used too much memory)")
        if sig == signal.SIGXCPU:
            return _("your code used more CPU time than allowed")
        return _("the Python process running your code died with signal {signal}").format(
            signal=signal.Signals(sig).name)
    return _("the Python process running your code exited (exit code {code})").format(code=code)
