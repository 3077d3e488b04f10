//! Plugins on the command line and in the config file: `--plugin NAME[:key=value,…]`,
//! `[plugins.NAME]` sections, `--list-plugins`, and the library makes the plugins (`CheckOptions::to_config`).

use std::collections::BTreeMap;
use std::io::{self, Write};

use anyhow::{Result, bail};
use linkpatrol::options::Local;

use crate::sections::PLUGINS;

pub use linkpatrol::PluginSpec;

/// Specs as `--plugin` values again (one per setting, so each reads back as it was).
pub fn to_flags(specs: &[PluginSpec]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, pairs) in specs {
        if pairs.is_empty() {
            out.push(name.clone());
        }
        out.extend(pairs.iter().map(|(k, v)| format!("{name}:{k}={v}")));
    }
    out
}

/// The `[plugins.NAME]` sections of a config file as specs: `key = value` or `key = [values]`
/// (strings, numbers, booleans).
pub fn from_sections(
    sections: &BTreeMap<String, BTreeMap<String, toml::Value>>,
) -> Result<Vec<PluginSpec>> {
    let mut specs = Vec::new();
    for (name, table) in sections {
        let mut pairs = Vec::new();
        for (key, value) in table {
            let items = match value {
                toml::Value::Array(items) => items.clone(),
                one => vec![one.clone()],
            };
            for item in items {
                let text = match item {
                    toml::Value::String(s) => s,
                    toml::Value::Integer(n) => n.to_string(),
                    toml::Value::Float(x) => x.to_string(),
                    toml::Value::Boolean(b) => b.to_string(),
                    other => bail!(
                        "[{PLUGINS}.{name}] {key}: a {} is not a setting (use a string, number, \
                         boolean or a list of them)",
                        other.type_str()
                    ),
                };
                pairs.push((key.clone(), text));
            }
        }
        specs.push((name.clone(), pairs));
    }
    Ok(specs)
}

/// What a config found in the current folder may do with the plugin `name`, whether set by
/// `[plugins.NAME]` or `plugin = ["NAME…"]`; `None` for a name no build has (making it
/// fails). A test fails for a built-in plugin without one.
pub fn local(name: &str) -> Option<Local> {
    Some(match name {
        "command" => Local::refused(
            "runs a program of the file's choosing, with the user's rights, on every parsed page",
        ),
        "render-js" => Local::refused(
            "starts a browser that runs the sites' scripts (without its sandbox as root), and \
             `chromium=PATH` runs any program of the file's choosing",
        ),
        "anchors" => Local::allowed("reads the pages being checked"),
        "regex" => Local::allowed("reads the pages being checked").prints(),
        "cert-expiry" => Local::allowed("reads the certificates of the sites checked"),
        "http-headers" => Local::allowed("reads the responses of the sites checked").prints(),
        _ => return None,
    })
}

/// `--list-plugins`: each built-in plugin of this build, one per line.
pub fn list(out: &mut impl Write) -> io::Result<()> {
    let all = linkpatrol::plugins::builtins();
    if all.is_empty() {
        writeln!(
            out,
            "this build has no plugins (built without the plugin-* features)"
        )?;
    }
    for p in all {
        writeln!(out, "{:<14} {}", p.name, p.description)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use linkpatrol::parse_plugin_spec as parse_spec;

    fn spec(name: &str, pairs: &[(&str, &str)]) -> PluginSpec {
        (
            name.to_owned(),
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn specs_parse_with_and_without_settings() {
        assert_eq!(parse_spec("anchors"), Ok(spec("anchors", &[])));
        assert_eq!(
            parse_spec("command:program=sh,timeout=5"),
            Ok(spec("command", &[("program", "sh"), ("timeout", "5")]))
        );
        // A comma inside a value keeps the value whole.
        assert_eq!(
            parse_spec("regex:pattern=a{1,2}"),
            Ok(spec("regex", &[("pattern", "a{1,2}")]))
        );
        assert_eq!(
            parse_spec("regex:pattern=x=1"),
            Ok(spec("regex", &[("pattern", "x=1")]))
        );
        assert!(parse_spec(":x=1").is_err());
        assert!(parse_spec("regex:TODO").is_err());
        assert!(parse_spec("regex:=x").is_err());
    }

    #[test]
    fn flags_round_trip_and_sections_become_specs() {
        let specs = vec![
            spec("anchors", &[]),
            spec("regex", &[("pattern", "a"), ("pattern", "b")]),
        ];
        let flags = to_flags(&specs);
        assert_eq!(flags, ["anchors", "regex:pattern=a", "regex:pattern=b"]);
        let back: Vec<PluginSpec> = flags.iter().map(|f| parse_spec(f).unwrap()).collect();
        assert_eq!(back.len(), 3);

        let file: BTreeMap<String, BTreeMap<String, toml::Value>> = toml::from_str(
            "[anchors]\n[command]\nprogram = 'sh'\narg = ['-c', 'cat']\ntimeout = 2.5\n",
        )
        .unwrap();
        assert_eq!(
            from_sections(&file).unwrap(),
            [
                spec("anchors", &[]),
                spec(
                    "command",
                    &[
                        ("arg", "-c"),
                        ("arg", "cat"),
                        ("program", "sh"),
                        ("timeout", "2.5")
                    ]
                ),
            ]
        );
        let bad: BTreeMap<String, BTreeMap<String, toml::Value>> =
            toml::from_str("[regex]\npattern = { a = 1 }\n").unwrap();
        assert!(
            from_sections(&bad)
                .unwrap_err()
                .to_string()
                .contains("[plugins.regex] pattern")
        );
    }
}
