//! [`FakeServices`]: a stand-in for the engine in plugins' unit tests (no network, no files).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::{Page, Services, Url};

/// Serves the pages it was given and counts every fetch. Unknown URLs are a 404.
#[derive(Debug, Default)]
pub struct FakeServices {
    pages: HashMap<String, Arc<Page>>,
    certificates: HashMap<String, Arc<Vec<u8>>>,
    fetched: Mutex<Vec<String>>,
    cert_requests: AtomicUsize,
}

impl FakeServices {
    /// No pages.
    pub fn new() -> FakeServices {
        FakeServices::default()
    }

    /// Serves an HTML page at `url` with these anchors.
    pub fn html(self, url: &str, anchors: &[&str]) -> FakeServices {
        self.html_with_text(url, anchors, "")
    }

    /// Serves an HTML page at `url` with these anchors and this visible text (see
    /// [`Page::text`]: a block a line).
    pub fn html_with_text(mut self, url: &str, anchors: &[&str], text: &str) -> FakeServices {
        let page = Page {
            final_url: Url::parse(url).ok(),
            status: Some(200),
            ok: true,
            content_type: Some("text/html".into()),
            body: Vec::new(),
            anchors: anchors.iter().map(|a| (*a).to_owned()).collect(),
            text: text.to_owned(),
            error: None,
        };
        self.pages.insert(url.to_owned(), Arc::new(page));
        self
    }

    /// Presents `der` as the certificate of `url`'s host.
    pub fn certificate(mut self, url: &str, der: Vec<u8>) -> FakeServices {
        self.certificates.insert(url.to_owned(), Arc::new(der));
        self
    }

    /// The URLs fetched so far, in order.
    pub fn fetched(&self) -> Vec<String> {
        self.fetched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// How many certificates were asked for.
    pub fn certificate_requests(&self) -> usize {
        self.cert_requests.load(Ordering::SeqCst)
    }
}

impl Services for FakeServices {
    fn fetch(&self, url: &Url) -> Arc<Page> {
        self.fetched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(url.to_string());
        self.pages.get(url.as_str()).cloned().unwrap_or_else(|| {
            Arc::new(Page {
                status: Some(404),
                error: Some("404 Not Found".into()),
                ..Page::default()
            })
        })
    }

    fn peer_certificate(&self, url: &Url) -> Result<Arc<Vec<u8>>, String> {
        self.cert_requests.fetch_add(1, Ordering::SeqCst);
        self.certificates
            .get(url.as_str())
            .cloned()
            .ok_or_else(|| format!("no certificate for {url}"))
    }
}
