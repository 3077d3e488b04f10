//! `--check-mx` against a fake DNS resolver on a loopback UDP and TCP port (never a public
//! resolver): MX, implicit MX (A record), null MX, no such domain, no records, a truncated UDP
//! answer asked again over TCP, an IDN domain asked in punycode; one lookup per domain; and no
//! DNS traffic at all without the flag. The fake resolver builds its answers with simple-dns.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use simple_dns::rdata::{A, MX, RData};
use simple_dns::{CLASS, Name, Packet, PacketFlag, QTYPE, RCODE, ResourceRecord, TYPE};

use crate::support::server::{Routes, TestServer};
use crate::support::util::{
    TempDir, assert_exit, assert_one_line_error, cli_in, csv_run_in, row_named, rows,
};

/// Which transport a question came over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Via {
    Udp,
    Tcp,
}

/// Questions asked, by (name, type, transport).
type Asked = Arc<Mutex<HashMap<(String, TYPE, Via), usize>>>;

/// A DNS responder with fixed answers on one loopback port, over UDP and TCP, counting the
/// questions.
struct FakeDns {
    addr: SocketAddr,
    asked: Asked,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl FakeDns {
    fn start() -> FakeDns {
        // The TCP listener takes the UDP socket's port number; when that port is taken for
        // TCP, try another.
        let (udp, tcp) = (0..50)
            .find_map(|_| {
                let udp = UdpSocket::bind("127.0.0.1:0").ok()?;
                let tcp = TcpListener::bind(udp.local_addr().ok()?).ok()?;
                Some((udp, tcp))
            })
            .expect("a loopback port free for UDP and TCP");
        udp.set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let addr = udp.local_addr().unwrap();
        let asked: Asked = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let udp_thread = {
            let (asked, stop) = (asked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut buf = [0u8; 512];
                while !stop.load(Ordering::SeqCst) {
                    let Ok((n, peer)) = udp.recv_from(&mut buf) else {
                        continue;
                    };
                    if let Some(reply) = answer(&buf[..n], Via::Udp, &asked) {
                        let _ = udp.send_to(&reply, peer);
                    }
                }
            })
        };
        let tcp_thread = {
            let (asked, stop) = (asked.clone(), stop.clone());
            std::thread::spawn(move || {
                for conn in tcp.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(mut conn) = conn {
                        let _ = serve_tcp(&mut conn, &asked);
                    }
                }
            })
        };
        FakeDns {
            addr,
            asked,
            stop,
            threads: vec![udp_thread, tcp_thread],
        }
    }

    fn asked(&self, name: &str, qtype: TYPE, via: Via) -> usize {
        let asked = self.asked.lock().unwrap();
        asked
            .get(&(name.to_owned(), qtype, via))
            .copied()
            .unwrap_or(0)
    }

    fn total(&self) -> usize {
        self.asked.lock().unwrap().values().sum()
    }
}

impl Drop for FakeDns {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the TCP thread from `accept`; it sees the stop flag and ends.
        let _ = TcpStream::connect(self.addr);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Answers one query over a TCP connection (two length bytes before each message).
fn serve_tcp(conn: &mut TcpStream, asked: &Asked) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut len = [0u8; 2];
    conn.read_exact(&mut len)?;
    let mut query = vec![0u8; usize::from(u16::from_be_bytes(len))];
    conn.read_exact(&mut query)?;
    if let Some(reply) = answer(&query, Via::Tcp, asked) {
        let mut framed = u16::try_from(reply.len()).unwrap().to_be_bytes().to_vec();
        framed.extend_from_slice(&reply);
        conn.write_all(&framed)?;
    }
    Ok(())
}

