"""The controller on a switch whose gNMI is UNIMPLEMENTED, as BMv2's: queue depths and
rates go through BMv2's runtime CLI (a stand-in on PATH records what it is given), a
rate in bit/s becomes packets/s at the stated packet size, and what BMv2 cannot do (a
link delay, a depth in bytes) is refused before anything is written."""

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from p4aqm.controller.bmv2_queues import Bmv2PortError
from p4aqm.controller.cli import main as controller_main
from p4aqm.controller.config import load_config
from p4aqm.controller.session import apply_config
from p4aqm.switch._dataplane import Dataplane
from p4aqm.switch.runtime.server import P4RuntimeService, ServerThread
from programs import CompiledProgram

LIMIT_PKTS = 120

# Records its arguments and the commands it reads, answers as the real CLI's prompt
# does, and reports an error for a command naming port 9 (as BMv2 would for a bad port).
STAND_IN = f"""#!{sys.executable}
import sys
log = open({{log!r}}, "a")
log.write(" ".join(sys.argv[1:]) + "\\n")
for line in sys.stdin:
    log.write(line)
    print("RuntimeCmd: ", end="")
    if line.split()[-1:] == ["9"]:
        print("Error: Invalid port 9")
"""


@pytest.fixture
def cli_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir, log = tmp_path / "bin", tmp_path / "cli.log"
    bin_dir.mkdir()
    cli = bin_dir / "simple_switch_CLI"
    cli.write_text(STAND_IN.format(log=str(log)))
    cli.chmod(cli.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


@pytest.fixture
def bmv2_like() -> Iterator[tuple[str, Dataplane]]:
    """A P4Runtime server with no gNMI service: Capabilities is UNIMPLEMENTED."""
    dataplane = Dataplane(seed=1)
    server = ServerThread(P4RuntimeService(dataplane, device_id=0))
    address = f"127.0.0.1:{server.start()}"
    yield address, dataplane
    server.stop()


def write_config(tmp_path: Path, program: CompiledProgram, address: str, ports: dict) -> Path:
    config = {
        "switch": {"grpc_addr": address, "thrift_port": 9191, "bmv2_packet_bytes": 1000},
        "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
        "ports": ports,
    }
    path = tmp_path / "bmv2.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


RED = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "limit_pkts": LIMIT_PKTS}


def test_queues_go_through_the_cli(
    bmv2_like: tuple[str, Dataplane],
    red_program: CompiledProgram,
    tmp_path: Path,
    cli_log: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    address, dataplane = bmv2_like
    ports = {
        2: {"aqm": RED, "queue": {"rate_bps": 10_000_000}},
        3: {"queue": {"rate_pps": 250.4, "depth_pkts": 40}},
        4: {"link": {"rate_bps": 2_000_000}},
    }
    inserted, _, _ = apply_config(load_config(write_config(tmp_path, red_program, address, ports)))
    assert inserted > 0 and dataplane.has_pipeline()
    assert cli_log.read_text().splitlines() == [
        "--thrift-port 9191",
        f"set_queue_depth {LIMIT_PKTS + 64} 2",  # deeper than the AQM's limit
        "set_queue_rate 1250 2",  # 10 Mbit/s in 1000-byte packets
        "set_queue_depth 40 3",
        "set_queue_rate 250 3",
        "set_queue_rate 250 4",  # the link's line rate drains the queue
    ]
    out = capsys.readouterr().out
    assert "port 2: queue rate 10000000 bit/s = 1250 pkt/s at 1000-byte packets" in out


@pytest.mark.parametrize(
    ("port", "message"),
    [
        ({"link": {"delay_us": 40_000}}, "ports[2].link.delay_us: BMv2 cannot delay a link"),
        ({"queue": {"depth_bytes": 30_000}}, "ports[2].queue.depth_bytes: BMv2 queue depths"),
    ],
)
def test_what_bmv2_cannot_do_is_refused_before_any_write(
    bmv2_like: tuple[str, Dataplane],
    red_program: CompiledProgram,
    tmp_path: Path,
    cli_log: Path,
    port: dict,
    message: str,
) -> None:
    address, dataplane = bmv2_like
    config = load_config(write_config(tmp_path, red_program, address, {2: port}))
    with pytest.raises(Bmv2PortError, match=message.replace("[", r"\[").replace("]", r"\]")):
        apply_config(config)
    assert not dataplane.has_pipeline()
    assert not cli_log.exists()


def test_a_missing_cli_is_refused_before_any_write(
    bmv2_like: tuple[str, Dataplane],
    red_program: CompiledProgram,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    address, dataplane = bmv2_like
    monkeypatch.setenv("PATH", str(tmp_path))
    ports = {2: {"aqm": RED, "queue": {"rate_bps": 10_000_000}}}
    config = load_config(write_config(tmp_path, red_program, address, ports))
    with pytest.raises(Bmv2PortError, match="simple_switch_CLI, BMv2's runtime CLI"):
        apply_config(config)
    assert not dataplane.has_pipeline()


def test_without_the_cli_the_automatic_depth_is_a_warning(
    bmv2_like: tuple[str, Dataplane],
    red_program: CompiledProgram,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only the depth the controller adds for an AQM port is best effort: the tables are
    written, and the user is told what to run."""
    address, dataplane = bmv2_like
    monkeypatch.setenv("PATH", str(tmp_path))
    apply_config(load_config(write_config(tmp_path, red_program, address, {2: {"aqm": RED}})))
    assert dataplane.has_pipeline()
    err = capsys.readouterr().err
    assert f"simple_switch_CLI --thrift-port 9191` with: set_queue_depth {LIMIT_PKTS + 64} 2" in err


def test_a_cli_error_is_one_line_and_exit_status_1(
    bmv2_like: tuple[str, Dataplane],
    red_program: CompiledProgram,
    tmp_path: Path,
    cli_log: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    address, _ = bmv2_like
    path = write_config(tmp_path, red_program, address, {9: {"queue": {"rate_pps": 100}}})
    assert controller_main([str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "p4aqm controller: error: simple_switch_CLI --thrift-port 9191: Error: Invalid port 9"
    ]
