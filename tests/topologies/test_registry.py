"""The registry of live topologies read while others come and go."""

import os
from pathlib import Path

import pytest

from p4aqm.topology import registry
from p4aqm.topology.registry import OwnedProcess, TopologyRecord


def record(name: str) -> TopologyRecord:
    owner = OwnedProcess(os.getpid(), 0, "test")
    return TopologyRecord(name, owner, "/tmp", [], [], {}, netns=None)


def test_a_record_removed_while_the_registry_is_read_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "REGISTRY_DIR", tmp_path)
    record("p4a").save()
    record("p4b").save()
    load = TopologyRecord.load.__func__  # type: ignore[attr-defined]

    def torn_down_meanwhile(cls: type, path: Path) -> TopologyRecord:
        if path.stem == "p4a":
            path.unlink()  # another point's topology ended between the listing and here
        return load(cls, path)

    monkeypatch.setattr(TopologyRecord, "load", classmethod(torn_down_meanwhile))
    assert [r.name for r in registry.records()] == ["p4b"]


def test_a_damaged_record_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "REGISTRY_DIR", tmp_path)
    (tmp_path / "p4x.json").write_text("{")
    with pytest.raises(ValueError, match="p4x.json: not a topology record"):
        registry.records()
