"""The parameters of an action as a client gives them: checked against P4Info and made
canonical, for table entries and action profile members alike."""

from finsy.proto import p4r

from p4aqm.switch.runtime.codec import canonical, is_canonical
from p4aqm.switch.runtime.errors import invalid
from p4aqm.switch.runtime.pipeline import ActionInfo


def action_arguments(action: ActionInfo, msg: p4r.Action) -> tuple[list[bytes], bool]:
    """The canonical arguments of `msg` in P4Info order, and whether `msg` gave them
    canonical and in that order already."""
    given: dict[int, bytes] = {}
    params = [(p.param_id, p.value) for p in msg.params]
    for param_id, value in params:
        info = action.param(param_id)
        if info is None:
            raise invalid(f"action '{action.name}' has no parameter with id {param_id}")
        if param_id in given:
            raise invalid(f"action '{action.name}': parameter '{info.name}' given twice")
        if is_canonical(value, info.bitwidth):
            given[param_id] = value
        else:
            what = f"action '{action.name}' parameter '{info.name}'"
            given[param_id] = canonical(value, info.bitwidth, what)
    missing = [p.name for p in action.params if p.id not in given]
    if missing:
        raise invalid(f"action '{action.name}': missing parameter(s) {', '.join(missing)}")
    args = [given[p.id] for p in action.params]
    return args, params == list(zip((p.id for p in action.params), args, strict=True))
