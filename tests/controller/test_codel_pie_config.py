"""CoDel's and PIE's configs: the `discipline` key picks them, their entries carry the
models' integers, and every parameter range is checked at its boundary: the bound is
accepted, one past it refused with a message naming the field."""

import pytest
from pydantic import TypeAdapter, ValidationError

from p4aqm.controller.disciplines import AqmConfig, CodelConfig, PieConfig
from p4aqm.models.codel import law_table
from p4aqm.models.fixed_point import REGISTER_MAX
from p4aqm.models.pie import MAX_GAIN_PER_S, gain


@pytest.mark.parametrize(("discipline", "model"), [("codel", CodelConfig), ("pie", PieConfig)])
def test_discipline_key_picks_the_config(discipline: str, model: type) -> None:
    config = TypeAdapter(AqmConfig).validate_python({"discipline": discipline})
    assert isinstance(config, model)


def test_codel_defaults_and_entries() -> None:
    config = CodelConfig(ecn=True)
    assert (config.target_us, config.interval_us, config.limit_pkts) == (5000, 100_000, 1000)
    entries = config.entries(3)
    params = entries[0]
    assert params.table_id == "MyIngress.codel_config"
    assert dict(params.match) == {"standard_metadata.egress_spec": 3}
    assert dict(params.action.args) == {
        "target_us": 5000,
        "interval_us": 100_000,
        "limit_pkts": 1000,
        "ecn_enabled": 1,
    }
    table = law_table(100_000)
    assert len(entries) == 1 + len(table)
    first = entries[1]
    assert first.table_id == "MyEgress.codel_control_law"
    assert dict(first.match) == {"port": 3, "count": "1...1"}
    assert first.action.args["law"] == 100_000
    assert entries[-1].match["count"] == f"{table[-1].low}...{REGISTER_MAX}"


def test_pie_defaults_and_entry() -> None:
    (entry,) = PieConfig().entries(2)
    assert entry.table_id == "MyIngress.pie_config"
    assert dict(entry.action.args) == {
        "target_us": 15_000,
        "t_update_us": 15_000,
        "alpha": gain(0.125),
        "beta": gain(1.25),
        "max_burst_us": 150_000,
        "limit_pkts": 1000,
        "ecn_enabled": 0,
    }


@pytest.mark.parametrize(
    ("field", "lowest", "highest"),
    [
        ("target_us", 1, REGISTER_MAX),
        ("interval_us", 1, REGISTER_MAX),
        ("limit_pkts", 1, REGISTER_MAX),
    ],
)
def test_codel_ranges(field: str, lowest: int, highest: int) -> None:
    for value in (lowest, highest):
        assert getattr(CodelConfig(**{field: value}), field) == value
    with pytest.raises(ValidationError, match=f"{field}\n.*greater than or equal to {lowest}"):
        CodelConfig(**{field: lowest - 1})
    message = f"{field} = {highest + 1} is too large: the largest allowed is {highest}"
    with pytest.raises(ValidationError, match=message):
        CodelConfig(**{field: highest + 1})


@pytest.mark.parametrize(
    ("field", "lowest", "highest"),
    [
        ("target_us", 1, REGISTER_MAX),
        ("t_update_us", 1, REGISTER_MAX),
        ("max_burst_us", 0, REGISTER_MAX),
        ("limit_pkts", 1, REGISTER_MAX),
        ("alpha", 0, MAX_GAIN_PER_S),
        ("beta", 0, MAX_GAIN_PER_S),
    ],
)
def test_pie_ranges(field: str, lowest: float, highest: float) -> None:
    for value in (lowest, highest):
        assert getattr(PieConfig(**{field: value}), field) == value
    with pytest.raises(ValidationError, match=f"{field}\n.*greater than or equal to {lowest}"):
        PieConfig(**{field: lowest - 1})
    past = highest + 1 if isinstance(highest, int) else highest * 1.01
    message = f"{field} = {shown(past)} is too large: the largest allowed is {shown(highest)}"
    with pytest.raises(ValidationError, match=message):
        PieConfig(**{field: past})


def shown(value: float) -> str:
    """As the range check writes a value: integers in full, others short."""
    return str(value) if isinstance(value, int) else f"{value:g}"


def test_unknown_keys_are_refused() -> None:
    with pytest.raises(ValidationError, match="qdelay_ref"):
        PieConfig(qdelay_ref=15_000)  # type: ignore[call-arg]
