//! Gzipped documents (`sitemap.xml.gz`): decompressed in memory up to a cap, so a gzip bomb
//! stops there. Pure: bytes in, bytes out.

use std::io::Read;

use flate2::read::GzDecoder;

/// `true` when `body` starts with the gzip magic bytes.
pub fn is_gzip(body: &[u8]) -> bool {
    body.starts_with(&[0x1f, 0x8b])
}

/// At most `cap` bytes of the decompressed `body`; `None` when it is not valid gzip. A body cut
/// short keeps what was decompressed before the damage.
pub fn gunzip_capped(body: &[u8], cap: u64) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match GzDecoder::new(body).take(cap).read_to_end(&mut out) {
        Ok(_) => Some(out),
        Err(_) if !out.is_empty() => Some(out),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn round_trip_and_cap() {
        let packed = gz(b"<urlset></urlset>");
        assert!(is_gzip(&packed));
        assert_eq!(gunzip_capped(&packed, 1024).unwrap(), b"<urlset></urlset>");
        let bomb = gz(&vec![b'a'; 1 << 20]);
        assert_eq!(gunzip_capped(&bomb, 100).unwrap().len(), 100);
        assert!(!is_gzip(b"<urlset/>"));
        assert_eq!(gunzip_capped(b"\x1f\x8bgarbage", 100), None);
    }
}
