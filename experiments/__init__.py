"""Experiments: traffic (traffic/) run on topologies (topologies/), measured and kept."""
