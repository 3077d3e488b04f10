//! Reading a response: status classes, headers, the `Location`, bounded body reads, and
//! failures mapped to a [`FailKind`].

use std::io::Read;

use ureq::http::header::LOCATION;
use ureq::http::{Response, Uri};
use ureq::{Body, Proxy, ProxyProtocol};
use url::Url;

use crate::extract::sniff::{SNIFF_LEN, sniff};
use crate::model::outcome::{FailKind, Outcome, Warning};
use crate::policy::login_page::is_login_page;

/// Bytes of a body we are not going to parse that are still read to keep the connection.
const DRAIN_LIMIT: u64 = 64 * 1024;

/// The `charset` parameter of a Content-Type value.
pub(super) fn charset_param(ct: &str) -> Option<String> {
    ct.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_owned())
    })
}

pub(super) fn redirected(to: &Url) -> Warning {
    Warning {
        tag: "http-redirected",
        message: format!("Redirected to `{to}'."),
    }
}

/// `login-redirect`, when a redirect chain from `from` ends on a login page at `to` (and `from`
/// is not one itself): the target exists but needs a login, it did not move.
pub(super) fn login_redirect(from: &Url, to: &Url) -> Option<Warning> {
    (is_login_page(to) && !is_login_page(from)).then(|| Warning {
        tag: "login-redirect",
        message: format!("The redirect ends on a login page `{to}': the target needs a login."),
    })
}

/// The politeness key of a URL: `host:port`.
pub(crate) fn host_key(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// Statuses after which a HEAD is asked again as GET before the link is called broken: every
/// error status, because servers answer HEAD wrongly in every way (405 and 501 for a method
/// they do not implement, 403 or 400 from one that refuses it, 500 from one that crashes on it,
/// and 404 from CDNs and app servers that route only GET). A link whose HEAD succeeds costs one
/// request; only a link that looks broken may cost one more. Not for 429: the host asked us to
/// slow down, and it is retried inside the URL's budget already. A 502/503/504 is retried as
/// GET inside the budget too; it gets here with HEAD only when no retry was left (or the server
/// asked for a wait longer than allowed), and is then confirmed once. A HEAD that got no
/// answer is confirmed too, see [`head_failed`].
pub(super) fn head_refused(status: u16) -> bool {
    status >= 400 && status != 429
}

/// Failures of a HEAD after which it is asked again as GET, once, before any verdict: the
/// server took the connection and then failed the request — reset or dropped it, answered
/// nothing or garbage, or never answered in time — which servers that mishandle HEAD do while
/// they serve GET. Not a failure to reach the host (DNS, refused connection, TLS): a GET would
/// fail the same way.
pub(super) fn head_failed(kind: FailKind) -> bool {
    matches!(kind, FailKind::Timeout | FailKind::Io | FailKind::Protocol)
}

/// The bot protection that answered instead of the page, named from the status and headers
/// it is known by, or `None`. Conservative: only answers that name their protection, whatever
/// else a 403 may mean, count (a plain 403 stays broken), and only with the statuses their
/// denials come with (a 404 or a 200 that passed through the same protection is the site's).
/// The markers are the vendors' documented or widely reported ones (the headers WAF
/// fingerprinting tools such as wafw00f match): Cloudflare's `cf-mitigated: challenge`
/// (documented), Vercel's `x-vercel-mitigated`, AWS WAF's `x-amzn-waf-action`, DataDome's
/// `x-datadome`/`x-dd-b`, Akamai's edge `Server: AkamaiGHost` (its "Access Denied …
/// Reference #" page), Imperva's `x-iinfo`, Sucuri's `x-sucuri-id`/`x-sucuri-block`, and
/// PerimeterX's `_px` cookies.
pub(super) fn bot_wall(url: &Url, status: u16, res: &Response<Body>) -> Option<&'static str> {
    let value = |name: &str| header(res, name).map(|v| v.trim().to_ascii_lowercase());
    let has = |name: &str| res.headers().contains_key(name);
    let host = url.host_str().unwrap_or("");
    if status == 999 {
        let linkedin = host == "linkedin.com" || host.ends_with(".linkedin.com");
        return Some(if linkedin {
            "LinkedIn bot denial, status 999"
        } else {
            "non-standard status 999, LinkedIn's bot denial"
        });
    }
    if matches!(status, 403 | 429 | 503) && value("cf-mitigated").as_deref() == Some("challenge") {
        return Some("Cloudflare bot challenge");
    }
    if matches!(status, 202 | 403 | 405)
        && value("x-amzn-waf-action")
            .is_some_and(|a| matches!(a.as_str(), "challenge" | "captcha" | "block"))
    {
        return Some("AWS WAF bot control");
    }
    if status == 403 && (value("x-datadome").is_some() || value("x-dd-b").is_some()) {
        return Some("DataDome bot protection");
    }
    if matches!(status, 403 | 429)
        && value("x-vercel-mitigated").is_some_and(|a| matches!(a.as_str(), "challenge" | "deny"))
    {
        return Some("Vercel firewall challenge");
    }
    if status != 403 {
        return None;
    }
    if value("server").as_deref() == Some("akamaighost") {
        return Some("Akamai access denial");
    }
    if has("x-iinfo") {
        return Some("Imperva (Incapsula) bot protection");
    }
    if has("x-sucuri-block") || has("x-sucuri-id") {
        return Some("Sucuri website firewall");
    }
    if sets_cookie(res, "_px") {
        return Some("PerimeterX (HUMAN) bot protection");
    }
    None
}

