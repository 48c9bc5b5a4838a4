"""Traffic generators for the AQM experiments, independent of any network (issue #13).

Web users after Mah's HTTP model (`traffic.web`), constant bit rate UDP (`traffic.cbr`:
the ProShare-like flows and, with their own rate and DSCP, unresponsive UDP blasts),
greedy bulk TCP (`traffic.bulk`) and the maths that turns a load into a number
of web users (`traffic.calibration`). Every generator runs as its own process, so the
same command works on loopback in a test and inside a Mininet host namespace.
"""
