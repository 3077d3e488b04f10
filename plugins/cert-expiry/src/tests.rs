use linkpatrol_plugin_api::testing::FakeServices;
use linkpatrol_plugin_api::{Options, Plugin, Remark, ResponseView, Url};

use super::*;

/// `notAfter` of tests/localhost.der (openssl: Nov 28 09:13:35 2036 GMT), a UTCTime.
const LOCALHOST_NOT_AFTER: i64 = 2_111_476_415;
/// `notAfter` of tests/far-future.der (Apr 18 09:13:35 2054 GMT), a GeneralizedTime.
const FAR_NOT_AFTER: i64 = 2_660_116_415;

fn plugin(days: &str, now: fn() -> i64) -> CertExpiry {
    let mut p = CertExpiry::from_options(&Options::new(NAME).with("days", days)).unwrap();
    p.now = now;
    p
}

fn respond(p: &CertExpiry, url: &str, services: &FakeServices) -> Vec<Remark> {
    let url = Url::parse(url).unwrap();
    let view = ResponseView {
        url: &url,
        final_url: &url,
        status: Some(200),
        ok: true,
        headers: &[],
        content_type: None,
        internal: true,
    };
    p.check_response(&view, services)
}

/// The `notAfter` of a certificate file, in Unix seconds.
fn not_after_secs(der: &[u8]) -> Option<i64> {
    not_after(der).map(|t| unix_seconds(&t))
}

#[test]
fn reads_not_after_from_real_certificates() {
    assert_eq!(
        not_after_secs(include_bytes!("../tests/localhost.der")),
        Some(LOCALHOST_NOT_AFTER)
    );
    assert_eq!(
        not_after_secs(include_bytes!("../tests/far-future.der")),
        Some(FAR_NOT_AFTER)
    );
    let localhost = not_after(include_bytes!("../tests/localhost.der")).unwrap();
    assert_eq!(date(&localhost), "2036-11-28");
    let epoch = DateTime::from_unix_duration(std::time::Duration::ZERO).unwrap();
    assert_eq!(date(&epoch), "1970-01-01");
}

#[test]
fn garbage_and_truncated_certificates_are_refused_without_panicking() {
    let real = include_bytes!("../tests/localhost.der");
    for bad in [
        &b""[..],
        b"\x30",
        b"\x30\x85\x01",
        b"\x30\x02\x30\x00",
        b"\x04\x00",
        &real[..real.len() / 2],
        &real[1..],
    ] {
        assert_eq!(not_after(bad), None, "{bad:02x?}");
    }
}

#[test]
fn warns_within_the_window_and_after_expiry_once_per_host() {
    let der = include_bytes!("../tests/localhost.der").to_vec();
    let s = FakeServices::new()
        .certificate("https://a.test/", der.clone())
        .certificate("https://a.test/other", der);
    // 10 days before expiry, warning at 30.
    let p = plugin("30", || LOCALHOST_NOT_AFTER - 10 * DAY);
    let r = respond(&p, "https://a.test/", &s);
    assert_eq!(
        r,
        [Remark::warning(
            TAG_EXPIRING,
            "The certificate of a.test:443 expires on 2036-11-28, in 10 days (warning at 30)."
        )]
    );
    assert!(
        respond(&p, "https://a.test/other", &s).is_empty(),
        "once per host"
    );
    assert_eq!(s.certificate_requests(), 1);

    let expired = plugin("30", || LOCALHOST_NOT_AFTER + DAY);
    let r = respond(&expired, "https://a.test/", &s);
    assert!(
        matches!(
            &r[..],
            [Remark::Warning {
                tag: TAG_EXPIRED,
                ..
            }]
        ),
        "{r:?}"
    );

    let fine = plugin("5", || LOCALHOST_NOT_AFTER - 10 * DAY);
    let r = respond(&fine, "https://a.test/", &s);
    assert_eq!(
        r,
        [Remark::Info(
            "certificate of a.test:443 valid until 2036-11-28 (10 days)".into()
        )]
    );
}

#[test]
fn http_and_unreadable_certificates() {
    let p = plugin("30", system_now);
    let s = FakeServices::new().certificate("https://b.test/", vec![1, 2, 3]);
    assert!(respond(&p, "http://a.test/", &s).is_empty());
    let r = respond(&p, "https://b.test/", &s);
    assert_eq!(
        r,
        [Remark::Info(
            "cannot read the certificate of b.test:443".into()
        )]
    );
    let r = respond(&p, "https://c.test/", &s);
    assert!(
        matches!(&r[..], [Remark::Info(m)] if m.starts_with("cannot get")),
        "{r:?}"
    );
    assert!(CertExpiry::from_options(&Options::new(NAME).with("days", "x")).is_err());
}
