//! A small synchronous DNS client for the optional MX check of `mailto:` domains: one question
//! per query, asked over UDP of the resolver it is given (the system's from `/etc/resolv.conf`,
//! or one named by the user), and asked again over TCP when the UDP answer comes back truncated.
//! No recursion of its own. The `simple-dns` crate builds and reads the messages; this file only
//! carries them: the timeout, the id and question check, the fallback to TCP.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

use simple_dns::{CLASS, Name, Packet, PacketFlag, Question, header_buffer};

pub(crate) use simple_dns::rdata::RData;
pub(crate) use simple_dns::{RCODE, TYPE};

/// What an answer said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The response code.
    pub(crate) rcode: RCODE,
    /// The data of each record in the answer section.
    pub(crate) records: Vec<RData<'static>>,
}

/// The query message for `name` and `qtype`, with id `id` and recursion desired.
fn build_query(id: u16, name: &str, qtype: TYPE) -> Result<Vec<u8>, String> {
    let qname = Name::new(name).map_err(|_| format!("`{name}' is not a domain name"))?;
    let mut query = Packet::new_query(id);
    query.set_flags(PacketFlag::RECURSION_DESIRED);
    query
        .questions
        .push(Question::new(qname, qtype.into(), CLASS::IN.into(), false));
    query
        .build_bytes_vec()
        .map_err(|e| format!("DNS query for {name}: {e}"))
}

/// What came back for one query.
#[derive(Debug, PartialEq, Eq)]
enum Reply {
    Answer(Answer),
    /// The answer did not fit (the TC flag): ask again over TCP.
    Truncated,
}

/// Reads `bytes` as the reply to the query with id `id` for `name` and `qtype`; an error when it
/// is not that reply (another id, not a response, another question) or cannot be read.
fn read_reply(id: u16, name: &str, qtype: TYPE, bytes: &[u8]) -> Result<Reply, String> {
    let malformed = |e: simple_dns::SimpleDnsError| format!("malformed DNS answer: {e}");
    // The header first: a truncated reply may not parse as a whole.
    if header_buffer::id(bytes).map_err(malformed)? != id
        || !header_buffer::has_flags(bytes, PacketFlag::RESPONSE).map_err(malformed)?
    {
        return Err("not the answer to this DNS question".into());
    }
    if header_buffer::has_flags(bytes, PacketFlag::TRUNCATION).map_err(malformed)? {
        return Ok(Reply::Truncated);
    }
    let reply = Packet::parse(bytes).map_err(malformed)?;
    let asked = Name::new(name).map_err(|_| format!("`{name}' is not a domain name"))?;
    let same_question = |q: &Question| q.qname == asked && q.qtype == qtype.into();
    if reply.questions.len() != 1 || !reply.questions.iter().all(same_question) {
        return Err("not the answer to this DNS question".into());
    }
    Ok(Reply::Answer(Answer {
        rcode: reply.rcode(),
        records: reply
            .answers
            .into_iter()
            .map(|r| r.rdata.into_owned())
            .collect(),
    }))
}

/// Asks `server` one question; waits at most `timeout` in all for the answer (over UDP, and
/// over TCP when the UDP answer is truncated).
pub(crate) fn query(
    server: SocketAddr,
    name: &str,
    qtype: TYPE,
    timeout: Duration,
) -> Result<Answer, String> {
    let deadline = Instant::now() + timeout;
    let id = fastrand::u16(..);
    let message = build_query(id, name, qtype)?;
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("DNS lookup of {name} via {server} timed out after {timeout:?}")
        }
        _ => format!("DNS lookup of {name} via {server}: {e}"),
    };
    // What is left of the time; a zero left is a timeout (std refuses zero timeouts).
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| io(std::io::ErrorKind::TimedOut.into()))
    };
    let read = |bytes: &[u8]| read_reply(id, name, qtype, bytes);
    let reply = match ask_udp(server, &message, read, left, io)? {
        Reply::Truncated => read(&ask_tcp(server, &message, left, io)?)?,
        udp => udp,
    };
    match reply {
        Reply::Answer(answer) => Ok(answer),
        Reply::Truncated => Err(format!(
            "DNS lookup of {name} via {server}: the answer over TCP is truncated"
        )),
    }
}

/// Sends `message` over UDP and returns the first datagram `read` accepts; others (answers to
/// older questions, noise) are skipped until the time `left` runs out.
fn ask_udp(
    server: SocketAddr,
    message: &[u8],
    read: impl Fn(&[u8]) -> Result<Reply, String>,
    left: impl Fn() -> Result<Duration, String>,
    io: impl Fn(std::io::Error) -> String,
) -> Result<Reply, String> {
    let local: SocketAddr = if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    };
    let socket = UdpSocket::bind(local).map_err(&io)?;
    socket.connect(server).map_err(&io)?;
    socket.send(message).map_err(&io)?;
    let mut buf = [0u8; 4096];
    loop {
        socket.set_read_timeout(Some(left()?)).map_err(&io)?;
        // Linux never restarts a socket read that has a timeout when a signal handler runs
        // (the command plugin's wait-timeout handles SIGCHLD): ask again with what is left.
        let n = match socket.recv(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            n => n.map_err(&io)?,
        };
        if let Ok(reply) = read(&buf[..n]) {
            return Ok(reply);
        }
    }
}

