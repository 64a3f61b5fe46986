"""A throwaway local PostgreSQL server for the catalog tests (Debian's postgresql package,
installed by scripts/bootstrap.sh): initdb in a temporary directory, trust authentication for
user floe, a free localhost port, stopped and removed afterwards."""

import contextlib
import glob
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_postgres():
    """A throwaway PostgreSQL cluster on a free localhost port (trust auth for user floe)."""
    bindirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    assert bindirs, "PostgreSQL server binaries missing: run scripts/bootstrap.sh"
    bindir = pathlib.Path(bindirs[-1])
    root = pathlib.Path(tempfile.mkdtemp(prefix="floe-pg-"))
    data, sockets = root / "data", root / "sock"
    data.mkdir()
    sockets.mkdir()
    as_user = []
    if os.geteuid() == 0:  # the server refuses to run as root
        as_user = ["runuser", "-u", "postgres", "--"]
        for path in (root, data, sockets):
            shutil.chown(path, "postgres", "postgres")
    subprocess.run(as_user + [bindir / "initdb", "-D", data, "-U", "floe", "--auth=trust",
                              "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
    port = free_port()
    subprocess.run(as_user + [bindir / "pg_ctl", "-D", data, "-l", root / "server.log", "-w",
                              "-o", f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 "
                                    "-c fsync=off -c max_connections=50", "start"],
                   check=True, capture_output=True)
    try:
        yield port
    finally:
        subprocess.run(as_user + [bindir / "pg_ctl", "-D", data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
