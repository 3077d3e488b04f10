//! The `http-headers` plugin: records chosen response headers in a result's info column.
//!
//! A header is recorded when its name starts with one of the configured prefixes (ASCII case
//! does not matter); by default `Server` and `X-`, as LinkChecker's HttpHeaderInfo does.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use linkpatrol_plugin_api::{Options, Plugin, Remark, ResponseView, Services};

/// The plugin's name.
pub const NAME: &str = "http-headers";
/// One line for `--list-plugins`.
pub const DESCRIPTION: &str = "record response headers in the info column; settings: \
                               prefix=NAME-PREFIX (repeatable; default Server and X-)";

/// The `http-headers` plugin: lower-case name prefixes.
#[derive(Debug)]
pub struct HttpHeaders {
    prefixes: Vec<String>,
}

impl HttpHeaders {
    /// The plugin from its settings: `prefix=` (repeatable).
    ///
    /// # Errors
    /// An unknown setting or an empty prefix.
    pub fn from_options(options: &Options) -> Result<HttpHeaders, String> {
        options.only(&["prefix"])?;
        let mut prefixes: Vec<String> = options
            .get_all("prefix")
            .map(|p| p.trim().to_ascii_lowercase())
            .collect();
        if prefixes.iter().any(String::is_empty) {
            return Err("plugin http-headers: prefix= must not be empty".into());
        }
        if prefixes.is_empty() {
            prefixes = vec!["server".into(), "x-".into()];
        }
        Ok(HttpHeaders { prefixes })
    }

    fn wanted(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }
}

impl Plugin for HttpHeaders {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_response(&self, response: &ResponseView<'_>, _: &dyn Services) -> Vec<Remark> {
        let chosen: Vec<String> = response
            .headers
            .iter()
            .filter(|(k, _)| self.wanted(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if chosen.is_empty() {
            return Vec::new();
        }
        vec![Remark::Info(format!("HTTP headers {}", chosen.join(", ")))]
    }
}

#[cfg(test)]
mod tests {
    use linkpatrol_plugin_api::Url;
    use linkpatrol_plugin_api::testing::FakeServices;

    use super::*;

    fn infos(plugin: &HttpHeaders, headers: &[(&str, &str)]) -> Vec<Remark> {
        let url = Url::parse("http://h.test/").unwrap();
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let view = ResponseView {
            url: &url,
            final_url: &url,
            status: Some(200),
            ok: true,
            headers: &headers,
            content_type: Some("text/html"),
            internal: true,
        };
        plugin.check_response(&view, &FakeServices::new())
    }

    #[test]
    fn default_prefixes_are_server_and_x() {
        let p = HttpHeaders::from_options(&Options::new(NAME)).unwrap();
        let r = infos(
            &p,
            &[
                ("server", "nginx"),
                ("content-type", "text/html"),
                ("x-frame-options", "DENY"),
            ],
        );
        assert_eq!(
            r,
            [Remark::Info(
                "HTTP headers server=nginx, x-frame-options=DENY".into()
            )]
        );
        assert!(infos(&p, &[("content-length", "3")]).is_empty());
    }

    #[test]
    fn chosen_prefixes_ignore_case() {
        let o = Options::new(NAME).with("prefix", "Cache-Control");
        let p = HttpHeaders::from_options(&o).unwrap();
        let r = infos(&p, &[("cache-control", "no-store"), ("server", "x")]);
        assert_eq!(
            r,
            [Remark::Info("HTTP headers cache-control=no-store".into())]
        );
        assert!(HttpHeaders::from_options(&Options::new(NAME).with("prefix", " ")).is_err());
    }
}