/// `true` when the response sets a cookie whose name starts with `prefix`.
fn sets_cookie(res: &Response<Body>, prefix: &str) -> bool {
    res.headers()
        .get_all(ureq::http::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|c| c.trim_start().starts_with(prefix))
}

/// The outcome of a final answer: `Blocked` when bot protection answered instead of the page
/// (with a `blocked` warning, so every format that lists warnings shows it), else by status.
pub(super) fn final_outcome(
    url: &Url,
    status: u16,
    res: &Response<Body>,
    warnings: &mut Vec<Warning>,
) -> Outcome {
    let Some(reason) = bot_wall(url, status, res) else {
        return status_outcome(status);
    };
    warnings.push(Warning {
        tag: "blocked",
        message: format!(
            "{reason} ({}) answered instead of the page: a browser may pass it, the link \
             could not be verified",
            status_text(status)
        ),
    });
    Outcome::Blocked {
        status,
        reason: reason.to_owned(),
    }
}

pub(super) fn status_outcome(status: u16) -> Outcome {
    if status >= 400 {
        Outcome::Broken { status }
    } else {
        Outcome::Ok {
            status: Some(status),
        }
    }
}

/// Statuses that only make sense with a `Location` to go to (300 Multiple Choices and
/// 304 Not Modified need none).
pub(super) fn must_locate(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// `301 Moved Permanently`.
pub(super) fn status_text(status: u16) -> String {
    let reason = ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason());
    format!("{status} {}", reason.unwrap_or(""))
        .trim_end()
        .to_owned()
}

/// The `Location` header, read as bytes: servers send raw UTF-8 (and sometimes Latin-1)
/// although the field should be ASCII. Valid UTF-8 is kept (joining it to the URL
/// percent-encodes it, and a non-ASCII host goes through IDNA); any other byte above 0x7F is
/// percent-encoded as is. `None` when the header is missing or blank.
pub(super) fn location(res: &Response<Body>) -> Option<String> {
    location_text(res.headers().get(LOCATION)?.as_bytes())
}

