"""The controller config the sampling tests share: RED on ports 2 and 3 of a switch."""

from pathlib import Path

import yaml

from programs import CompiledProgram


def red_config(tmp_path: Path, program: CompiledProgram, address: str) -> Path:
    config = {
        "switch": {"grpc_addr": address},
        "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
        "ports": {
            2: {"aqm": {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1}},
            3: {"aqm": {"discipline": "red", "min_th": 30, "max_th": 90, "max_p": 0.1}},
        },
    }
    path = tmp_path / "red.yaml"
    path.write_text(yaml.safe_dump(config))
    return path