/// Sends `message` over TCP (each message preceded by its length in two bytes, RFC 1035
/// 4.2.2) and returns the answer's bytes.
fn ask_tcp(
    server: SocketAddr,
    message: &[u8],
    left: impl Fn() -> Result<Duration, String>,
    io: impl Fn(std::io::Error) -> String,
) -> Result<Vec<u8>, String> {
    let mut stream = TcpStream::connect_timeout(&server, left()?).map_err(&io)?;
    stream.set_write_timeout(Some(left()?)).map_err(&io)?;
    let len = u16::try_from(message.len()).map_err(|_| "DNS query too long".to_owned())?;
    let mut framed = len.to_be_bytes().to_vec();
    framed.extend_from_slice(message);
    stream.write_all(&framed).map_err(&io)?;
    stream.set_read_timeout(Some(left()?)).map_err(&io)?;
    let mut len = [0u8; 2];
    stream.read_exact(&mut len).map_err(&io)?;
    let mut answer = vec![0u8; usize::from(u16::from_be_bytes(len))];
    stream.set_read_timeout(Some(left()?)).map_err(&io)?;
    stream.read_exact(&mut answer).map_err(&io)?;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simple_dns::ResourceRecord;
    use simple_dns::rdata::MX;

    /// The reply to `query` with `rcode`, the given answer records and flags.
    fn reply(query: &[u8], rcode: RCODE, records: Vec<RData<'static>>, tc: bool) -> Vec<u8> {
        let query = Packet::parse(query).unwrap();
        let mut reply = Packet::new_reply(query.id());
        if tc {
            reply.set_flags(PacketFlag::TRUNCATION);
        }
        *reply.rcode_mut() = rcode;
        let qname = query.questions[0].qname.clone();
        for rdata in records {
            reply
                .answers
                .push(ResourceRecord::new(qname.clone(), CLASS::IN, 60, rdata));
        }
        reply.questions = query.questions;
        reply.build_bytes_vec_compressed().unwrap()
    }

    #[test]
    fn query_asks_one_question_with_recursion() {
        let q = build_query(0x1234, "mail.example.test.", TYPE::MX).unwrap();
        let parsed = Packet::parse(&q).unwrap();
        assert_eq!(parsed.id(), 0x1234);
        assert!(parsed.has_flags(PacketFlag::RECURSION_DESIRED));
        assert!(!parsed.has_flags(PacketFlag::RESPONSE));
        assert_eq!(parsed.questions.len(), 1);
        assert_eq!(parsed.questions[0].qname.to_string(), "mail.example.test");
        assert_eq!(parsed.questions[0].qtype, TYPE::MX.into());
        let long = "a".repeat(64);
        assert!(build_query(1, &long, TYPE::MX).is_err(), "label over 63");
    }

    #[test]
    fn replies_are_matched_and_read() {
        let q = build_query(7, "ex.test", TYPE::MX).unwrap();
        let mx = RData::MX(MX {
            preference: 10,
            exchange: Name::new("mail.ex.test").unwrap().into_owned(),
        });
        let r = reply(&q, RCODE::NoError, vec![mx.clone()], false);
        let read = |id, name, qtype, bytes: &[u8]| read_reply(id, name, qtype, bytes);
        assert_eq!(
            read(7, "ex.test", TYPE::MX, &r),
            Ok(Reply::Answer(Answer {
                rcode: RCODE::NoError,
                records: vec![mx.clone()]
            }))
        );
        assert_eq!(
            read(7, "EX.test.", TYPE::MX, &r).map(|_| ()),
            Ok(()),
            "names compare without case"
        );
        assert!(read(8, "ex.test", TYPE::MX, &r).is_err(), "another id");
        assert!(read(7, "other.test", TYPE::MX, &r).is_err(), "another name");
        assert!(read(7, "ex.test", TYPE::A, &r).is_err(), "another type");
        assert!(read(7, "ex.test", TYPE::MX, &q).is_err(), "not a response");
        assert!(
            read(7, "ex.test", TYPE::MX, &r[..r.len() - 2]).is_err(),
            "cut short"
        );
        let nx = reply(&q, RCODE::NameError, vec![], false);
        assert!(matches!(
            read(7, "ex.test", TYPE::MX, &nx),
            Ok(Reply::Answer(Answer {
                rcode: RCODE::NameError,
                ..
            }))
        ));
        // A truncated reply is told apart from its header alone, even when cut mid-record.
        let tc = reply(&q, RCODE::NoError, vec![mx], true);
        let cut = &tc[..tc.len() - 3];
        assert_eq!(read(7, "ex.test", TYPE::MX, cut), Ok(Reply::Truncated));
    }

    #[test]
    fn resolv_conf() {
        let text = "# comment\nsearch lan\nnameserver 192.0.2.53\nnameserver ::1\n";
        assert_eq!(
            crate::config::resolver_from_resolv_conf(text),
            Some("192.0.2.53:53".parse().unwrap())
        );
        assert_eq!(
            crate::config::resolver_from_resolv_conf("nameserver fe80::1%eth0"),
            Some("[fe80::1]:53".parse().unwrap())
        );
        assert_eq!(crate::config::resolver_from_resolv_conf(""), None);
    }
}
