"""ared.p4's own state on the output port: the two registers it adds to RED's (which it
keeps under RED's names, so red_switch's readers serve for the rest)."""

from aqm_switch import OUT_PORT, read_register

from p4aqm.switch._dataplane import Dataplane


def read_adaptation(dp: Dataplane) -> tuple[int, int]:
    """(max_p, next_adapt_us) of the output port."""
    return read_register(dp, "ared_max_p", OUT_PORT), read_register(dp, "ared_next_adapt", OUT_PORT)
