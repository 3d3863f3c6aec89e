"""A throwaway PostgreSQL server for the tests (Debian's postgresql package, installed by `make test`)."""
import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile


def _binaries():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (Debian package `postgresql`; `make test` installs it)")
    return os.path.dirname(found[-1])


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def server():
    """Start a private server on 127.0.0.1; yield a function that makes a new database and returns its URL."""
    bin_dir = _binaries()
    folder = tempfile.mkdtemp(prefix="attention-pg-")
    as_postgres = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(folder, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    data, port = os.path.join(folder, "data"), _free_port()

    def run(*command):
        subprocess.run(as_postgres + list(command), check=True, capture_output=True, text=True, cwd=folder)

    run(f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
    run(f"{bin_dir}/pg_ctl", "-D", data, "-l", os.path.join(folder, "log"), "-w", "start",
        "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off")
    counter = iter(range(1000))

    def new_database():
        import psycopg  # the driver SQLAlchemy uses for postgresql:// URLs
        name = f"gradebook{next(counter)}"
        with psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres",
                             autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return f"postgresql://postgres@127.0.0.1:{port}/{name}"

    try:
        yield new_database
    finally:
        run(f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)