/// The reply to a query, counted in `asked`.
fn answer(q: &[u8], via: Via, asked: &Asked) -> Option<Vec<u8>> {
    let query = Packet::parse(q).ok()?;
    let question = query.questions.first()?.clone();
    let QTYPE::TYPE(qtype) = question.qtype else {
        return None;
    };
    let name = question.qname.to_string();
    *asked
        .lock()
        .unwrap()
        .entry((name.clone(), qtype, via))
        .or_insert(0) += 1;
    let mx = |preference, exchange: &'static str| {
        RData::MX(MX {
            preference,
            exchange: Name::new(exchange).unwrap(),
        })
    };
    let mut reply = Packet::new_reply(query.id());
    let records = match (name.as_str(), qtype) {
        ("good.test", TYPE::MX) => vec![mx(10, "mail.good.test")],
        ("xn--bcher-kva.test", TYPE::MX) => vec![mx(10, "mail.good.test")],
        ("implicit.test", TYPE::A) => vec![RData::A(A {
            address: u32::from(std::net::Ipv4Addr::LOCALHOST),
        })],
        ("nomail.test", TYPE::MX) => vec![mx(0, ".")],
        ("gone.test", _) => {
            *reply.rcode_mut() = RCODE::NameError;
            vec![]
        }
        // Too big for UDP (says the fake): the whole answer only over TCP.
        ("big.test", TYPE::MX) if via == Via::Udp => {
            reply.set_flags(PacketFlag::TRUNCATION);
            vec![]
        }
        ("big.test", TYPE::MX) => vec![mx(10, "mail.good.test")],
        _ => vec![],
    };
    for rdata in records {
        let owner = question.qname.clone();
        reply
            .answers
            .push(ResourceRecord::new(owner, CLASS::IN, 60, rdata));
    }
    reply.questions.push(question);
    reply.build_bytes_vec_compressed().ok()
}

#[test]
fn check_mx_asks_the_given_resolver_once_per_domain() {
    let dns = FakeDns::start();
    let server = TestServer::start(Routes::new().page(
        "/",
        "<a href='mailto:a@good.test'>1</a><a href='mailto:b@GOOD.test'>2</a>\
         <a href='mailto:c@implicit.test'>3</a><a href='mailto:d@nomail.test'>4</a>\
         <a href='mailto:e@gone.test'>5</a><a href='mailto:f@empty.test'>6</a>\
         <a href='mailto:g@big.test'>7</a><a href='mailto:h@b\u{fc}cher.test'>8</a>",
    ));
    let dir = TempDir::new("mail-dns");

    // Off by default: syntax only, no DNS question at all.
    let url = server.url("/");
    let out = csv_run_in(&dir, &[&url]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(dns.total(), 0);

    for threads in ["1", "8"] {
        let dns = FakeDns::start();
        let resolver = dns.addr.to_string();
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--check-mx", "--dns-server", &resolver, &url],
        );
        assert_exit(&out, 1);
        let r = rows(&out);
        let verdict = |name: &str| {
            let row = row_named(&r, name);
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
        let (valid, result) = verdict("mailto:g@big.test");
        assert_eq!(
            valid, "True",
            "truncated over UDP, whole over TCP: {result}"
        );
        let idn = r
            .iter()
            .find(|r| r[0].starts_with("mailto:h@"))
            .expect("the IDN row");
        assert_eq!(&idn[6], "True", "{}", &idn[3]);
        assert_eq!(
            dns.asked("good.test", TYPE::MX, Via::Udp),
            1,
            "one lookup per domain"
        );
        assert_eq!(dns.asked("implicit.test", TYPE::A, Via::Udp), 1);
        assert_eq!(
            dns.asked("gone.test", TYPE::A, Via::Udp),
            0,
            "no A lookup after NXDOMAIN"
        );
        assert_eq!(dns.asked("big.test", TYPE::MX, Via::Udp), 1);
        assert_eq!(dns.asked("big.test", TYPE::MX, Via::Tcp), 1);
        assert_eq!(dns.asked("xn--bcher-kva.test", TYPE::MX, Via::Udp), 1);
    }

    let out = cli_in(
        &dir,
        &[],
        &["--no-config", "--check-mx", "--dns-server", "nowhere", &url],
    );
    assert_one_line_error(&out, &["--dns-server `nowhere'"]);
}
