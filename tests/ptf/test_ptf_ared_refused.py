"""ptf-tests/ared.py where register writes are refused, as BMv2's P4Runtime server refuses
them: the suite's reset finds the refusal and gives the switch's reason to skip with."""

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from launch import PTF_DIR, write_config

from p4aqm.controller.config import load_config
from p4aqm.switch._dataplane import Dataplane
from p4aqm.switch.runtime.errors import unimplemented
from p4aqm.switch.runtime.server import (
    P4RuntimeService,
    ServerThread,
    _abort_with_update_errors,
)
from programs import P4SRC, CompiledProgram, compile_program

sys.path.insert(0, str(PTF_DIR))  # as ptf imports the suites
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # ptf imports scapy.contrib.igmp
    import ared

REFUSED = "Register writes are not supported yet"


class RegisterWritesRefused(P4RuntimeService):
    """Our server, failing a Write with register updates as PI's DeviceMgr::write does:
    UNKNOWN, with an UNIMPLEMENTED p4.v1.Error for each register update."""

    async def Write(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC's name
        registers = [u.entity.HasField("register_entry") for u in request.updates]
        if any(registers):
            refused = unimplemented(REFUSED)
            errors = [refused if r else None for r in registers]
            await _abort_with_update_errors(context, errors, sum(registers))
        return await super().Write(request, context)


@pytest.fixture(scope="module")
def ared_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "ared.p4", tmp_path_factory.mktemp("ared"))


def test_reset_gives_the_refusal_as_reason(ared_program: CompiledProgram, tmp_path: Path) -> None:
    server = ServerThread(RegisterWritesRefused(Dataplane(seed=1), device_id=0))
    address = f"127.0.0.1:{server.start()}"
    try:
        config = load_config(write_config(tmp_path / "controller.yaml", ared_program, address))
        reason = ared.reset_registers(config)
    finally:
        server.stop()
    assert reason == REFUSED
