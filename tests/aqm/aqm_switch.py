"""A program of p4src/ on the dataplane in virtual time, its AQM on the output port set up
exactly as the controller sets it up: the entries come from the controller's discipline
module and reach the dataplane through the P4Runtime server's table store."""

import finsy as fy
from finsy.proto import p4i, p4r
from google.protobuf import text_format

from p4aqm.controller.disciplines import AqmConfig
from p4aqm.switch._dataplane import Dataplane
from p4aqm.switch.runtime.action_profiles import ActionProfiles
from p4aqm.switch.runtime.pipeline import Pipeline
from p4aqm.switch.runtime.table_entries import TableEntries
from programs import CompiledProgram

IN_PORT, OUT_PORT = 1, 2
ROUTE = ("lpm", bytes([10, 0, 2, 0]), 24)
# The traffic manager's own queue is deeper than the AQM's limit: only the AQM drops.
QUEUE_HEADROOM_PKTS = 64


def u(value: int, width_bytes: int) -> bytes:
    return value.to_bytes(width_bytes, "big")


def routed_dataplane(program: CompiledProgram, seed: int) -> Dataplane:
    """A virtual-time dataplane running the program, with 10.0.2.0/24 routed to OUT_PORT."""
    dp = Dataplane(seed=seed, virtual_time=True)
    dp.add_memory_port(IN_PORT)
    dp.add_memory_port(OUT_PORT)
    dp.load_pipeline(program.json_path.read_bytes())
    dp.table_add(
        "MyIngress.ipv4_lpm",
        [ROUTE],
        "MyIngress.ipv4_forward",
        [bytes(6), bytes(6), u(OUT_PORT, 2)],
        0,
    )
    return dp


def install_entries(
    dp: Dataplane, program: CompiledProgram, entries: list[fy.P4TableEntry]
) -> None:
    """Encode as the controller's client does, and insert as the P4Runtime server does."""
    p4info = text_format.Parse(program.p4info_path.read_text(), p4i.P4Info())
    schema = fy.P4Schema(p4info)
    config = p4r.ForwardingPipelineConfig(
        p4info=p4info, p4_device_config=program.json_path.read_bytes()
    )
    pipeline = Pipeline(config)
    table_entries = TableEntries(dp, pipeline, ActionProfiles(dp, pipeline))
    for entry in entries:
        table_entries.write(p4r.Update.INSERT, entry.encode(schema).table_entry)


def aqm_dataplane(
    program: CompiledProgram, aqm: AqmConfig, rate_pps: float, seed: int
) -> Dataplane:
    """The program's AQM on OUT_PORT, draining at rate_pps."""
    dp = routed_dataplane(program, seed)
    install_entries(dp, program, aqm.entries(OUT_PORT))
    dp.set_queue(OUT_PORT, rate_pps=rate_pps, depth_pkts=aqm.limit_pkts + QUEUE_HEADROOM_PKTS)
    return dp


def read_register(dp: Dataplane, name: str, index: int) -> int:
    return int.from_bytes(dp.register_read(name, index), "big")


def signed_count(count: int) -> int:
    """count is -1 in the models and 0xffffffff in the 32-bit register."""
    return count - (1 << 32) if count >> 31 else count
