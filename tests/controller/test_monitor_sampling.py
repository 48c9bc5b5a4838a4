"""`p4aqm controller --sample` on our switch: the switch's queue monitor samples every
period itself and streams packed records over gNMI Subscribe; the file has one row per
port and period, typed columns, the switch's clock and CLOCK_REALTIME, per-period
counter deltas, and says how many periods the monitor missed."""

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
from sample_configs import interrupted_when, red_config
from switch_process import SwitchProcess  # on sys.path from conftest.py

from p4aqm.controller.sample_file import read_metadata
from p4aqm.schema import COUNTER_DELTAS, Column
from programs import CompiledProgram

# RED's columns: the traffic manager's, then the probes' (registers, counters' deltas).
COLUMNS = [
    Column.REALTIME_NS,
    Column.TIME_US,
    Column.PERIOD_INDEX,
    Column.EGRESS_PORT,
    Column.QID,
    Column.QDEPTH_PKTS,
    Column.QDEPTH_BYTES,
    Column.ARRIVALS_DELTA,
    Column.DEPARTURES_DELTA,
    Column.TM_DROPS_DELTA,
    Column.SOJOURN_MAX_US,
    Column.SOJOURN_MEAN_US,
    Column.OCCUPANCY_PKTS,
    Column.AVG_PKTS,
    Column.MARKS_DELTA,
    Column.EARLY_DROPS_DELTA,
    Column.FORCED_DROPS_DELTA,
    Column.OVERFLOW_DROPS_DELTA,
]
FLOATS = {Column.SOJOURN_MEAN_US, Column.AVG_PKTS}


def run(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    args = [p4aqm, "controller", str(config), "--sample", str(out), "--period-ms", "3"]
    return subprocess.run(
        [*args, "--duration-s", "1.5"], capture_output=True, text=True, timeout=120
    )


def test_monitor_rows_are_typed_per_port_and_period(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    out = tmp_path / "samples.parquet"
    result = run(red_config(tmp_path, red_program, switch_process.address), out)
    assert result.returncode == 0, result.stderr
    frame = pd.read_parquet(out)
    assert list(frame.columns) == COLUMNS
    expected = {c: "float64" if c in FLOATS else "int64" for c in COLUMNS}
    assert {c: str(t) for c, t in frame.dtypes.items()} == expected
    assert f"{len(frame)} sample row(s)" in result.stdout
    # One row per port and period, ports in order, the same instant for both.
    pairs = frame.groupby(Column.PERIOD_INDEX)
    assert (pairs.size() == 2).all()
    assert (pairs[Column.EGRESS_PORT].apply(list).apply(tuple) == (2, 3)).all()
    assert (pairs[Column.TIME_US].nunique() == 1).all()
    # Every period of the run is in the file, or the monitor says it missed it.
    found = re.search(r"missed (\d+) period\(s\) and dropped (\d+) record", result.stdout)
    assert found, result.stdout
    missed, dropped = int(found[1]), int(found[2])
    periods = sorted(frame[Column.PERIOD_INDEX].unique())
    span = periods[-1] - periods[0] + 1
    assert len(periods) + missed + dropped >= span
    assert len(periods) <= span
    # A sample is taken at its grid point t0 + period * 3 ms of the switch's clock, or
    # later (a late wake-up), never earlier; the first, at start, is t0 itself.
    port2 = frame[frame[Column.EGRESS_PORT] == 2]
    lateness = port2[Column.TIME_US] - port2[Column.PERIOD_INDEX] * 3000
    assert lateness.iloc[0] == lateness.min()
    assert (port2[Column.REALTIME_NS].diff().dropna() > 0).all()
    metadata = read_metadata(out)
    assert metadata["period_us"] == 3000
    assert set(metadata["time_base"]) == {Column.REALTIME_NS, Column.TIME_US, Column.PERIOD_INDEX}
    assert metadata["counters"] == COUNTER_DELTAS
    assert "queue monitor" in metadata["sources"][Column.OCCUPANCY_PKTS]
    assert "delta per period" in metadata["sources"][Column.MARKS_DELTA]


def test_an_interrupt_leaves_a_complete_file(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    out = tmp_path / "samples.parquet"
    config = red_config(tmp_path, red_program, switch_process.address)
    # The writer opens the file with its 4-byte magic and adds a row group every second.
    result = interrupted_when(config, out, lambda: out.stat().st_size > 4, "a row group")
    assert result.returncode == 0, result.stderr
    frame = pd.read_parquet(out)
    assert list(frame.columns) == COLUMNS
    assert f"{len(frame)} sample row(s)" in result.stdout
