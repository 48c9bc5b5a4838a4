"""Back ends: BMv2 JSON (`bmv2_json`) and P4Info (`p4info`) from a checked program."""
