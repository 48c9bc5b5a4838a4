"""The setup table (p4aqm/report/setup.py): every setting the manifests record becomes a
row, a setting known or not, and every study file states the paper's value of each."""

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from p4aqm.experiments.spec import load_experiment
from p4aqm.report.load import Point
from p4aqm.report.setup import (
    HOST_IDENTITY,
    NOT_STATED,
    TOPOLOGY_INTERNAL,
    as_markdown,
    setup_table,
    unstated,
)
from p4aqm.topology import HostTcp

STUDIES = Path(__file__).resolve().parents[2] / "experiments" / "studies"
# One host's manifest as a run records it (a client of the Christiansen quick profile).
READBACK = json.loads((Path(__file__).parent / "data" / "host_readback.json").read_text())


def manifest_of(point: Any, hosts: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:  # noqa: ANN401
    """A point's manifest as `p4aqm run` writes it, with every host read back as READBACK."""
    topology = point.topology.to_json()
    names = [f"c{i + 1}" for i in range(len(topology["left_delays_us"]))]
    names += [f"s{i + 1}" for i in range(len(topology["right_delays_us"]))]
    return {
        "status": "ok",
        "point": {"name": point.name, "repetition": point.repetition},
        "sweep": point.overrides,
        "experiment": point.experiment.model_dump(mode="json"),
        "topology": topology,
        "web_users": point.web_users,
        "hosts": hosts or {name: copy.deepcopy(READBACK) for name in names},
    }


def as_points(manifests: list[dict[str, Any]]) -> list[Point]:
    return [Point("study", Path("/nonexistent"), m) for m in manifests]


@pytest.fixture(scope="module")
def christiansen() -> list[Point]:
    _, points = load_experiment(STUDIES / "christiansen-tuning-red.yaml", "quick")
    return as_points([manifest_of(p) for p in points])


def test_every_recorded_host_knob_and_topology_field_is_a_row(christiansen: list[Point]) -> None:
    table = setup_table(christiansen, {})
    settings = set(table["setting"])
    host = christiansen[0].manifest["hosts"]["c1"]
    for key in set(host) - HOST_IDENTITY:
        assert f"host.{key}" in settings, key
    assert {"host.tcp_rmem", "host.tcp_wmem"} <= settings
    for key in set(christiansen[0].manifest["topology"]) - TOPOLOGY_INTERNAL:
        assert f"topology.{key}" in settings, key
    # With no paper: section, every row says the paper's value is not stated.
    assert set(unstated(table)) == settings


def test_a_knob_the_table_does_not_know_still_gets_a_row(christiansen: list[Point]) -> None:
    manifests = [copy.deepcopy(p.manifest) for p in christiansen[:2]]
    for manifest in manifests:
        manifest["hosts"]["c1"]["tcp_fastopen"] = 3
    manifests[0]["hosts"]["s2"]["sysctl"]["net.ipv4.tcp_timestamps"] = "0"
    manifests[1]["topology"]["bottleneck_jitter_us"] = 5
    table = setup_table(as_points(manifests), {}).set_index("setting")
    assert (
        table.loc["host.tcp_fastopen", "ours"]
        == "c1: 3; c2, c3, c4, c5, c6, c7, c8, c9, s1, s2, s3: none (the default)"
    )
    assert table.loc["host.tcp_timestamps", "ours"].startswith("c1, c2")
    assert table.loc["host.tcp_timestamps", "ours"].endswith("s2: 0")
    assert table.loc["topology.bottleneck_jitter_us", "ours"] == "none (the default); 5"


def test_no_tcp_knob_is_taken_for_a_host_identity() -> None:
    knobs = {f.name for f in dataclasses.fields(HostTcp)} | {"initcwnd", "offloads"}
    assert not knobs & HOST_IDENTITY
    assert not knobs & TOPOLOGY_INTERNAL - {"host_tcp"}


def test_values_over_points_are_each_listed_once(christiansen: list[Point]) -> None:
    table = setup_table(christiansen, {}).set_index("setting")
    assert table.loc["traffic.web.load_percent", "ours"] == "50; 70; 80; 90; 98; 110"
    assert table.loc["host.congestion_control", "ours"] == "reno"
    assert table.loc["host.sack", "ours"] == "off"
    # Five runs of each grid point, one of the uncongested reference at each load.
    assert table.loc["run.repetitions", "ours"] == "5; 1"
    aqms = table.loc["topology.right_to_left_aqm", "ours"].split("; ")
    assert aqms[0] == "discipline droptail, limit_pkts 120"
    assert len(aqms) == 6 and aqms[-1] == "drop-tail (no AQM)"
    assert table.loc["topology.bottleneck_rate_bps", "ours"] == "10000000; 100000000"


def test_the_paper_column_and_why_ours_differs(christiansen: list[Point]) -> None:
    paper = {
        "host.sack": {"value": "off", "differs": None},
        "host.initcwnd": {"value": "2", "differs": "ours is 1"},
    }
    table = setup_table(christiansen, paper).set_index("setting")
    assert table.loc["host.initcwnd", "paper"] == "2"
    assert table.loc["host.initcwnd", "differs"] == "ours is 1"
    assert table.loc["host.sack", "differs"] == ""
    assert table.loc["host.ecn", "paper"] == NOT_STATED
    assert "| SACK | off | off |  |" in as_markdown(table.reset_index())


def test_a_point_that_did_not_run_is_left_out(christiansen: list[Point]) -> None:
    failed = copy.deepcopy(christiansen[0].manifest)
    failed["status"], failed["hosts"] = "failed", {}
    failed["experiment"]["traffic"]["web"]["load_percent"] = 150
    table = setup_table([*christiansen[:1], Point("study", Path("/x"), failed)], {})
    assert table.set_index("setting").loc["traffic.web.load_percent", "ours"] == "50"


@pytest.mark.parametrize(
    "study",
    [
        "christiansen-tuning-red",
        "weigle-sack-ared-ecn",
        "parris-cbt",
        "scharf-iw10",
        "beyond-red",
        "dunigan-wad",
    ],
)
def test_each_study_states_the_papers_value_of_every_setting(study: str) -> None:
    experiment, points = load_experiment(STUDIES / f"{study}.yaml", "quick")
    table = setup_table(
        as_points([manifest_of(p) for p in points]),
        {k: v.model_dump() for k, v in experiment.paper.items()},
    )
    assert unstated(table) == [], f"{study}: the paper: section leaves out {unstated(table)}"
