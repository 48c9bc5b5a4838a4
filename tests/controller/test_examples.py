"""Every example config loads and fits the program it names."""

from pathlib import Path

import pytest
import yaml

from p4aqm.controller.config import load_config
from p4aqm.controller.pipeline import check_against_p4info, desired_entries
from programs import P4SRC, REPO, compile_program

EXAMPLES = sorted((REPO / "examples" / "controller").glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_fits_its_program(example: Path, tmp_path: Path) -> None:
    config = yaml.safe_load(example.read_text())
    program = compile_program(P4SRC / f"{Path(config['pipeline']['bmv2_json']).stem}.p4", tmp_path)
    config["pipeline"] = {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)}
    path = tmp_path / example.name
    path.write_text(yaml.safe_dump(config))
    loaded = load_config(path)
    check_against_p4info(loaded, desired_entries(loaded))
