"""`p4aqm controller` reports config and connection problems in one line, without a traceback."""

import subprocess
import sys
from pathlib import Path

import yaml

from programs import CompiledProgram

MINIMAL_P4INFO = 'actions { preamble { id: 21257015 name: "NoAction" alias: "NoAction" } }\n'


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    return subprocess.run([p4aqm, "controller", *args], capture_output=True, text=True, timeout=30)


def make_config(tmp_path: Path, **switch: object) -> Path:
    (tmp_path / "p.txtpb").write_text(MINIMAL_P4INFO)
    (tmp_path / "p.json").write_text("{}")
    config = {"switch": switch, "pipeline": {"p4info": "p.txtpb", "bmv2_json": "p.json"}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_unreachable_switch(tmp_path: Path) -> None:
    result = run_cli(str(make_config(tmp_path, grpc_addr="127.0.0.1:1")), "--timeout", "5")
    assert result.returncode == 1
    assert result.stderr.startswith("p4aqm controller: error: switch 127.0.0.1:1:")
    assert "Traceback" not in result.stderr


def test_bad_config_names_the_field(tmp_path: Path) -> None:
    result = run_cli(str(make_config(tmp_path, device_id="zero")))
    assert result.returncode == 1
    assert "switch.device_id:" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_flag(tmp_path: Path) -> None:
    result = run_cli(str(make_config(tmp_path)), "--timeout", "soon")
    assert result.returncode == 2
    assert "--timeout: invalid float value: 'soon'" in result.stderr


def test_config_that_does_not_fit_the_program(l3_program: CompiledProgram, tmp_path: Path) -> None:
    config = {
        "switch": {"grpc_addr": "127.0.0.1:1"},
        "pipeline": {"p4info": str(l3_program.p4info_path), "bmv2_json": str(l3_program.json_path)},
        "ports": {2: {"aqm": {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1}}},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    result = run_cli(str(path))
    assert result.returncode == 1
    assert "no P4Table named 'MyIngress.red_config'" in result.stderr
    assert "Traceback" not in result.stderr
