"""The dumbbell with `--switch bmv2`: simple_switch_grpc routers, queue rates through its
Thrift CLI, delays from netem. Skipped where simple_switch_grpc is absent (no registry
these machines reach has BMv2); without netem, the error names sch_netem."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from programs import CompiledProgram

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)

from p4aqm.topology import Dumbbell, DumbbellSpec  # noqa: E402
from p4aqm.topology.netem import NetemMissing, netem_available  # noqa: E402

P4AQM = str(Path(sys.executable).parent / "p4aqm")


@pytest.fixture(scope="module")
def has_netem() -> bool:
    return netem_available()


def test_without_netem_bmv2_delays_stop_with_an_error_naming_sch_netem(has_netem: bool) -> None:
    if has_netem:
        pytest.skip("this kernel has netem: the bmv2 dumbbell below uses it")
    run = subprocess.run(
        [P4AQM, "topo", "dumbbell", "--switch", "bmv2"], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert "sch_netem" in run.stderr and "Traceback" not in run.stderr, run.stderr
    with pytest.raises(NetemMissing, match="sch_netem"), Dumbbell(DumbbellSpec(switch="bmv2")):
        pass


@pytest.mark.skipif(
    shutil.which("simple_switch_grpc") is None,
    reason="simple_switch_grpc (BMv2) is not on PATH: the --switch bmv2 dumbbell cannot run",
)
def test_bmv2_dumbbell_forwards_and_records_its_mechanism(
    l3_program: CompiledProgram, tmp_path: Path, has_netem: bool
) -> None:
    delays = {} if has_netem else {"left_delays_us": (0, 0, 0), "right_delays_us": (0, 0, 0)}
    spec = DumbbellSpec(
        switch="bmv2", build_dir=l3_program.json_path.parent, run_dir=tmp_path, **delays
    )
    with Dumbbell(spec) as net:
        assert net.manifest["switch"] == "bmv2"
        assert "set_queue_rate" in net.manifest["mechanism"]["rate"]
        out = net.host("c3").cmd(f"ping -n -c 3 -W 2 {net.ip('s3')}")
        assert " 0% packet loss" in out, out
        if has_netem:
            rtts = [float(x) for x in out.split("time=")[1:] for x in [x.split()[0]]]
            assert min(rtts) >= net.rtt_target_us("c3", "s3") / 1000, out
