//! A fake [`Fetch`] for the engine's tests: canned answers per URL, no sockets. It follows
//! redirects the way the HTTP fetcher does (each hop offered to the engine's `claim`), counts
//! every request, and can hold a page back or hang until the run is cancelled.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use parking_lot::{Condvar, Mutex};
use url::Url;

use crate::fetch::{Chain, Fetch, Fetched};
use crate::model::cancel::CancelHandle;
use crate::model::outcome::{FailKind, Hop, Outcome};
use crate::policy::url_norm::cache_key;

/// What the fake answers for one URL.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// A page: its status and HTML body.
    Page(u16, String),
    /// A redirect with this status to this (relative) location.
    Redirect(u16, String),
    /// No answer until the run is cancelled.
    Hang,
}

/// Canned answers by URL (a URL not listed answers 404).
#[derive(Debug, Default)]
pub(crate) struct FakeFetch {
    answers: HashMap<String, Answer>,
    /// Requests made, per URL.
    requests: Mutex<HashMap<String, usize>>,
    /// A page whose fetch waits until some redirect chain reached it (see [`Self::hold`]).
    held: Option<String>,
    released: Mutex<bool>,
    release: Condvar,
    /// Watched by `Hang` answers.
    cancel: Option<CancelHandle>,
    /// Told the URL of each `Hang` answer as it starts.
    hanging: Option<Sender<String>>,
}

impl FakeFetch {
    /// A fake answering each `(url, answer)`.
    pub(crate) fn new(answers: impl IntoIterator<Item = (String, Answer)>) -> Self {
        FakeFetch {
            answers: answers.into_iter().collect(),
            ..FakeFetch::default()
        }
    }

    /// Holds the fetch of page `url` until a redirect chain has offered `url` to the engine's
    /// `claim`: the page is then certainly still unfinished when that chain reaches it.
    pub(crate) fn hold(mut self, url: &str) -> Self {
        self.held = Some(url.to_owned());
        self
    }

    /// `Hang` answers return when `cancel` trips; each tells `started` its URL first.
    pub(crate) fn hang_until(mut self, cancel: CancelHandle, started: Sender<String>) -> Self {
        self.cancel = Some(cancel);
        self.hanging = Some(started);
        self
    }

    /// Requests made to `url` so far.
    pub(crate) fn requests(&self, url: &str) -> usize {
        self.requests.lock().get(url).copied().unwrap_or(0)
    }

    fn count(&self, url: &Url) {
        *self.requests.lock().entry(url.to_string()).or_default() += 1;
    }

    fn released(&self) {
        *self.released.lock() = true;
        self.release.notify_all();
    }

    fn wait_if_held(&self, url: &Url) {
        if self.held.as_deref() == Some(url.as_str()) {
            let mut released = self.released.lock();
            while !*released {
                self.release.wait(&mut released);
            }
        }
    }
}

impl Fetch for FakeFetch {
    fn fetch(&self, url: &Url, want_body: bool, chain: Chain<'_>) -> Fetched {
        let mut current = url.clone();
        let mut hops = Vec::new();
        let mut owned = Vec::new();
        loop {
            self.count(&current);
            let mut f = match self.answers.get(current.as_str()) {
                None => Fetched::bare(&current, Outcome::Broken { status: 404 }),
                Some(Answer::Redirect(status, to)) => {
                    let next = current.join(to).expect("a valid location");
                    hops.push(Hop {
                        url: current.clone(),
                        status: *status,
                    });
                    let mine = (chain.claim)(&next, chain.before + hops.len());
                    if self.held.as_deref() == Some(next.as_str()) {
                        self.released();
                    }
                    if mine {
                        owned.push((cache_key(&next), hops.len()));
                        current = next;
                        continue;
                    }
                    let mut f = Fetched::bare(&next, Outcome::Ok { status: None });
                    f.stopped_at = Some(cache_key(&next));
                    f
                }
                Some(Answer::Page(status, body)) => {
                    self.wait_if_held(&current);
                    let outcome = if *status >= 400 {
                        Outcome::Broken { status: *status }
                    } else {
                        Outcome::Ok {
                            status: Some(*status),
                        }
                    };
                    let mut f = Fetched::bare(&current, outcome);
                    f.content_type = Some("text/html".into());
                    f.size = Some(body.len() as u64);
                    if want_body && *status < 300 {
                        f.body = Some(body.as_bytes().to_vec());
                    }
                    f
                }
                Some(Answer::Hang) => {
                    if let Some(tx) = &self.hanging {
                        let _ = tx.send(current.to_string());
                    }
                    let cancel = self.cancel.as_ref().expect("hang_until for Hang answers");
                    // Bounded: a test that forgets to cancel fails instead of hanging.
                    cancel.sleep_until(Instant::now() + Duration::from_secs(60));
                    Fetched::failed(&current, FailKind::Interrupted, "the run was cancelled")
                }
            };
            f.redirects = hops;
            f.owned = owned;
            return f;
        }
    }

    fn fetch_robots(&self, _url: &Url) -> Option<Vec<u8>> {
        None
    }

    fn interrupt(&self) {}
}
