"""The tuning daemon on this machine's kernel: a rule changes the congestion control and
the send buffer of an unmodified iperf3's matching connection, and not of a connection
the rule does not match; its counters say which connections it tuned."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from p4aqm.topology.cgroup import Cgroup
from p4aqm.tuning.bpf import Tuner
from p4aqm.tuning.rules import load_rules

if os.geteuid() != 0:
    pytest.skip("attaching BPF to a cgroup needs root", allow_module_level=True)

TUNED_PORT, UNTUNED_PORT = 5311, 5312
RULES = f"""rules:
  - name: tuned
    match: {{remote_addr: 127.0.0.1/32, remote_port: {TUNED_PORT}}}
    set: {{congestion_control: reno, sndbuf_bytes: 4194304}}
"""


def default_congestion_control() -> str:
    return Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip()


def iperf3_in(cgroup: Cgroup, port: int) -> dict:
    """An unmodified iperf3 client run inside the cgroup, its JSON report."""
    script = f"echo $$ > {cgroup.procs_file} && exec iperf3 -c 127.0.0.1 -p {port} -t 1 -J"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def servers() -> None:
    processes = [
        subprocess.Popen(["iperf3", "-s", "-p", str(port), "-1"], stdout=subprocess.DEVNULL)
        for port in (TUNED_PORT, UNTUNED_PORT)
    ]
    yield
    for process in processes:
        process.kill()
        process.wait()


def test_a_rule_tunes_the_matching_connection_only(
    tmp_path: Path, servers: None, cgroup: Cgroup
) -> None:
    rules_file = tmp_path / "wad.yaml"
    rules_file.write_text(RULES)
    assert default_congestion_control() != "reno"
    with Tuner(load_rules(rules_file), cgroup.path, f"test{os.getpid()}") as tuner:
        tuned = iperf3_in(cgroup, TUNED_PORT)
        untuned = iperf3_in(cgroup, UNTUNED_PORT)
        counters = tuner.counters()
    assert tuned["end"]["sender_tcp_congestion"] == "reno"
    assert untuned["end"]["sender_tcp_congestion"] == default_congestion_control()
    # iperf3's control connection goes to the same port: two connections tuned, none of
    # the untuned server's, and every option the kernel accepted.
    assert counters == {"tuned": {"applied": 2, "failed": 0}}
