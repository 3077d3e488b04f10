//! A tiny std-only HTTP/1.1 keep-alive server for whole-run measurements that nginx cannot
//! serve: a spider trap, one page of N links, a site with ETags whose pages link a slow host.
//! Built with `rustc -O benches/support/tiny_server.rs -o target/tiny_server` (no crates).
//!
//! Usage: tiny_server MODE ADDR [ARGS]
//!  trap: /p/N links /p/(N*20+1..=N*20+20)
//!  bigpage N: / has N unique links /l/i (each answered 200 empty)
//!  site PAGES EXT_PORT NEXT: /s/i pages (ETag) each linking 10 pages + one external link
//!  slow MS: every answer after MS ms; /bad/* 404 else 200
//!  longtrap: /p/N links 20 new pages /p/M?xxx… whose URLs are 30,000 characters long
//!  mixtrap: /p/N links 20 new pages /p/M and 20 new URLs /l/M?xxx… of 30,000 characters
//!  robots N KIND: / links one page on each of N origins 127.0.0.(2+i/10):(PORT+1+i%10), each
//!    also served here with a 500 KiB robots.txt of `User-agent: *` and KIND rules
//!    (`plain`: `Disallow: /path/to/N/`, `dollar`: `Disallow: /pN$`)
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

fn handle(s: TcpStream, mode: Arc<Vec<String>>) {
    let _ = s.set_nodelay(true);
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut w = s;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 { return; }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("/").to_string();
        let mut inm = None;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 { return; }
            if h == "\r\n" || h == "\n" { break; }
            let lower = h.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("if-none-match:") { inm = Some(v.trim().to_string()); }
        }
        let (status, body, extra): (&str, String, String) = match mode[0].as_str() {
            "trap" => {
                let n: u64 = path.strip_prefix("/p/").and_then(|x| x.parse().ok()).unwrap_or(0);
                let mut h = String::from("<!doctype html><title>t</title>\n");
                for k in n * 20 + 1..=n * 20 + 20 { h.push_str(&format!("<a href=\"/p/{k}\">{k}</a>\n")); }
                ("200 OK", h, String::new())
            }
            "longtrap" => {
                let n: u64 = path.strip_prefix("/p/").and_then(|x| x.split('?').next()?.parse().ok()).unwrap_or(0);
                let pad = "x".repeat(30_000);
                let mut h = String::from("<!doctype html><title>t</title>\n");
                for k in n * 20 + 1..=n * 20 + 20 { h.push_str(&format!("<a href=\"/p/{k}?{pad}\">{k}</a>\n")); }
                ("200 OK", h, String::new())
            }
            "mixtrap" => {
                if let Some(n) = path.strip_prefix("/p/").and_then(|x| x.parse::<u64>().ok()) {
                    let pad = "x".repeat(30_000);
                    let mut h = String::from("<!doctype html><title>t</title>\n");
                    for k in n * 20 + 1..=n * 20 + 20 {
                        h.push_str(&format!("<a href=\"/p/{k}\">{k}</a> <a href=\"/l/{k}?{pad}\">l</a>\n"));
                    }
                    ("200 OK", h, String::new())
                } else { ("200 OK", "x".into(), String::new()) }
            }
            "robots" => {
                if path == "/robots.txt" {
                    ("200 OK", mode[mode.len() - 1].clone(), "Content-Type: text/plain\r\n".into())
                } else if path == "/" {
                    let n: usize = mode[1].parse().unwrap();
                    let port: u16 = mode[3].parse().unwrap();
                    let mut h = String::from("<!doctype html><title>origins</title>\n");
                    for i in 0..n {
                        h.push_str(&format!("<a href=\"http://127.0.0.{}:{}/page\">o</a>\n", 2 + i / 10, port + 1 + (i % 10) as u16));
                    }
                    ("200 OK", h, String::new())
                } else { ("200 OK", "page".into(), String::new()) }
            }
            "bigpage" => {
                if path == "/" {
                    let n: usize = mode[1].parse().unwrap();
                    let mut h = String::with_capacity(n * 40);
                    h.push_str("<!doctype html><title>big</title>\n");
                    for i in 0..n { h.push_str(&format!("<a href=\"/l/{i}\">{i}</a>\n")); }
                    ("200 OK", h, String::new())
                } else { ("200 OK", "x".into(), String::new()) }
            }
            "site" => {
                let pages: usize = mode[1].parse().unwrap();
                let ext: &str = &mode[2];
                let next: usize = mode[3].parse().unwrap();
                let i: usize = path.strip_prefix("/s/").and_then(|x| x.parse().ok()).unwrap_or(0);
                if inm.as_deref() == Some("\"v1\"") {
                    ("304 Not Modified", String::new(), "ETag: \"v1\"\r\n".into())
                } else {
                    let mut h = String::from("<!doctype html><title>s</title>\n");
                    for k in 1..=10 { h.push_str(&format!("<a href=\"/s/{}\">p</a>\n", (i * 7 + k * 13) % pages)); }
                    h.push_str(&format!("<a href=\"/s/{}\">p</a>\n", (i + 1) % pages));
                    let e = i % next;
                    let kind = if e % 10 == 0 { "bad" } else { "ok" };
                    h.push_str(&format!("<a href=\"http://127.0.0.2:{ext}/{kind}/{e}\">x</a>\n"));
                    ("200 OK", h, "ETag: \"v1\"\r\n".into())
                }
            }
            "slow" => {
                let ms: u64 = mode[1].parse().unwrap();
                std::thread::sleep(Duration::from_millis(ms));
                if path.starts_with("/bad/") { ("404 Not Found", "gone".into(), String::new()) } else { ("200 OK", "fine".into(), String::new()) }
            }
            _ => ("500 X", String::new(), String::new()),
        };
        let body = if method == "HEAD" { String::new() } else { body };
        let clen = if method == "HEAD" || status.starts_with("304") { String::new() } else { format!("Content-Length: {}\r\n", body.len()) };
        let resp = format!("HTTP/1.1 {status}\r\nContent-Type: text/html\r\n{extra}{clen}\r\n{body}");
        if w.write_all(resp.as_bytes()).is_err() { return; }
    }
}

/// The 500 KiB robots.txt of mode `robots`, of `kind` rules.
fn robots_txt(kind: &str) -> String {
    let mut body = String::from("User-agent: *\n");
    let mut i = 0;
    while body.len() < 500 * 1024 {
        if kind == "dollar" { body.push_str(&format!("Disallow: /p{i}$\n")) } else { body.push_str(&format!("Disallow: /path/to/{i}/\n")) }
        i += 1;
    }
    body
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let addr = a[1].clone();
    let mut mode: Vec<String> = a[0..1].iter().chain(a[2..].iter()).cloned().collect();
    if mode[0] == "robots" {
        // mode: robots N KIND PORT BODY; one listener per origin.
        let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
        let body = robots_txt(&mode[2]);
        mode.push(port.to_string());
        mode.push(body);
        let n: usize = mode[1].parse().unwrap();
        let shared = Arc::new(mode.clone());
        for i in 0..n {
            let l = TcpListener::bind(format!("127.0.0.{}:{}", 2 + i / 10, port + 1 + (i % 10) as u16)).unwrap();
            let m = shared.clone();
            std::thread::spawn(move || for s in l.incoming().flatten() { let m = m.clone(); std::thread::spawn(move || handle(s, m)); });
        }
    }
    let mode = Arc::new(mode);
    let l = TcpListener::bind(&addr).unwrap();
    for s in l.incoming().flatten() {
        let m = mode.clone();
        std::thread::spawn(move || handle(s, m));
    }
}
