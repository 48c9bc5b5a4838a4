"""One controller session, opened and closed around one config: `p4aqm controller`'s."""

from p4aqm.controller.config import ControllerConfig
from p4aqm.controller.router import Router


def apply_config(config: ControllerConfig, timeout_s: float = 10.0) -> tuple[int, int, int]:
    """Install the pipeline if needed and sync the tables and ports; say what became of
    the pipeline; return (inserted, modified, deleted) entries."""
    with Router.of(config, timeout_s) as router:
        changes = router.apply(config)
    if changes.pipeline is not None:
        print(f"controller: {changes.pipeline}")
    return changes.inserted, changes.modified, changes.deleted
