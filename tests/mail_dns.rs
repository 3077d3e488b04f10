//! `--check-mx` against a fake DNS resolver on a loopback UDP port (never a public resolver):
//! MX, implicit MX (A record), null MX, no such domain, no records; one lookup per domain; and
//! no DNS traffic at all without the flag.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::config_file::cli_in;
use crate::inputs::rows;
use crate::server::{Routes, TestServer};
use crate::util::temp_dir;

/// A UDP DNS responder with fixed answers, counting questions by (name, type).
struct FakeDns {
    addr: SocketAddr,
    asked: Arc<Mutex<HashMap<(String, u16), usize>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeDns {
    fn start() -> FakeDns {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let addr = socket.local_addr().unwrap();
        let asked = Arc::new(Mutex::new(HashMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (asked, stop) = (asked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut buf = [0u8; 512];
                while !stop.load(Ordering::SeqCst) {
                    let Ok((n, peer)) = socket.recv_from(&mut buf) else {
                        continue;
                    };
                    if let Some((name, qtype, reply)) = answer(&buf[..n]) {
                        *asked.lock().unwrap().entry((name, qtype)).or_insert(0) += 1;
                        let _ = socket.send_to(&reply, peer);
                    }
                }
            })
        };
        FakeDns {
            addr,
            asked,
            stop,
            thread: Some(thread),
        }
    }

    fn asked(&self, name: &str, qtype: u16) -> usize {
        let asked = self.asked.lock().unwrap();
        asked.get(&(name.to_owned(), qtype)).copied().unwrap_or(0)
    }

    fn total(&self) -> usize {
        self.asked.lock().unwrap().values().sum()
    }
}

impl Drop for FakeDns {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The reply to a query: (name, type, packet).
fn answer(q: &[u8]) -> Option<(String, u16, Vec<u8>)> {
    let mut at = 12;
    let mut labels = Vec::new();
    while *q.get(at)? != 0 {
        let len = usize::from(q[at]);
        labels.push(String::from_utf8_lossy(q.get(at + 1..at + 1 + len)?).into_owned());
        at += 1 + len;
    }
    let question_end = at + 5;
    let qtype = u16::from_be_bytes([*q.get(at + 1)?, *q.get(at + 2)?]);
    let name = labels.join(".");
    let (rcode, records): (u8, Vec<(u16, Vec<u8>)>) = match (name.as_str(), qtype) {
        ("good.test", 15) => (0, vec![(15, b"\x00\x0a\x04mail\xc0\x0c".to_vec())]),
        ("implicit.test", 1) => (0, vec![(1, vec![127, 0, 0, 1])]),
        ("nomail.test", 15) => (0, vec![(15, vec![0, 0, 0])]),
        ("gone.test", _) => (3, vec![]),
        _ => (0, vec![]),
    };
    let mut p = q[..2].to_vec();
    p.extend_from_slice(&[0x81, 0x80 | rcode, 0, 1, 0, records.len() as u8, 0, 0, 0, 0]);
    p.extend_from_slice(q.get(12..question_end)?);
    for (t, data) in records {
        p.extend_from_slice(&[0xc0, 12]);
        p.extend_from_slice(&t.to_be_bytes());
        p.extend_from_slice(&[0, 1, 0, 0, 0, 60]);
        p.extend_from_slice(&(data.len() as u16).to_be_bytes());
        p.extend_from_slice(&data);
    }
    Some((name, qtype, p))
}

#[test]
fn check_mx_asks_the_given_resolver_once_per_domain() {
    let dns = FakeDns::start();
    let server = TestServer::start(Routes::new().page(
        "/",
        "<a href='mailto:a@good.test'>1</a><a href='mailto:b@GOOD.test'>2</a>\
         <a href='mailto:c@implicit.test'>3</a><a href='mailto:d@nomail.test'>4</a>\
         <a href='mailto:e@gone.test'>5</a><a href='mailto:f@empty.test'>6</a>",
    ));
    let dir = temp_dir("mail-dns");
    let base = [
        "--no-config",
        "--no-status",
        "-o",
        "csv",
        "-v",
        "--max-requests-per-second",
        "0",
    ];

    // Off by default: syntax only, no DNS question at all.
    let mut args = base.to_vec();
    let url = server.url("/");
    args.push(&url);
    let out = cli_in(&dir, &[], &args);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(dns.total(), 0);

    for threads in ["1", "8"] {
        let dns = FakeDns::start();
        let resolver = dns.addr.to_string();
        let mut args = base.to_vec();
        args.extend_from_slice(&["-t", threads, "--check-mx", "--dns-server", &resolver, &url]);
        let out = cli_in(&dir, &[], &args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r = rows(&out);
        let verdict = |name: &str| {
            let row = r
                .iter()
                .find(|r| &r[0] == name)
                .unwrap_or_else(|| panic!("{name}"));
            (row[6].to_owned(), row[3].to_owned())
        };
        assert_eq!(verdict("mailto:a@good.test").0, "True");
        assert_eq!(verdict("mailto:b@GOOD.test").0, "True");
        assert_eq!(verdict("mailto:c@implicit.test").0, "True");
        let (valid, result) = verdict("mailto:d@nomail.test");
        assert!(valid == "False" && result.contains("null MX"), "{result}");
        let (valid, result) = verdict("mailto:e@gone.test");
        assert!(
            valid == "False" && result.contains("does not exist"),
            "{result}"
        );
        let (valid, result) = verdict("mailto:f@empty.test");
        assert!(
            valid == "False" && result.contains("no MX, A or AAAA"),
            "{result}"
        );
        assert_eq!(dns.asked("good.test", 15), 1, "one lookup per domain");
        assert_eq!(dns.asked("implicit.test", 1), 1);
        assert_eq!(dns.asked("gone.test", 1), 0, "no A lookup after NXDOMAIN");
    }

    let out = cli_in(
        &dir,
        &[],
        &["--no-config", "--check-mx", "--dns-server", "nowhere", &url],
    );
    crate::config_file::assert_one_line_error(&out, &["--dns-server `nowhere'"]);
}
