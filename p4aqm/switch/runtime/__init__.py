"""The P4Runtime server of the p4aqm switch: gRPC service, arbitration and table state."""
