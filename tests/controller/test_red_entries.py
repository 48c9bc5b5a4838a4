"""RED's config becomes the integer table entries the model defines."""

import pytest
from pydantic import ValidationError

from p4aqm.controller.disciplines.red import RedConfig, red_entries
from p4aqm.models.red import RedTables


def test_entries_carry_the_model_tables() -> None:
    config = RedConfig(discipline="red", min_th=30, max_th=90, max_p=0.1, gentle=True, ecn=True)
    tables = RedTables.from_params(config.params())
    entries = red_entries(2, config)
    assert len(entries) == 1 + len(tables.p_b_table) + len(tables.decay_table)
    params = entries[0]
    assert params.table_id == "MyIngress.red_config"
    assert dict(params.match) == {"standard_metadata.egress_spec": 2}
    assert dict(params.action.args) == {
        "w_shift": 9,
        "min_th": 30 << 16,
        "ramp_end": 180 << 16,  # gentle: the ramp ends at 2 max_th
        "limit_pkts": 1000,
        "ecn_enabled": 1,
    }
    first_ramp = entries[1]
    low, high = first_ramp.match["avg"].split("...")
    assert int(low) == 30 << 16
    assert first_ramp.action.args["p_b"] == tables.p_b_table[0].value
    assert first_ramp.priority == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_th": 90, "max_th": 30}, "need 0 <= min_th < max_th"),
        ({"w_q": 0.002}, "not a power of two"),
        ({"max_p": 1.5}, "less than or equal to 1"),
    ],
)
def test_bad_red_parameters(kwargs: dict, message: str) -> None:
    values = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, **kwargs}
    with pytest.raises(ValidationError, match=message):
        RedConfig(**values)
