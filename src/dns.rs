//! A minimal synchronous DNS client over UDP, for the optional MX check of `mailto:` domains:
//! one question per query, the answer's response code and record types. No recursion of its
//! own: it asks the resolver it is given (the system's from `/etc/resolv.conf`, or one named by
//! the user). Packet building and parsing are pure and unit-tested; `query` does the I/O.

use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

/// Record type MX.
pub(crate) const TYPE_MX: u16 = 15;
/// Record type A.
pub(crate) const TYPE_A: u16 = 1;
/// Record type AAAA.
pub(crate) const TYPE_AAAA: u16 = 28;
/// Response code "name does not exist".
pub(crate) const RCODE_NXDOMAIN: u8 = 3;

/// What an answer said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The response code (0 no error, 3 no such name).
    pub(crate) rcode: u8,
    /// Each answer record: its type and its data.
    pub(crate) records: Vec<(u16, Vec<u8>)>,
}

/// The query packet for `name` and `qtype`, with id `id` and recursion desired.
pub(crate) fn build_query(id: u16, name: &str, qtype: u16) -> Result<Vec<u8>, String> {
    let mut p = Vec::with_capacity(32 + name.len());
    p.extend_from_slice(&id.to_be_bytes());
    p.extend_from_slice(&[0x01, 0x00]); // RD
    p.extend_from_slice(&[0, 1, 0, 0, 0, 0, 0, 0]); // QDCOUNT 1
    for label in name.trim_end_matches('.').split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err(format!("`{name}' is not a domain name"));
        }
        p.push(label.len() as u8);
        p.extend_from_slice(label.as_bytes());
    }
    p.push(0);
    p.extend_from_slice(&qtype.to_be_bytes());
    p.extend_from_slice(&[0, 1]); // class IN
    Ok(p)
}

/// Parses the answer to the query with id `id`.
pub(crate) fn parse_answer(id: u16, p: &[u8]) -> Result<Answer, String> {
    let bad = || "malformed DNS answer".to_owned();
    if p.len() < 12 || u16::from_be_bytes([p[0], p[1]]) != id || p[2] & 0x80 == 0 {
        return Err(bad());
    }
    if p[2] & 0x02 != 0 {
        return Err("DNS answer truncated".into());
    }
    let rcode = p[3] & 0x0f;
    let qd = u16::from_be_bytes([p[4], p[5]]);
    let an = u16::from_be_bytes([p[6], p[7]]);
    let mut at = 12;
    for _ in 0..qd {
        at = skip_name(p, at).ok_or_else(bad)? + 4;
    }
    let mut records = Vec::new();
    for _ in 0..an {
        at = skip_name(p, at).ok_or_else(bad)?;
        let head = p.get(at..at + 10).ok_or_else(bad)?;
        let rtype = u16::from_be_bytes([head[0], head[1]]);
        let len = usize::from(u16::from_be_bytes([head[8], head[9]]));
        let data = p.get(at + 10..at + 10 + len).ok_or_else(bad)?;
        records.push((rtype, data.to_vec()));
        at += 10 + len;
    }
    Ok(Answer { rcode, records })
}

/// The index after the (possibly compressed) name starting at `at`.
fn skip_name(p: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let len = *p.get(at)?;
        match len {
            0 => return Some(at + 1),
            l if l & 0xc0 == 0xc0 => return Some(at + 2).filter(|&e| e <= p.len()),
            l => at += 1 + usize::from(l),
        }
    }
}

/// Asks `server` one question; waits at most `timeout` for the answer.
pub(crate) fn query(
    server: SocketAddr,
    name: &str,
    qtype: u16,
    timeout: Duration,
) -> Result<Answer, String> {
    let id = fastrand::u16(..);
    let packet = build_query(id, name, qtype)?;
    let local: SocketAddr = if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    };
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("DNS lookup of {name} via {server} timed out after {timeout:?}")
        }
        _ => format!("DNS lookup of {name} via {server}: {e}"),
    };
    let socket = UdpSocket::bind(local).map_err(io)?;
    socket.set_read_timeout(Some(timeout)).map_err(io)?;
    socket.connect(server).map_err(io)?;
    socket.send(&packet).map_err(io)?;
    let mut buf = [0u8; 4096];
    loop {
        let n = socket.recv(&mut buf).map_err(io)?;
        // An answer to an older question (or noise) is skipped; the timeout still bounds us.
        if let Ok(answer) = parse_answer(id, &buf[..n]) {
            return Ok(answer);
        }
    }
}

/// The first `nameserver` of a resolv.conf text, on port 53.
pub(crate) fn nameserver_of(resolv_conf: &str) -> Option<SocketAddr> {
    resolv_conf.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some("nameserver"))
            .then(|| words.next())
            .flatten()
            .and_then(|a| a.split('%').next()?.parse::<std::net::IpAddr>().ok())
            .map(|ip| SocketAddr::new(ip, 53))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_packet_layout() {
        let q = build_query(0x1234, "mail.example.test.", TYPE_MX).unwrap();
        assert_eq!(&q[..4], &[0x12, 0x34, 0x01, 0x00]);
        assert_eq!(&q[12..], b"\x04mail\x07example\x04test\x00\x00\x0f\x00\x01");
        assert!(build_query(1, "a..b", TYPE_MX).is_err());
    }

    #[test]
    fn answer_with_compressed_names() {
        let mut p = build_query(7, "ex.test", TYPE_MX).unwrap();
        p[2] |= 0x80;
        p[7] = 1; // ANCOUNT
        p.extend_from_slice(&[0xc0, 12, 0, 15, 0, 1, 0, 0, 0, 60, 0, 3, 0, 0, 0]);
        let a = parse_answer(7, &p).unwrap();
        assert_eq!(a.rcode, 0);
        assert_eq!(a.records, [(TYPE_MX, vec![0, 0, 0])]);
        assert!(parse_answer(8, &p).is_err(), "another id");
        assert!(parse_answer(7, &p[..p.len() - 2]).is_err(), "cut short");
        p[3] = RCODE_NXDOMAIN;
        assert_eq!(parse_answer(7, &p).unwrap().rcode, RCODE_NXDOMAIN);
    }

    #[test]
    fn resolv_conf() {
        let text = "# comment\nsearch lan\nnameserver 192.0.2.53\nnameserver ::1\n";
        assert_eq!(nameserver_of(text), Some("192.0.2.53:53".parse().unwrap()));
        assert_eq!(
            nameserver_of("nameserver fe80::1%eth0"),
            Some("[fe80::1]:53".parse().unwrap())
        );
        assert_eq!(nameserver_of(""), None);
    }
}
