"""`p4aqm report RESULTS/`: a results folder (experiments/README.md) as figures, tables and
one self-contained index.html.

| module | what it does |
|---|---|
| `load.py` | reads a results folder into pandas frames cut to each point's measurement window |
| `grouping.py` | which points share a panel (load), a curve (configuration), a mean |
| `metrics.py` | the summary table, drops and marks by cause, UDP flows, repetition spread |
| `figures.py` | matplotlib figures, each saved as PNG and SVG with its data as CSV beside it |
| `html.py` | index.html: inline CSS, tables, the figures by relative path |
| `files.py` | atomic writes (temporary file, then rename) |
| `cli.py` | the command: `p4aqm report RESULTS/ [-o OUT/]` or `--compare A B` |
"""
