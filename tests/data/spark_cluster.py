"""A small standalone Spark cluster for the speculation tests: a master and two workers of
one core, each worker on its own loopback address (127.0.0.2, 127.0.0.3), so that Spark sees
two hosts. Spark never launches a speculative copy on a host where the task already runs
(TaskSetManager.dequeueTaskFromList skips `speculative && hasAttemptOnHost`), so in local
mode, where every task runs on one host, speculation never happens."""

import contextlib
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: pathlib.Path, text: str, process: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while text not in (log.read_text(errors="replace") if log.exists() else ""):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{log.name} did not say {text!r}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


@contextlib.contextmanager
def standalone_cluster(logs: pathlib.Path):
    """Yields spark://127.0.0.1:<port>, with a worker on 127.0.0.2 and one on 127.0.0.3,
    run by the pyspark in use; their logs go to `logs`."""
    import pyspark

    home = pathlib.Path(pyspark.__file__).parent
    spark_class = str(home / "bin" / "spark-class")
    env = dict(os.environ, SPARK_HOME=str(home), PYSPARK_PYTHON=sys.executable,
               SPARK_NO_DAEMONIZE="1")
    port = _free_port()
    processes = []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, pathlib.Path]:
        log = logs / name
        process = subprocess.Popen(
            [spark_class, *args], env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
            start_new_session=True)
        processes.append(process)
        return process, log

    try:
        master, log = start("master", "org.apache.spark.deploy.master.Master",
                            "--host", "127.0.0.1", "--port", str(port), "--webui-port", "0")
        _wait_for(log, "I have been elected leader", master, 120)
        workers = [
            start(f"worker-{host}", "org.apache.spark.deploy.worker.Worker",
                  "--host", host, "--cores", "1", "--memory", "1g", "--webui-port", "0",
                  "--work-dir", str(logs / f"work-{host}"), f"spark://127.0.0.1:{port}")
            for host in ("127.0.0.2", "127.0.0.3")
        ]
        for worker, log in workers:
            _wait_for(log, "Successfully registered with master", worker, 120)
        yield f"spark://127.0.0.1:{port}"
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


# The settings that make a straggler get a speculative twin quickly.
SPECULATION = {
    "spark.speculation": "true",
    "spark.speculation.interval": "100ms",
    "spark.speculation.multiplier": "1.5",
    "spark.speculation.quantile": "0.5",
    "spark.speculation.minTaskRuntime": "200ms",
}


def assert_speculated(markers: pathlib.Path, partition: int) -> tuple:
    """The attempts a speculation test's tasks recorded in `markers` (one file per attempt,
    named `<partition>-<attempt>-<task id>`, holding what the attempt did) show that the
    first attempt of `partition` stalled and Spark launched a speculative twin of it.
    Returns the straggler's (partition, attempt, task id)."""
    attempts = {tuple(int(x) for x in p.name.split("-")): p.read_text()
                for p in markers.iterdir()}
    straggler = [key for key in attempts if key[0] == partition and key[1] == 0]
    twins = [key for key in attempts if key[0] == partition and key[1] > 0]
    assert straggler and attempts[straggler[0]] == "stalled", attempts
    assert twins, f"Spark launched no speculative attempt: {attempts}"
    return straggler[0]
