"""The README's library example, run as written: one Python process builds the dumbbell,
puts RED on the bottleneck, runs web users for 10 s and reads the monitor's records as a
DataFrame, without a config file."""

import os
import re
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
SECTION = "## The lab as a Python library"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root")


def readme_example() -> str:
    text = (REPO / "README.md").read_text()
    section = text.split(SECTION, 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, f"no python block under {SECTION!r} in README.md"
    return match.group(1)


def test_the_readme_example_runs_and_gives_the_monitor_as_a_dataframe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    before = set(Path("/tmp").glob("p4aqm-dumbbell-*"))
    namespace: dict[str, object] = {}
    exec(compile(readme_example(), "README.md", "exec"), namespace)  # noqa: S102
    samples = namespace["samples"]
    assert isinstance(samples, pd.DataFrame)
    # 10 s of web users at 10 ms: about a thousand periods, each RED's state with it.
    assert len(samples) >= 900
    assert {"qdepth_pkts", "avg_pkts", "early_drops_delta", "marks_delta"} <= set(samples)
    assert samples["qdepth_pkts"].max() > 0, "the web users never queued a packet"
    assert (samples["time_us"].diff().dropna() > 0).all()
    # The users' records were written where the example said; no config file anywhere.
    assert list((tmp_path / "web").glob("c*.parquet"))
    run_dirs = set(Path("/tmp").glob("p4aqm-dumbbell-*")) - before
    written = [p for d in run_dirs for p in d.rglob("*") if p.suffix in (".yaml", ".yml")]
    assert not written, f"config files written: {written}"
    assert "qdepth_pkts" in capsys.readouterr().out
