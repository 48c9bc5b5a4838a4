"""`p4aqm topo`: bad input is one line naming what is wrong; the uniform RTT layout."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from programs import CompiledProgram

P4AQM = str(Path(sys.executable).parent / "p4aqm")


def topo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([P4AQM, "topo", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("yaml_text", "named"),
    [
        ("bogus_key: 1\n", "bogus_key"),
        ("access_rate_bps: -5\n", "access_rate_bps"),
        ("host_tcp: {congestion_control: cubic, ecn: 7}\n", "host_tcp.ecn"),
        ("host_tcp_by_name: {c9: {}}\n", "c9"),
        ("left_to_right_aqm: {discipline: red, max_th: 90}\n", "min_th"),
        ("delay_layout: {kind: zipf}\n", "delay_layout.kind"),
        ("[1, 2]\n", "mapping"),
    ],
)
def test_bad_topology_file_names_the_field(tmp_path: Path, yaml_text: str, named: str) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(yaml_text)
    run = topo("dumbbell", "--config", str(config))
    assert run.returncode == 2
    assert str(config) in run.stderr and named in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_unknown_aqm_and_missing_file(tmp_path: Path) -> None:
    run = topo("dumbbell", "--aqm", "blue")
    assert run.returncode == 2 and "left_to_right_aqm" in run.stderr, run.stderr
    run = topo("dumbbell", "--config", str(tmp_path / "nope.yaml"))
    assert run.returncode == 2 and "nope.yaml" in run.stderr, run.stderr


def test_uniform_layout_draws_rtts_in_range_from_its_seed() -> None:
    from p4aqm.topology import DumbbellSpec

    spec = DumbbellSpec.uniform_rtts(clients=200, servers=2, seed=7)
    rtts_ms = [2 * d / 1000 for d in spec.left_delays_us]
    assert 7 <= min(rtts_ms) < 10 and 134 < max(rtts_ms) <= 137
    assert spec.right_delays_us == (0, 0)
    assert spec.left_delays_us == DumbbellSpec.uniform_rtts(clients=200, seed=7).left_delays_us
    assert spec.left_delays_us != DumbbellSpec.uniform_rtts(clients=200, seed=8).left_delays_us


@pytest.mark.skipif(os.geteuid() != 0, reason="the dumbbell needs root (namespaces, veths)")
def test_uniform_layout_is_printed_and_saved(
    l3_program: CompiledProgram, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from p4aqm.topology import Dumbbell, DumbbellSpec

    spec = DumbbellSpec.uniform_rtts(
        clients=4,
        servers=1,
        seed=3,
        build_dir=l3_program.json_path.parent,
        run_dir=tmp_path,
        name_prefix="p4u",
    )
    with Dumbbell(spec) as net:
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        assert manifest["delay_layout"] == {
            "kind": "uniform",
            "rtt_min_us": 7000,
            "rtt_max_us": 137000,
            "seed": 3,
        }
        for name, delay_us in zip(net.clients(), spec.left_delays_us, strict=True):
            assert manifest["hosts"][name]["one_way_delay_us"] == delay_us
        out = net.host("c1").cmd(f"ping -n -c 3 -i 0.2 {net.ip('s1')}")
        rtt = min(float(x.split()[0]) for x in out.split("time=")[1:])
        assert abs(rtt - net.rtt_target_us("c1", "s1") / 1000) <= 1 + 0.02 * rtt, out
    printed = capsys.readouterr().out
    assert "one-way access delays drawn" in printed
    for name, delay_us in zip(net.clients(), spec.left_delays_us, strict=True):
        assert f"{name} {delay_us / 1000:.1f}" in printed, printed
