"""Experiments: traffic (p4aqm/traffic/) run on topologies (p4aqm/topology/), measured and kept."""
