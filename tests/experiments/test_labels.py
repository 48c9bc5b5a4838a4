"""Human labels for swept AQMs, as the papers name them, unique where settings differ."""

from p4aqm.report.labels import aqm_labels

FIFO_120 = {"discipline": "droptail", "limit_pkts": 120}
RED_30_90 = {"discipline": "red", "min_th": 30, "max_th": 90, "w_q": 0.001953125, "max_p": 0.1}


def test_aqms_read_as_the_papers_name_them() -> None:
    ared_ecn = {"discipline": "ared", "min_th": 30, "max_th": 90, "ecn": True}
    fred = {"discipline": "fred", "min_th": 5.5, "max_th": 15}
    assert aqm_labels([FIFO_120, RED_30_90, ared_ecn, fred]) == [
        "FIFO 120",
        "RED (30, 90)",
        "ARED (30, 90) ECN",
        "FRED (5.5, 15)",
    ]


def test_aqms_that_would_read_alike_show_what_differs() -> None:
    other = RED_30_90 | {"max_p": 0.05}
    assert aqm_labels([RED_30_90, other, FIFO_120]) == [
        "RED (30, 90) max_p=0.1",
        "RED (30, 90) max_p=0.05",
        "FIFO 120",
    ]
    rules_a = RED_30_90 | {"discipline": "cbt", "classes": [{"dscp": 34}]}
    rules_b = RED_30_90 | {"discipline": "cbt", "classes": [{"dscp": 46}]}
    labels = aqm_labels([rules_a, rules_b])
    assert labels[0] != labels[1] and all(label.startswith("CBT (30, 90)") for label in labels)
