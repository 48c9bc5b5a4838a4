//! Checks on the untyped JSON, made before it is read into `Json`: the
//! format version, and ids unique per kind as BMv2 wants them.

use serde_json::Value;

use super::Result;

/// The format version this loader reads (JSON_format.md, "Current bmv2 JSON
/// format version"): BMv2 refuses another major version, and a minor
/// version newer than its own.
const JSON_VERSION: (i64, i64) = (2, 23);

/// `__meta__.version`, when present, is `[major, minor]` (JSON_format.md,
/// `__meta__`); a file without one is accepted, as BMv2 accepts it.
pub(super) fn check_version(meta: Option<&Value>) -> Result<()> {
    let Some(version) = meta.and_then(|m| m.get("version")) else {
        return Ok(());
    };
    let pair = version
        .as_array()
        .filter(|a| a.len() == 2)
        .and_then(|a| Some((a[0].as_i64()?, a[1].as_i64()?)))
        .ok_or_else(|| {
            format!("__meta__: 'version' must be [major, minor], two integers, got {version}")
        })?;
    let (major, minor) = JSON_VERSION;
    if pair.0 != major {
        return Err(format!(
            "__meta__: BMv2 JSON major version {major} is required, this file has {}",
            pair.0
        ));
    }
    if pair.1 > minor {
        return Err(format!(
            "__meta__: the most recent BMv2 JSON version supported is {major}.{minor}, \
             this file has {}.{}",
            pair.0, pair.1
        ));
    }
    Ok(())
}

/// BMv2 refuses two objects of one kind with the same id ("Several objects of
/// type 'X' have the same id N"); ids are otherwise unused here. Tables,
/// conditionals and action profiles are checked per pipeline, parse states
/// per parser, as BMv2 checks them (JSON_format.md asks more: table,
/// conditional, action profile and parse state ids unique in the file).
pub(super) fn check_ids(obj: &serde_json::Map<String, Value>) -> Result<()> {
    fn unique(items: Option<&Value>, kind: &str) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for id in items
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| o.get("id").and_then(Value::as_i64))
        {
            if !seen.insert(id) {
                return Err(format!(
                    "several objects of type '{kind}' have the same id {id}"
                ));
            }
        }
        Ok(())
    }
    for (key, kind) in [
        ("header_types", "header type"),
        ("headers", "header"),
        ("header_stacks", "header stack"),
        ("header_unions", "header union"),
        ("header_union_stacks", "header union stack"),
        ("parsers", "parser"),
        ("parse_vsets", "parser vset"),
        ("deparsers", "deparser"),
        ("calculations", "calculation"),
        ("counter_arrays", "counter"),
        ("meter_arrays", "meter"),
        ("register_arrays", "register"),
        ("actions", "action"),
        ("pipelines", "pipeline"),
        ("checksums", "checksum"),
        ("learn_lists", "learn list"),
        ("field_lists", "field list"),
        ("extern_instances", "extern"),
    ] {
        unique(obj.get(key), kind)?;
    }
    for p in obj
        .get("pipelines")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        unique(p.get("tables"), "table")?;
        unique(p.get("conditionals"), "condition")?;
        unique(p.get("action_profiles"), "action profile")?;
    }
    for p in obj
        .get("parsers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        unique(p.get("parse_states"), "parse state")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_must_be_2_and_at_most_23() {
        assert!(check_version(None).is_ok());
        assert!(check_version(Some(&serde_json::json!({"compiler": "x"}))).is_ok());
        assert!(check_version(Some(&serde_json::json!({"version": [2, 23]}))).is_ok());
        assert!(check_version(Some(&serde_json::json!({"version": [2, 7]}))).is_ok());
        let newer = check_version(Some(&serde_json::json!({"version": [2, 24]})));
        assert!(newer
            .unwrap_err()
            .contains("most recent BMv2 JSON version supported is 2.23"));
        let major = check_version(Some(&serde_json::json!({"version": [3, 0]})));
        assert!(major.unwrap_err().contains("major version 2 is required"));
        let shape = check_version(Some(&serde_json::json!({"version": "2.23"})));
        assert!(shape.unwrap_err().contains("[major, minor]"));
    }

    #[test]
    fn ids_are_unique_per_kind_as_bmv2_checks_them() {
        let ok = serde_json::json!({
            "actions": [{"id": 0}, {"id": 1}],
            "pipelines": [{"id": 0, "tables": [{"id": 0}], "conditionals": [{"id": 0}]},
                          {"id": 1, "tables": [{"id": 1}], "conditionals": [{"id": 0}]}]
        });
        assert!(check_ids(ok.as_object().unwrap()).is_ok());
        let actions = serde_json::json!({"actions": [{"id": 3}, {"id": 3}]});
        assert_eq!(
            check_ids(actions.as_object().unwrap()),
            Err("several objects of type 'action' have the same id 3".to_owned())
        );
        let tables =
            serde_json::json!({"pipelines": [{"id": 0, "tables": [{"id": 2}, {"id": 2}]}]});
        assert!(check_ids(tables.as_object().unwrap())
            .unwrap_err()
            .contains("'table' have the same id 2"));
        let states =
            serde_json::json!({"parsers": [{"id": 0, "parse_states": [{"id": 1}, {"id": 1}]}]});
        assert!(check_ids(states.as_object().unwrap())
            .unwrap_err()
            .contains("'parse state' have the same id 1"));
    }
}
