"""The study files: valid, and the demo within its 10-minute budget by --dry-run."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STUDIES = REPO / "experiments" / "studies"
P4AQM = str(Path(sys.executable).parent / "p4aqm")


def dry_run(path: Path, *args: str) -> str:
    run = subprocess.run(
        [P4AQM, "run", str(path), "-o", "/nonexistent/dry", "--dry-run", *args],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_the_demo_is_valid_and_within_ten_minutes() -> None:
    # scripts/demo_aqm.sh runs it with --jobs auto, which ran two or more points at once
    # on the lab's 2-core machine (make bench): the estimate for two.
    out = dry_run(STUDIES / "demo-fifo-vs-red.yaml", "--jobs", "2")
    minutes = float(re.search(r"--jobs 2: about ([\d.]+) min", out).group(1))
    assert "droptail_120" in out and "red_30_90" in out and "rep3" in out
    assert minutes <= 10 - 1, out  # a minute left for the report


def test_each_study_is_valid_and_its_quick_profile_fits_an_hour() -> None:
    # Two points at once, as the lab's 2-core machine runs the demo's (README, "Points at
    # once"); each study's measured wall time is in the README.
    studies = sorted(p for p in STUDIES.glob("*.yaml") if p.stem != "demo-fifo-vs-red")
    # The five seed studies and ours on CoDel and PIE (beyond-red).
    assert len(studies) == 6
    for study in studies:
        quick = dry_run(study, "--profile", "quick", "--jobs", "2")
        minutes = float(re.search(r"--jobs 2: about ([\d.]+) min", quick).group(1))
        assert minutes <= 60, (study, quick)
        dry_run(study, "--profile", "full")
