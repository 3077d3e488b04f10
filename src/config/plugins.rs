//! The built-in plugins by name (`--plugin NAME:key=value`, `--list-plugins`); the engine side
//! that calls every configured plugin's hooks is `engine::plugin_host`.
//!
//! Each built-in plugin is its own crate under `plugins/`, depending only on the plugin API, and
//! is compiled in by its cargo feature (`plugin-anchors`, `plugin-regex`, …, all on by
//! default). A plugin does nothing unless configured: [`Config::plugin`](crate::Config::plugin)
//! adds one (a built-in from [`builtin`], or any type implementing [`Plugin`]).

use std::fmt;
use std::sync::Arc;

use linkpatrol_plugin_api::{Options, Plugin};

use crate::model::error::{Error, ErrorKind};

/// A built-in plugin's name and one line about what it does and its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PluginInfo {
    /// The name used by `--plugin NAME`.
    pub name: &'static str,
    /// What it does, and its settings.
    pub description: &'static str,
}

/// A built-in plugin: its description and how to make it from settings.
struct Builtin {
    info: PluginInfo,
    make: fn(&Options) -> Result<Arc<dyn Plugin>, String>,
}

/// Every plugin compiled into this build, in a fixed order.
fn registry() -> Vec<Builtin> {
    #[allow(unused_mut)]
    let mut all: Vec<Builtin> = Vec::new();
    #[cfg(feature = "plugin-anchors")]
    all.push(Builtin {
        info: PluginInfo {
            name: linkpatrol_plugin_anchors::NAME,
            description: linkpatrol_plugin_anchors::DESCRIPTION,
        },
        make: |o| {
            Ok(Arc::new(linkpatrol_plugin_anchors::Anchors::from_options(
                o,
            )?))
        },
    });
    #[cfg(feature = "plugin-regex")]
    all.push(Builtin {
        info: PluginInfo {
            name: linkpatrol_plugin_regex::NAME,
            description: linkpatrol_plugin_regex::DESCRIPTION,
        },
        make: |o| {
            Ok(Arc::new(linkpatrol_plugin_regex::RegexCheck::from_options(
                o,
            )?))
        },
    });
    #[cfg(feature = "plugin-cert-expiry")]
    all.push(Builtin {
        info: PluginInfo {
            name: linkpatrol_plugin_cert_expiry::NAME,
            description: linkpatrol_plugin_cert_expiry::DESCRIPTION,
        },
        make: |o| {
            Ok(Arc::new(
                linkpatrol_plugin_cert_expiry::CertExpiry::from_options(o)?,
            ))
        },
    });
    #[cfg(feature = "plugin-http-headers")]
    all.push(Builtin {
        info: PluginInfo {
            name: linkpatrol_plugin_http_headers::NAME,
            description: linkpatrol_plugin_http_headers::DESCRIPTION,
        },
        make: |o| {
            Ok(Arc::new(
                linkpatrol_plugin_http_headers::HttpHeaders::from_options(o)?,
            ))
        },
    });
    #[cfg(feature = "plugin-command")]
    all.push(Builtin {
        info: PluginInfo {
            name: linkpatrol_plugin_command::NAME,
            description: linkpatrol_plugin_command::DESCRIPTION,
        },
        make: |o| {
            Ok(Arc::new(linkpatrol_plugin_command::Command::from_options(
                o,
            )?))
        },
    });
    #[cfg(feature = "plugin-render-js")]
    all.push(Builtin {
        info: PluginInfo {
            name: linkpatrol_plugin_render_js::NAME,
            description: linkpatrol_plugin_render_js::DESCRIPTION,
        },
        make: |o| {
            Ok(Arc::new(
                linkpatrol_plugin_render_js::RenderJs::from_options(o)?,
            ))
        },
    });
    all
}

/// Kills what the built-in plugins run outside the process, now: `render-js`'s browsers. For a
/// program about to leave with [`std::process::exit`] (a second Ctrl-C), where no plugin's
/// [`finish`](Plugin::finish) or destructor would run; a run that ends normally needs it not.
pub fn release_builtins() {
    #[cfg(feature = "plugin-render-js")]
    linkpatrol_plugin_render_js::kill_browsers();
}

/// The built-in plugins compiled into this build (`--list-plugins`).
pub fn builtins() -> Vec<PluginInfo> {
    registry().into_iter().map(|b| b.info).collect()
}

/// Makes the built-in plugin `name` from its settings.
///
/// # Errors
/// [`ErrorKind::InvalidConfig`] for an unknown name (or one not compiled in) and for settings
/// the plugin refuses.
pub fn builtin(name: &str, options: &Options) -> Result<Arc<dyn Plugin>, Error> {
    let all = registry();
    let Some(b) = all.iter().find(|b| b.info.name == name) else {
        let names: Vec<&str> = all.iter().map(|b| b.info.name).collect();
        let known = if names.is_empty() {
            "none: this build has no plugins".to_owned()
        } else {
            names.join(", ")
        };
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            format!("unknown plugin `{name}' (available: {known})"),
        ));
    };
    (b.make)(options).map_err(|m| Error::new(ErrorKind::InvalidConfig, m))
}

/// The plugins of a [`Config`](crate::Config), in the order added (hooks run in that order).
#[derive(Clone, Default)]
pub(crate) struct PluginList(pub(crate) Vec<Arc<dyn Plugin>>, pub(crate) Vec<String>);

impl PluginList {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for PluginList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A built-in's settings show (`render-js:tabs=4`), so two configs that differ in them differ.
        f.debug_list()
            .entries(
                self.0
                    .iter()
                    .enumerate()
                    .map(|(i, p)| self.1.get(i).map_or(p.name(), String::as_str)),
            )
            .finish()
    }
}
