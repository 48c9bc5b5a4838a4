"""Human labels for swept values: "FIFO 120", "RED (30, 90)", "ARED (30, 90) ECN".

An AQM (a mapping with a `discipline`) is named as the papers name it: the queue and its
size for FIFO, the discipline and its (min_th, max_th) for the RED family, with ECN when
it marks. Where two swept AQMs would read alike (RED (30, 90) with two max_p), the
parameters in which they differ follow, as "max_p=0.05".
"""

from typing import Any

DISCIPLINES = {
    "droptail": "FIFO",
    "red": "RED",
    "ared": "ARED",
    "fred": "FRED",
    "cbt": "CBT",
    "cbq": "CBQ",
    "codel": "CoDel",
    "pie": "PIE",
}
# Shown in a label: these read as the papers write them; other parameters only when needed.
_THRESHOLDS = ("min_th", "max_th")


def _number(value: Any) -> str:  # noqa: ANN401 - a YAML scalar
    return f"{value:g}" if isinstance(value, float) else str(value)


def _base_label(aqm: dict[str, Any]) -> str:
    name = DISCIPLINES.get(str(aqm.get("discipline")), str(aqm.get("discipline")))
    if aqm.get("discipline") == "droptail":
        return f"{name} {aqm['limit_pkts']}" if "limit_pkts" in aqm else name
    if all(k in aqm for k in _THRESHOLDS):
        name += f" ({_number(aqm['min_th'])}, {_number(aqm['max_th'])})"
    return name + (" ECN" if aqm.get("ecn") else "")


def is_aqm(value: Any) -> bool:  # noqa: ANN401 - a sweep value is any YAML value
    return isinstance(value, dict) and "discipline" in value


def aqm_labels(aqms: list[dict[str, Any]]) -> list[str]:
    """Each AQM's label, unique among `aqms` wherever their settings differ."""
    base = [_base_label(a) for a in aqms]
    labels = list(base)
    for i, aqm in enumerate(aqms):
        alike = [other for j, other in enumerate(aqms) if base[j] == base[i] and other != aqm]
        if not alike:
            continue
        keys = sorted(
            k
            for k in aqm
            if k not in _THRESHOLDS and any(other.get(k) != aqm[k] for other in alike)
        )
        shown = [f"{k}={_number(aqm[k])}" for k in keys if not isinstance(aqm[k], list | dict)]
        labels[i] += " " + " ".join(shown) if shown else f" #{i + 1}"
    return labels
