"""STF, p4c's Simple Test Framework: packets in, expected packets out, run on our switch."""
