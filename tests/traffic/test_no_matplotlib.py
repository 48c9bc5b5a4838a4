"""The traffic package runs on the hosts of an experiment, which need no plotting: none of
its modules may import matplotlib (the calibration's figure is in p4aqm/report)."""

import subprocess
import sys

# In a fresh interpreter: this one may have matplotlib loaded by other tests.
CHECK = """
import pkgutil, sys
import p4aqm.traffic
for module in pkgutil.walk_packages(p4aqm.traffic.__path__, "p4aqm.traffic."):
    __import__(module.name)
print(sorted(name for name in sys.modules if name.split(".")[0] == "matplotlib"))
"""


def test_no_traffic_module_imports_matplotlib() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
