"""The S3-compatible server of the storage tests: s3s-fs (scripts/install_s3_server.sh) on
loopback, shared by tests/interop and tests/parity (one per pytest session)."""

import os
import pathlib
import socket
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


class S3Server:
    """An s3s-fs server on loopback (scripts/install_s3_server.sh), serving buckets that are
    folders of `root`. The credentials are test values, used to prove they never leak."""

    access_key = "AKIAFLOETESTKEY00001"
    secret_key = "floe-test-secret/Zq8+never-printed"

    def __init__(self, binary: str, root: pathlib.Path):
        self.root = root
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = open(root.parent / "s3s-fs.log", "w")
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port), "--access-key", self.access_key,
             "--secret-key", self.secret_key, str(root)],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                assert self.process.poll() is None, "s3s-fs exited at start"
                assert time.monotonic() < deadline, "s3s-fs never listened"
                time.sleep(0.1)

    def bucket(self, name: str) -> str:
        """A fresh empty bucket; returns its name."""
        (self.root / name).mkdir()
        return name

    def properties(self) -> dict:
        """The iceberg-java storage properties that reach this server."""
        return {"s3.endpoint": self.endpoint, "s3.access-key-id": self.access_key,
                "s3.secret-access-key": self.secret_key, "s3.path-style-access": "true",
                "client.region": "us-east-1"}

    def filesystem(self):
        """pyarrow's own S3 client on this server: the independent view of what is stored."""
        from pyarrow import fs

        return fs.S3FileSystem(access_key=self.access_key, secret_key=self.secret_key,
                               endpoint_override=self.endpoint, region="us-east-1")

    def objects(self, prefix: str) -> dict:
        """Key -> size of every object under `prefix` ("bucket/path"), by pyarrow."""
        from pyarrow import fs

        infos = self.filesystem().get_file_info(fs.FileSelector(prefix, recursive=True, allow_not_found=True))
        return {info.path: info.size for info in infos if info.type == fs.FileType.File}

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def run_floe(floe: str, args, properties: dict, outputs: list, check: bool = True):
    """Runs the floe command `floe` with `args` and each of `properties` as a
    --catalog-property, never asking AWS's instance metadata for credentials; what it
    printed is appended to `outputs` (for the tests that no secret was printed)."""
    command = [floe, *map(str, args)]
    for key, value in properties.items():
        command += ["--catalog-property", f"{key}={value}"]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", AWS_EC2_METADATA_DISABLED="true")
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    outputs.append(result.stdout + result.stderr)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed ({result.returncode}):\n"
                             f"{result.stderr}")
    return result


def start_s3_server(work: pathlib.Path) -> "S3Server":
    """Installs (once) and starts s3s-fs with its buckets under `work`/buckets."""
    binary = subprocess.run([str(ROOT / "scripts/install_s3_server.sh")],
                            check=True, capture_output=True, text=True).stdout.strip()
    root = work / "buckets"
    root.mkdir()
    return S3Server(binary, root)
