"""The router handle's in-process monitor (p4aqm/controller/router.py, recording.py), as
an experiment point uses it: one session for the run, the records in memory and in a
Parquet file that is complete whatever ended the run, Ctrl-C included."""

import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from sample_configs import command_interrupted_when, red_config
from switch_process import SwitchProcess  # on sys.path from conftest.py

from p4aqm.controller import Router, load_config
from p4aqm.controller.sample_file import read_metadata
from p4aqm.schema import Column
from programs import CompiledProgram

# A script that records until Ctrl-C, as `p4aqm run` does in a point.
RECORD_UNTIL_INTERRUPTED = textwrap.dedent(
    """
    import faulthandler
    import signal
    import sys
    import time
    from pathlib import Path

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # where a hang is, if one is
    # Ctrl-C as `p4aqm run` takes it, even when started from a background job, which
    # inherits SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    from p4aqm.controller import Router, load_config

    config = load_config(Path(sys.argv[1]))
    with Router.of(config) as router:
        router.apply(config)
        with router.monitor(0.003, out=Path(sys.argv[2]), metadata={"run": "test"}) as rec:
            try:
                time.sleep(120)
            except KeyboardInterrupt:
                pass
    print(f"rows {len(rec.rows)}")
    """
)


def test_apply_says_what_changed_and_a_second_apply_changes_nothing(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    config = load_config(red_config(tmp_path, red_program, switch_process.address))
    with Router.of(config) as router:
        first = router.apply(config)
        again = router.apply(config)
        state = router.port_state(2)
    assert first.pipeline is not None and first.pipeline.startswith("pipeline installed")
    assert first.inserted > 0 and first.port_settings > 0
    assert (again.inserted, again.modified, again.deleted, again.pipeline) == (0, 0, 0, None)
    assert state.qdepth_pkts == 0 and state.counters["tm_drops"] == 0


def test_routers_of_one_process_share_one_loop_until_the_last_closes(
    switch_process: SwitchProcess,
    red_program: CompiledProgram,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # gRPC's asyncio layer binds every loop that used it to one completion queue: a
    # loop closed beside another router's made its poller call a closed loop.
    config = load_config(red_config(tmp_path, red_program, switch_process.address))
    first, second = Router.of(config), Router.of(config)
    first.open()
    second.open()
    assert first._loop is second._loop
    loop = first._loop
    assert loop is not None
    first.apply(config)
    first.close()
    assert loop.loop.is_running()
    assert second.apply(config).pipeline is None  # first left it installed
    second.close()
    assert loop.loop.is_closed()
    assert "Event loop is closed" not in capfd.readouterr().err


def test_a_config_for_another_switch_is_refused(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    config = load_config(red_config(tmp_path, red_program, switch_process.address))
    other = config.model_copy(update={"switch": config.switch.model_copy(update={"device_id": 7})})
    with Router.of(config) as router, pytest.raises(ValueError, match="given to the router of"):
        router.apply(other)


def test_the_monitor_of_the_ports_applied_in_memory_and_in_a_file(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    config = load_config(red_config(tmp_path, red_program, switch_process.address))
    out = tmp_path / "monitor.parquet"
    with Router.of(config) as router:
        router.apply(config)
        with router.monitor(0.005, out=out) as recording:
            time.sleep(0.5)
    frame = recording.dataframe()
    # Both AQM ports of the config, each sampled every 5 ms for about half a second.
    assert set(frame[Column.EGRESS_PORT]) == {2, 3}
    assert len(frame) >= 2 * 50
    on_disk = pd.read_parquet(out)
    assert len(on_disk) == len(frame)
    assert list(on_disk.columns) == list(frame.columns)
    assert read_metadata(out)["counters"] == "deltas per period"


def test_the_file_is_complete_after_ctrl_c(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    config = red_config(tmp_path, red_program, switch_process.address)
    out = tmp_path / "monitor.parquet"
    command = [sys.executable, "-c", RECORD_UNTIL_INTERRUPTED, str(config), str(out)]
    # The writer opens the file with its 4-byte magic and adds a row group every second.
    result = command_interrupted_when(command, out, lambda: out.stat().st_size > 4, "a row group")
    assert result.returncode == 0, result.stderr
    frame = pd.read_parquet(out)
    assert f"rows {len(frame)}" in result.stdout
    assert len(frame) > 0
    assert read_metadata(out)["run"] == "test"
