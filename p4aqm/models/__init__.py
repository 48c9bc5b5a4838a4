"""Reference models of the AQM disciplines: the exact integer arithmetic of p4src/, in Python.

Each model is the oracle the P4 program is tested against, bit for bit, and the place
where the arithmetic is explained.
"""