/// See [`location`].
pub(super) fn location_text(raw: &[u8]) -> Option<String> {
    let text = match std::str::from_utf8(raw) {
        Ok(s) => s.to_owned(),
        Err(_) => raw
            .iter()
            .map(|&b| {
                if b.is_ascii() {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect(),
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

pub(super) fn header(res: &Response<Body>, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// `true` when the response says `X-Content-Type-Options: nosniff`: a body without a type is
/// then not sniffed as HTML, XML or PDF (the MIME Sniffing standard's "sniff-scriptable" flag).
pub(super) fn no_sniff(res: &Response<Body>) -> bool {
    header(res, "x-content-type-options").is_some_and(|v| {
        let first = v.split(',').next().unwrap_or("");
        first.trim().eq_ignore_ascii_case("nosniff")
    })
}

/// Every header of a response whose value is text, names lower-case, in the order sent.
pub(super) fn all_headers(res: &Response<Body>) -> Vec<(String, String)> {
    res.headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// `text/HTML; charset=utf-8` → `text/html`.
pub(super) fn media_type(ct: &str) -> String {
    ct.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The most memory a body's announced length reserves before any of it arrived.
const MAX_RESERVE: u64 = 1024 * 1024;

/// What an unannounced body's buffer starts at; it doubles as it fills.
const FIRST_CHUNK: usize = 16 * 1024;

/// Reads up to `cap` bytes. Returns the bytes and whether the body was longer.
///
/// `announced` (the Content-Length) sizes the buffer up front, up to [`MAX_RESERVE`], one
/// byte more so that the read which finds the end needs no room of its own. The buffer is
/// zeroed once and read into directly: `read_to_end` from empty cost a small page a dozen
/// reads, each growing and zeroing the buffer again (callgrind: 17,000 instructions a page).
pub(super) fn read_capped(
    body: &mut Body,
    cap: u64,
    announced: Option<u64>,
) -> std::io::Result<(Vec<u8>, bool)> {
    read_on(&mut body.as_reader(), Vec::new(), cap, announced)
}

/// What [`read_sniffed`] found.
pub(super) enum Sniffed {
    /// The body looks like this media type: its bytes up to the cap, and whether it was longer.
    Read(&'static str, Vec<u8>, bool),
    /// Nothing we read: the rest of the body was drained.
    Not,
}

/// Reads the first bytes of a body sent without a usable type (see `extract::sniff`) and, when
/// they look like a type we read, the rest of it up to `cap` as [`read_capped`] does: a body
/// of another kind costs its first 1445 bytes, not `cap`. One reader throughout, so a
/// compressed body is decoded once.
pub(super) fn read_sniffed(
    body: &mut Body,
    cap: u64,
    announced: Option<u64>,
    scriptable: bool,
) -> std::io::Result<Sniffed> {
    let mut reader = body.as_reader();
    let limit = usize::try_from(cap.saturating_add(1)).unwrap_or(usize::MAX);
    let mut head = vec![0; SNIFF_LEN.min(limit)];
    let mut filled = 0;
    while filled < head.len() {
        match reader.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(filled);
    let Some(media_type) = sniff(&head, scriptable) else {
        drain_reader(&mut reader);
        return Ok(Sniffed::Not);
    };
    let (bytes, truncated) = read_on(&mut reader, head, cap, announced)?;
    Ok(Sniffed::Read(media_type, bytes, truncated))
}

/// [`read_capped`] from `reader`, after the `buf` already read from it.
fn read_on(
    reader: &mut impl Read,
    mut buf: Vec<u8>,
    cap: u64,
    announced: Option<u64>,
) -> std::io::Result<(Vec<u8>, bool)> {
    let limit = usize::try_from(cap.saturating_add(1)).unwrap_or(usize::MAX);
    let first = announced.map_or(FIRST_CHUNK as u64, |n| n.min(MAX_RESERVE) + 1);
    let mut filled = buf.len();
    let size = usize::try_from(first).unwrap_or(FIRST_CHUNK).min(limit);
    buf.resize(size.max(filled), 0);
    loop {
        if filled == buf.len() {
            if filled == limit {
                break;
            }
            let grown = buf.len().saturating_mul(2).max(FIRST_CHUNK).min(limit);
            buf.resize(grown, 0);
        }
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    let truncated = buf.len() as u64 > cap;
    buf.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
    Ok((buf, truncated))
}

/// Reads and discards a small body so the connection can be reused; gives up on a large one
/// (the connection is then closed when the response drops). Through a small buffer:
/// `io::copy` zeroed its 8 KiB one for every response, most of them the empty body of a
/// `304` (7,000 instructions each, 4% of a second run of a site with a state file).
pub(super) fn drain(body: &mut Body) {
    drain_reader(&mut body.as_reader());
}

/// [`drain`] from a reader already open on the body.
fn drain_reader(reader: &mut impl Read) {
    let mut buf = [0; 1024];
    let mut left = DRAIN_LIMIT;
    while left > 0 {
        let room = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        match reader.read(&mut buf[..room]) {
            Ok(0) => break,
            Ok(n) => left = left.saturating_sub(n as u64),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

/// `true` when the connection was lost before a response arrived: the server closed or reset
/// it (what a kept-alive connection closed at the moment of its reuse looks like).
pub(super) fn lost_before_response(e: &ureq::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(e, ureq::Error::Io(io) if matches!(
        io.kind(),
        K::UnexpectedEof | K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe
    ))
}

/// Maps a ureq error to a failure class and message.
pub(super) fn classify(e: &ureq::Error) -> (FailKind, String) {
    let kind = match e {
        // ureq's text is `timeout: receive response`; the kind already says `timeout`, so the
        // message is the phase that ran out of time.
        ureq::Error::Timeout(phase) => return (FailKind::Timeout, phase.to_string()),
        ureq::Error::Io(io) => return classify_io(io),
        ureq::Error::HostNotFound => FailKind::Dns,
        ureq::Error::ConnectionFailed => FailKind::Connect,
        ureq::Error::BadUri(_) => FailKind::InvalidUrl,
        ureq::Error::Protocol(_) => FailKind::Protocol,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => FailKind::Tls,
        _ => {
            let s = e.to_string();
            if s.contains("tls") || s.contains("certificate") {
                FailKind::Tls
            } else {
                FailKind::Io
            }
        }
    };
    (kind, e.to_string())
}

/// The message of a failure to reach `proxy` on the way to `url`, naming the proxy (its
/// credentials masked): `connect to proxy http://127.0.0.1:3128: Connection refused`. Through a
/// `CONNECT` proxy the only connection we open is the one to the proxy, so a refused connection
/// is the proxy's, and so is a failed lookup unless the proxy resolves targets locally. Other
/// failures, and URLs the proxy's `NO_PROXY` list sends direct, keep `message`.
pub(super) fn proxy_failure(
    proxy: Option<&Proxy>,
    url: &Url,
    kind: FailKind,
    message: String,
) -> String {
    let Some(proxy) = proxy else {
        return message;
    };
    let direct = url
        .as_str()
        .parse::<Uri>()
        .is_ok_and(|uri| proxy.is_no_proxy(&uri));
    let at_proxy = match kind {
        FailKind::Connect => true,
        FailKind::Dns => !proxy.resolve_target(),
        _ => false,
    };
    if direct || !at_proxy {
        return message;
    }
    let scheme = match proxy.protocol() {
        ProxyProtocol::Https => "https",
        _ => "http",
    };
    let credentials = if proxy.username().is_some() {
        "***@"
    } else {
        ""
    };
    format!(
        "connect to proxy {scheme}://{credentials}{}:{}: {message}",
        proxy.host(),
        proxy.port()
    )
}

/// Maps an I/O error to a failure class and message. ureq's rustls connector hands a failed
/// handshake back as an I/O error wrapping the `rustls::Error` (a bad certificate reads
/// `invalid peer certificate: UnknownIssuer`): that is `tls`, whatever its I/O kind.
pub(super) fn classify_io(e: &std::io::Error) -> (FailKind, String) {
    use std::io::ErrorKind as K;
    let msg = e.to_string();
    if wraps_rustls(e) {
        return (FailKind::Tls, msg);
    }
    let kind = match e.kind() {
        K::TimedOut | K::WouldBlock => FailKind::Timeout,
        K::ConnectionRefused => FailKind::Connect,
        _ if msg.contains("lookup address") || msg.contains("Name or service") => FailKind::Dns,
        _ if msg.contains("timeout") => FailKind::Timeout,
        _ => FailKind::Io,
    };
    (kind, msg)
}

/// `true` when a `rustls::Error` is somewhere in the chain of `e`'s sources.
fn wraps_rustls(e: &std::io::Error) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = e.get_ref().map(|inner| inner as _);
    while let Some(err) = next {
        if err.is::<rustls::Error>() {
            return true;
        }
        next = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use std::io;

    use rustls::CertificateError;

    use super::*;

    #[test]
    fn handshake_failures_are_tls() {
        let bad_cert = || rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer);
        let io = io::Error::new(io::ErrorKind::InvalidData, bad_cert());
        assert_eq!(classify(&ureq::Error::Io(io)).0, FailKind::Tls);
        assert_eq!(classify(&ureq::Error::Rustls(bad_cert())).0, FailKind::Tls);
        let reset = io::Error::new(io::ErrorKind::ConnectionReset, "reset by peer");
        assert_eq!(classify(&ureq::Error::Io(reset)).0, FailKind::Io);
    }

    #[test]
    fn a_timeout_says_timeout_once() {
        let (kind, message) = classify(&ureq::Error::Timeout(ureq::Timeout::RecvResponse));
        let outcome = Outcome::Failed { kind, message };
        assert_eq!(outcome.to_string(), "timeout: receive response");
    }

    #[test]
    fn location_bytes_become_a_joinable_string() {
        let base = Url::parse("http://h.test/a/").unwrap();
        let join = |raw: &[u8]| base.join(&location_text(raw).unwrap()).unwrap().to_string();
        assert_eq!(join("/café".as_bytes()), "http://h.test/caf%C3%A9");
        assert_eq!(join(b"/caf\xe9?q=\xe9"), "http://h.test/caf%E9?q=%E9");
        assert_eq!(join(" next ".as_bytes()), "http://h.test/a/next");
        assert_eq!(
            join("http://bücher.test/x".as_bytes()),
            "http://xn--bcher-kva.test/x"
        );
        assert_eq!(location_text(b""), None);
        assert_eq!(location_text(b"  "), None);
    }

    #[test]
    fn a_failure_to_reach_the_proxy_names_it_without_its_password() {
        let url = Url::parse("http://site.test/x").unwrap();
        let proxy = Proxy::new("http://u:s3cret@127.0.0.1:9").unwrap();
        let refused = || "Connection refused".to_owned();
        assert_eq!(
            proxy_failure(Some(&proxy), &url, FailKind::Connect, refused()),
            "connect to proxy http://***@127.0.0.1:9: Connection refused"
        );
        let plain = Proxy::new("127.0.0.1:3128").unwrap();
        assert_eq!(
            proxy_failure(Some(&plain), &url, FailKind::Dns, "not found".into()),
            "connect to proxy http://127.0.0.1:3128: not found"
        );
        // a failure past the proxy, or with no proxy, keeps its message
        let tls = proxy_failure(Some(&proxy), &url, FailKind::Tls, "bad cert".into());
        assert_eq!(tls, "bad cert");
        assert_eq!(
            proxy_failure(None, &url, FailKind::Connect, refused()),
            refused()
        );
    }

    #[test]
    fn a_failing_head_is_confirmed_with_a_get_except_after_429() {
        for refused in [
            400, 401, 403, 404, 405, 406, 410, 414, 500, 501, 502, 503, 999,
        ] {
            assert!(head_refused(refused), "{refused}");
        }
        for same in [200, 204, 301, 304, 429] {
            assert!(!head_refused(same), "{same}");
        }
    }

    #[test]
    fn a_body_is_read_whole_or_cut_at_the_cap_whatever_its_announced_length() {
        let page: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        let read = |cap: u64, announced: Option<u64>| {
            let mut body = Body::builder().data(page.clone());
            read_capped(&mut body, cap, announced).unwrap()
        };
        let len = page.len() as u64;
        // Announced right, too short, too long, not at all: the same bytes.
        for announced in [Some(len), Some(10), Some(len * 100), None] {
            assert_eq!(
                read(1 << 20, announced),
                (page.clone(), false),
                "{announced:?}"
            );
        }
        // Longer than the cap: cut there and said so, however the length was announced.
        for announced in [Some(len), Some(100), None] {
            let (bytes, truncated) = read(1_000, announced);
            assert_eq!(bytes, page[..1_000], "{announced:?}");
            assert!(truncated);
        }
        assert_eq!(read(len, Some(len)), (page.clone(), false));
        assert_eq!(read(0, Some(len)), (Vec::new(), true));
        let mut empty = Body::builder().data(Vec::new());
        assert_eq!(
            read_capped(&mut empty, 10, Some(0)).unwrap(),
            (Vec::new(), false)
        );
    }

    #[test]
    fn an_untyped_body_is_read_past_its_head_only_when_it_sniffs_as_one_we_read() {
        let sniffed = |bytes: &[u8], cap: u64, scriptable: bool| {
            let mut body = Body::builder().data(bytes.to_vec());
            match read_sniffed(&mut body, cap, None, scriptable).unwrap() {
                Sniffed::Read(media_type, body, truncated) => Some((media_type, body, truncated)),
                Sniffed::Not => None,
            }
        };
        let page = format!("<!DOCTYPE html>{}", "<p>x</p>".repeat(1000)).into_bytes();
        assert_eq!(
            sniffed(&page, 1 << 20, true),
            Some(("text/html", page.clone(), false))
        );
        let (_, cut, truncated) = sniffed(&page, 100, true).unwrap();
        assert!(cut == page[..100] && truncated, "cut at the cap");
        assert_eq!(sniffed(&page, 1 << 20, false), None, "nosniff");
        assert_eq!(
            sniffed(&[0x89, b'P', b'N', b'G', 0, 0], 1 << 20, true),
            None
        );
        assert_eq!(sniffed(b"", 1 << 20, true), None);
    }

    #[test]
    fn only_real_redirects_need_a_location() {
        assert!(must_locate(301) && must_locate(308));
        assert!(!must_locate(300) && !must_locate(304));
        assert_eq!(status_text(301), "301 Moved Permanently");
    }
}
