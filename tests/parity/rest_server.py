"""iceberg-java's REST catalog test server (org.apache.iceberg.rest.RESTCatalogServer from the
iceberg-open-api test-fixtures jar, pinned in pom.xml), run on loopback for the tests.

Its backing catalog is a JdbcCatalog over an SQLite file and the harness's LocalFileIO, so
metadata files land on local disk where floe, pyiceberg and the harness read them.
"""

import contextlib
import json
import os
import pathlib
import socket
import subprocess
import time
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_rest_server(root: pathlib.Path, warehouse: str = None, properties: dict = None):
    """Starts the server with its state under `root`; yields (uri, warehouse). Stops it after.

    `warehouse` (default: a folder of `root`, with the harness's LocalFileIO) and
    `properties`, catalog properties of the server's JdbcCatalog (an s3:// warehouse needs
    io-impl=org.apache.iceberg.aws.s3.S3FileIO and its s3.* keys; include-credentials=true
    makes the server vend them in every load-table answer's config), set it up otherwise."""
    root.mkdir(parents=True, exist_ok=True)
    if warehouse is None:
        warehouse = root / "warehouse"
        warehouse.mkdir(exist_ok=True)
    port = free_port()
    env = dict(os.environ,
               CATALOG_REST_PORT=str(port),
               CATALOG_URI=f"jdbc:sqlite:file:{root / 'rest-catalog.db'}",
               CATALOG_WAREHOUSE=str(warehouse),
               CATALOG_IO__IMPL="floe.parity.LocalFileIO",
               HARNESS_XMX="512m")
    # RESTCatalogServer reads CATALOG_<KEY> with '__' for '-' and '_' for '.'.
    for key, value in (properties or {}).items():
        env["CATALOG_" + key.replace("-", "__").replace(".", "_").upper()] = value
    log = open(root / "rest-server.log", "w")
    process = subprocess.Popen([str(HERE / "run-harness.sh"), "rest-server"], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    uri = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600  # the first run may build the harness
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"REST server exited ({process.returncode}):\n"
                                   + (root / "rest-server.log").read_text()[-3000:])
            try:
                with urllib.request.urlopen(uri + "/v1/config", timeout=2) as response:
                    json.load(response)
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise RuntimeError("REST server did not start within 600 s")
                time.sleep(0.25)
        yield uri, warehouse
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
