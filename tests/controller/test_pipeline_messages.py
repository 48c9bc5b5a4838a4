"""A pipeline swap is said as what it is: the controller prints that it installed or
replaced the pipeline and that the state went with it, and the switch logs each load,
with its time, at its default log level. finsy's false "gNMI is not implemented" is not
shown."""

import json
import re
from pathlib import Path

import pytest
import yaml
from switch_process import SwitchProcess, stop_switch  # on sys.path from conftest.py

from p4aqm.controller.config import load_config
from p4aqm.controller.session import apply_config
from programs import P4SRC, CompiledProgram, compile_program


def config_for(tmp_path: Path, program: CompiledProgram, address: str) -> Path:
    config = {
        "switch": {"grpc_addr": address},
        "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
    }
    path = tmp_path / f"{program.source.stem}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_install_replace_and_keep_are_said(
    switch_process: SwitchProcess,
    red_program: CompiledProgram,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    droptail = compile_program(P4SRC / "droptail.p4", tmp_path)
    red_yaml = config_for(tmp_path, red_program, switch_process.address)
    droptail_yaml = config_for(tmp_path, droptail, switch_process.address)
    red, dt = red_program.json_path, droptail.json_path
    for path in (red_yaml, red_yaml, droptail_yaml):
        apply_config(load_config(path))
    printed = [line for line in capsys.readouterr().out.splitlines() if "pipeline" in line]
    assert printed == [
        f"controller: pipeline installed ({_program(red)})",
        f"controller: pipeline replaced ({_program(red)} -> {_program(dt)}):"
        " tables, registers and counters cleared",
    ]
    assert not [r for r in caplog.records if "gNMI is not implemented" in r.getMessage()]
    stop_switch(switch_process.process)
    assert switch_process.process.stdout is not None
    log = switch_process.process.stdout.read()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} p4aqm\.switch\.runtime INFO: "
    assert re.search(stamp + re.escape(f"pipeline loaded: {_program(red)}"), log), log
    replaced = f"pipeline replaced ({_program(red)} -> {_program(dt)})"
    assert re.search(stamp + re.escape(replaced), log), log


def _program(json_path: Path) -> str:
    """The source program p4c names in its JSON."""
    return json.loads(json_path.read_bytes())["program"]
