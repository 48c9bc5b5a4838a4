//! Header stacks: extract into the next element, `.last` in selects, pop.

use _dataplane::switch::Switch;
use serde_json::{json, Value};

fn program() -> Value {
    let ty = json!({"type": "field", "value": ["ethernet", "type"]});
    json!({
        "header_types": [
            {"name": "standard_metadata", "fields": [["ingress_port", 9, false], ["egress_spec", 9, false],
                                                     ["parser_error", 32, false]]},
            {"name": "ethernet_t", "fields": [["dst", 48, false], ["src", 48, false], ["type", 16, false]]},
            {"name": "vlan_t", "fields": [["tci", 16, false], ["type", 16, false]]}
        ],
        "headers": [
            {"name": "standard_metadata", "header_type": "standard_metadata", "metadata": true},
            {"name": "ethernet", "header_type": "ethernet_t", "metadata": false},
            {"name": "vlan[0]", "header_type": "vlan_t", "metadata": false},
            {"name": "vlan[1]", "header_type": "vlan_t", "metadata": false}
        ],
        "header_stacks": [{"name": "vlan", "id": 0, "header_type": "vlan_t", "size": 2, "header_ids": [2, 3]}],
        "errors": [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2], ["StackOutOfBounds", 3]],
        "parsers": [{"name": "parser", "init_state": "start", "parse_states": [
            {"name": "start",
             "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "ethernet"}]}],
             "transition_key": [ty],
             "transitions": [{"type": "hexstr", "value": "0x8100", "next_state": "parse_vlan"},
                             {"type": "default", "next_state": null}]},
            {"name": "parse_vlan",
             "parser_ops": [{"op": "extract", "parameters": [{"type": "stack", "value": "vlan"}]}],
             "transition_key": [{"type": "stack_field", "value": ["vlan", "type"]}],
             "transitions": [{"type": "hexstr", "value": "0x8100", "next_state": "parse_vlan"},
                             {"type": "default", "next_state": null}]}
        ]}],
        "deparsers": [{"name": "deparser", "order": ["ethernet", "vlan[0]", "vlan[1]"], "primitives": []}],
        "actions": [{"name": "pop_one", "id": 0, "runtime_data": [], "primitives": [
            {"op": "pop", "parameters": [{"type": "header_stack", "value": "vlan"}, {"type": "hexstr", "value": "0x1"}]},
            {"op": "assign", "parameters": [{"type": "field", "value": ["standard_metadata", "egress_spec"]},
                                            {"type": "hexstr", "value": "0x1"}]}
        ]}],
        "pipelines": [
            {"name": "ingress", "init_table": "t", "tables": [
                {"name": "t", "key": [], "actions": ["pop_one"], "action_ids": [0], "next_tables": {"pop_one": null},
                 "default_entry": {"action_id": 0, "action_const": true, "action_data": [], "action_entry_const": true}}
            ], "conditionals": []},
            {"name": "egress", "init_table": null, "tables": [], "conditionals": []}
        ]
    })
}

fn eth(tags: &[[u8; 4]], inner: [u8; 2]) -> Vec<u8> {
    let mut p = vec![0xaa; 12];
    p.extend_from_slice(if tags.is_empty() {
        &inner
    } else {
        &[0x81, 0x00]
    });
    for (i, t) in tags.iter().enumerate() {
        p.extend_from_slice(&t[..2]);
        p.extend_from_slice(if i + 1 < tags.len() {
            &[0x81, 0x00]
        } else {
            &inner
        });
    }
    p.extend_from_slice(b"payload");
    p
}

#[test]
fn pop_removes_the_outer_tag() {
    let sw = Switch::new(0);
    sw.add_memory_port(1).unwrap();
    sw.load_pipeline(program().to_string().as_bytes()).unwrap();
    sw.inject(0, &eth(&[[0, 10, 0, 0], [0, 20, 0, 0]], [0x08, 0x00]))
        .unwrap();
    let out = sw.take_output();
    // vlan[0] <- vlan[1] (tci 20, inner type); vlan[1] invalid. The ethernet
    // type still says 0x8100, which is right: one tag remains.
    let mut want = vec![0xaa; 12];
    want.extend_from_slice(&[0x81, 0x00, 0, 20, 0x08, 0x00]);
    want.extend_from_slice(b"payload");
    assert_eq!(out, vec![(1, want)]);
}

#[test]
fn too_many_tags_is_stack_out_of_bounds_not_a_crash() {
    let sw = Switch::new(0);
    sw.add_memory_port(1).unwrap();
    sw.load_pipeline(program().to_string().as_bytes()).unwrap();
    let three = eth(&[[0, 1, 0, 0], [0, 2, 0, 0], [0, 3, 0, 0]], [0x08, 0x00]);
    sw.inject(0, &three).unwrap();
    let out = sw.take_output();
    assert_eq!(out.len(), 1);
    // The third tag was not parsed, so it stays in the payload.
    let mut want = vec![0x81, 0x00, 0, 2, 0x81, 0x00, 0, 3, 0x08, 0x00];
    want.extend_from_slice(b"payload");
    assert_eq!(out[0].1[12..], want[..]);
}
