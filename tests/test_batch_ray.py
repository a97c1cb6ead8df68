"""Batches on a real Ray cluster on the loopback address: a head started with `ray start`,
the commands connecting with --ray 127.0.0.1:PORT, the same results as 1 and 2 local
processes.

Two Ray habits shape the set-up:
- on Linux Ray replaces a loopback address by the machine's routable one, on both sides;
  RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 turns that off (it is how Ray keeps clusters
  local-only on macOS and Windows), so every socket stays on 127.0.0.1;
- Ray >= 2.5x enables token authentication; a client given an explicit address uses it
  only with RAY_AUTH_MODE=token, so head and clients share a token made for this test
  (RAY_AUTH_TOKEN), and ~/.ray is left alone.

These tests run in CI (the suite's install command installs the ray extra); without Ray
they fail, they are not skipped.
"""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from test_batch import OPTS, PALACE, _archive, _steady

RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token",
           "RAY_USAGE_STATS_ENABLED": "0"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A one-node Ray cluster on 127.0.0.1 with 2 CPUs; yields (address, environment)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        pytest.fail("Ray is not installed: pip install '.[test,openspiel,ray]'")
    env = dict(os.environ, **RAY_ENV, RAY_AUTH_TOKEN=secrets.token_hex(16))
    port = _free_port()
    tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths are long
    ray_cli = Path(sys.executable).with_name("ray")
    log = open(Path(tmp) / "head.log", "w")
    head = subprocess.Popen(
        [str(ray_cli), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
         "--port", str(port), "--num-cpus", "2", "--include-dashboard", "false",
         "--disable-usage-stats", "--temp-dir", tmp],
        env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)  # its own process group: teardown stops exactly it
    try:
        deadline = time.monotonic() + 60
        while True:
            assert head.poll() is None, (Path(tmp) / "head.log").read_text()[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the Ray head did not start"
                time.sleep(0.1)
        yield f"127.0.0.1:{port}", env
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops its processes
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(head.pid, signal.SIGKILL)  # anything of that group still there
        except ProcessLookupError:
            pass
        head.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _palace(env, *args):
    r = subprocess.run([PALACE, *args], env=env, cwd="/", capture_output=True, text=True,
                       timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


def _listening(port: int) -> list[str]:
    """Local addresses (hex, as the kernel writes them) of the TCP sockets listening on
    ``port``, from /proc/net/tcp and tcp6."""
    out = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, p = local.split(":")
                if state == "0A" and int(p, 16) == port:  # 0A: LISTEN
                    out.append(addr)
    return out


LOOPBACK = {"0100007F",  # 127.0.0.1
            "0000000000000000FFFF00000100007F",  # ::ffff:127.0.0.1
            "00000000000000000000000001000000"}  # ::1


def test_head_listens_on_loopback_only(cluster):
    address, _ = cluster
    binds = _listening(int(address.rsplit(":", 1)[1]))
    assert binds and set(binds) <= LOOPBACK, binds


def test_tasks_run_in_ray_workers(cluster, tmp_path):
    address, env = cluster
    script = tmp_path / "probe.py"
    script.write_text(
        "import json, os, sys\n"
        "from palace_solver.jobs.batch import run_batch\n"
        "def whoami(task):\n"  # defined in __main__: Ray ships it by value
        "    import ray\n"
        "    return {'pid': os.getpid(), 'worker': ray.get_runtime_context().get_worker_id()}\n"
        "res = run_batch(whoami, [{'id': i} for i in range(6)], ray=sys.argv[1])\n"
        "print(json.dumps({'me': os.getpid(), 'pids': sorted({r['pid'] for r in res})}))\n")
    r = subprocess.run([sys.executable, str(script), address], env=env, cwd="/",
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["pids"] and out["me"] not in out["pids"]


def test_play_series_same_on_ray_and_local(cluster, tmp_path):
    address, env = cluster
    args = ["play", "--games", "300", "-n", "3", "--bots", "greedy,random,lowest", "--seed",
            "8", "--json", "--no-progress", "--per-task", "10"]
    one = _palace(env, *args, "--output", str(tmp_path / "one.jsonl"))
    two = _palace(env, *args, "--jobs", "2")
    on_ray = _palace(env, *args, "--ray", address, "--output", str(tmp_path / "ray.jsonl"))
    assert one.stdout == two.stdout == on_ray.stdout
    assert json.loads(one.stdout)["games"] == 300
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "ray.jsonl").read_bytes()


def test_swap_table_and_analyze_batch_same_on_ray(cluster, tmp_path):
    from click.testing import CliRunner
    from palace_solver.cli.main import cli
    address, env = cluster
    table = ["swap-table", "-n", "2,3", "--games", "120", "--seed", "5", "--json",
             "--no-progress"]
    local = CliRunner().invoke(cli, table)
    assert local.exit_code == 0, local.output
    assert _palace(env, *table, "--ray", address).stdout == local.output

    f = _archive(tmp_path)
    batch = ["analyze", "--batch", str(f), *OPTS, "--no-progress"]
    local = CliRunner().invoke(cli, batch)
    assert local.exit_code == 0, local.output
    on_ray = _palace(env, *batch, "--ray", address, "--jobs", "2")
    assert [_steady(json.loads(x)) for x in on_ray.stdout.splitlines()] == \
        [_steady(json.loads(x)) for x in local.output.splitlines()]


def test_unreachable_address_is_a_one_line_error(tmp_path):
    env = dict(os.environ, **RAY_ENV, RAY_AUTH_TOKEN=secrets.token_hex(16))
    # a bad address form fails at once (an unused port would be retried for a minute)
    r = subprocess.run([PALACE, "play", "--games", "30", "--ray", "no-port-here"], env=env,
                       cwd="/", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("palace: cannot connect to Ray at 'no-port-here'"), r.stderr
    # a port nobody listens on: refused at once (Ray itself would wait without end)
    address = f"127.0.0.1:{_free_port()}"
    t = time.monotonic()
    r = subprocess.run([PALACE, "swap-table", "--games", "10", "--ray", address], env=env,
                       cwd="/", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and time.monotonic() - t < 30
    assert r.stderr == f"palace: cannot connect to Ray at {address!r}: nothing accepts " \
                       f"connections there (is the cluster started?)\n"
