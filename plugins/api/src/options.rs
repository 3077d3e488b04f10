//! [`Options`]: a plugin's `key=value` settings (`--plugin NAME:key=value`), with typed
//! getters whose errors name the plugin and key.

use std::str::FromStr;

/// The `key=value` settings of one plugin, in the order given. A key may repeat (`pattern`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    plugin: String,
    pairs: Vec<(String, String)>,
}

impl Options {
    /// Empty settings for the plugin `plugin` (used in error messages).
    pub fn new(plugin: impl Into<String>) -> Options {
        Options {
            plugin: plugin.into(),
            pairs: Vec::new(),
        }
    }

    /// Adds one setting.
    pub fn push(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.pairs.push((key.into(), value.into()));
    }

    /// Adds one setting (builder style).
    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Options {
        self.push(key, value);
        self
    }

    /// The plugin these settings are for.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }

    /// Every setting, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The last value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `key`, in order.
    pub fn get_all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The last value of `key` parsed as `T`, `default` when absent.
    ///
    /// # Errors
    /// A message naming the plugin, key and value when it does not parse.
    pub fn parse_or<T: FromStr>(&self, key: &str, default: T) -> Result<T, String> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.trim().parse().map_err(|_| {
                format!(
                    "plugin {}: `{key}={v}' is not a valid {}",
                    self.plugin,
                    short_type_name::<T>()
                )
            }),
        }
    }

    /// Fails on the first key not in `known` (catches typos such as `paterns=`).
    ///
    /// # Errors
    /// A message naming the unknown key and the keys this plugin takes.
    pub fn only(&self, known: &[&str]) -> Result<(), String> {
        match self
            .pairs
            .iter()
            .find(|(k, _)| !known.contains(&k.as_str()))
        {
            None => Ok(()),
            Some((k, _)) if known.is_empty() => Err(format!(
                "plugin {}: takes no settings, got `{k}'",
                self.plugin
            )),
            Some((k, _)) => Err(format!(
                "plugin {}: unknown setting `{k}' (known: {})",
                self.plugin,
                known.join(", ")
            )),
        }
    }
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_value_wins_and_all_values_are_kept() {
        let o = Options::new("regex")
            .with("pattern", "TODO")
            .with("pattern", "lorem")
            .with("days", "5");
        assert_eq!(o.get("pattern"), Some("lorem"));
        assert_eq!(o.get_all("pattern").collect::<Vec<_>>(), ["TODO", "lorem"]);
        assert_eq!(o.parse_or("days", 30u32), Ok(5));
        assert_eq!(o.parse_or("missing", 30u32), Ok(30));
    }

    #[test]
    fn bad_numbers_and_unknown_keys_are_named() {
        let o = Options::new("cert-expiry").with("days", "soon");
        let e = o.parse_or("days", 30u32).unwrap_err();
        assert!(e.contains("cert-expiry") && e.contains("days=soon"), "{e}");
        let e = o.only(&["warn-days"]).unwrap_err();
        assert!(
            e.contains("unknown setting `days'") && e.contains("warn-days"),
            "{e}"
        );
        assert!(
            Options::new("x")
                .with("a", "1")
                .only(&[])
                .unwrap_err()
                .contains("no settings")
        );
        assert!(o.only(&["days"]).is_ok());
    }
}
