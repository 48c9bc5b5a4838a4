"""Mah's five distributions from the package data, and the think-time cap."""

import numpy as np
import pytest
from pydantic import ValidationError

from p4aqm.traffic.mah import ThinkTimeParams, load_mah


def test_redraw_keeps_the_shape_below_the_cap() -> None:
    model = load_mah(ThinkTimeParams(think_time_cap_s=600, think_time_policy="redraw"))
    think = model.think_time_s
    assert think.values[-1] <= 600
    assert think.mean() == pytest.approx(42.29, abs=0.01)
    draws = think.sample(np.random.default_rng(3), 20_000)
    assert draws.max() <= 600
    # Conditioning keeps the ratios of Mah's probabilities: P(<= 16.192 s) was 0.5 of all,
    # so it is 0.5 / (1 - 0.1073) of the think times kept.
    assert (draws <= 16.192).mean() == pytest.approx(0.5 / (1 - 0.10731), abs=0.015)


def test_clip_puts_the_tail_on_the_cap() -> None:
    think = load_mah(ThinkTimeParams(think_time_cap_s=600, think_time_policy="clip")).think_time_s
    assert think.values[-1] == 600
    assert think.probabilities()[-1] == pytest.approx(0.10731, abs=1e-4)
    assert think.mean() == pytest.approx(102.14, abs=0.01)
    assert think.sample(np.random.default_rng(4), 20_000).max() == 600


def test_a_cap_above_the_data_changes_nothing() -> None:
    for policy in ("clip", "redraw"):
        params = ThinkTimeParams(think_time_cap_s=1e6, think_time_policy=policy)
        assert load_mah(params).think_time_s.mean() == pytest.approx(1803.98, abs=0.01)


def test_the_other_distributions_are_mah() -> None:
    model = load_mah()
    assert model.request_bytes.mean() == pytest.approx(337.34, abs=0.01)
    assert model.reply_bytes.mean() == pytest.approx(7230.97, abs=0.01)
    assert model.files_per_page.mean() == pytest.approx(2.838, abs=0.001)
    assert model.server_stay_pages.mean() == pytest.approx(4.010, abs=0.001)


def test_bad_think_time_params_name_the_field() -> None:
    with pytest.raises(ValidationError, match="think_time_cap_s"):
        ThinkTimeParams(think_time_cap_s=-1)
    with pytest.raises(ValidationError, match="think_time_policy"):
        ThinkTimeParams(think_time_policy="truncate")
