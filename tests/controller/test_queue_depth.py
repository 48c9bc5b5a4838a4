"""The controller makes each AQM port's queue deeper than the AQM's limit, so that the
program and not the traffic manager drops (on BMv2 through its CLI: test_bmv2_queues.py)."""

import asyncio
from pathlib import Path

import yaml
from finsy import GNMIClient, GNMIPath
from switch_process import SwitchProcess  # on sys.path from conftest.py

from p4aqm.controller.config import load_config
from p4aqm.controller.port_control import QUEUE_HEADROOM_PKTS
from p4aqm.controller.session import apply_config
from programs import CompiledProgram

LIMIT_PKTS = 120
DEPTH = "/p4aqm/ports/port[id=2]/queues/queue[id=0]/config/depth-pkts"


def red_config(tmp_path: Path, program: CompiledProgram, address: str, **port: dict) -> Path:
    red = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "limit_pkts": LIMIT_PKTS}
    config = {
        "switch": {"grpc_addr": address},
        "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
        "ports": {2: {"aqm": red, **port}},
    }
    path = tmp_path / "red.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


async def read_depth(address: str) -> int:
    async with GNMIClient(address) as client:
        (update,) = await client.get(GNMIPath(DEPTH))
    return int(update.value)


def test_the_queue_is_set_deeper_than_the_aqm_limit(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    rate = {"rate_bps": 10_000_000}
    apply_config(load_config(red_config(tmp_path, red_program, switch_process.address, queue=rate)))
    assert asyncio.run(read_depth(switch_process.address)) == LIMIT_PKTS + QUEUE_HEADROOM_PKTS
