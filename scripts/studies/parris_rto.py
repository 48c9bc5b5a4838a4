"""Does Linux's 200 ms least retransmission timeout explain RED's marked loss in the
Parris et al. rerun? RED's points of the quick profile (Linux's 200 ms) against those of
the red-rto-1s profile (1998 BSD's about 1 s), repetition k against repetition k (the
same seed): the marked UDP loss over ProShare's 100 s and TCP's frames at the
bottleneck, with a 95 % t interval on the paired difference.

    .venv/bin/python scripts/studies/parris_rto.py results/parris-cbt-quick \\
        results/parris-cbt-red-rto-1s
"""

import json
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
from bottleneck_tcp_share import point_figures  # noqa: E402
from parris_findings import marked_loss  # noqa: E402


def red_points(results: Path) -> dict[int, Path]:
    """RED's points by repetition."""
    found = {}
    for folder in sorted((results / "points").iterdir()):
        manifest = json.loads((folder / "manifest.json").read_text())
        aqm = manifest["topology"]["left_to_right_aqm"] or {}
        if manifest["status"] == "ok" and aqm.get("discipline") == "red":
            found[manifest["point"]["repetition"]] = folder
    return found


def figures(folder: Path) -> dict[str, float]:
    manifest = json.loads((folder / "manifest.json").read_text())
    loss, _ = marked_loss(folder, manifest["epoch_ns"])
    tcp_frames_mbps, _ = point_figures(folder)
    return {"marked UDP loss (%)": loss, "TCP frames at the bottleneck (Mbit/s)": tcp_frames_mbps}


def main(base: Path, changed: Path) -> None:
    a, b = red_points(base), red_points(changed)
    reps = sorted(set(a) & set(b))
    if len(reps) < 2:
        sys.exit(f"need two or more repetitions in both folders; common: {reps}")
    rows = {rep: (figures(a[rep]), figures(b[rep])) for rep in reps}
    for name in rows[reps[0]][0]:
        x = np.array([rows[r][0][name] for r in reps])
        y = np.array([rows[r][1][name] for r in reps])
        d = y - x
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        print(
            f"{name}: 200 ms {x.mean():.2f} [{x.min():.2f}-{x.max():.2f}], 1 s {y.mean():.2f}"
            f" [{y.min():.2f}-{y.max():.2f}], n={len(d)}; 1 s - 200 ms {d.mean():+.2f}"
            f" [{d.mean() - half:+.2f}, {d.mean() + half:+.2f}] 95 %"
        )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: parris_rto.py QUICK_RESULTS RTO_1S_RESULTS")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
