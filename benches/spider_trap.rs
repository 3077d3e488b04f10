//! Memory per discovered URL of a real crawl on a spider trap, the binary as users run it.
//!
//! Serves a trap on loopback (page `/p/N` links `FANOUT` new pages), crawls it with the release
//! binary (politeness off, `--max-urls 0`: no bound) for a few seconds, reads the process's
//! peak RSS after Ctrl-C and its report, and the URLs discovered from its summary. Prints bytes per
//! discovered URL above the fixed memory of a run on an empty page. Run:
//! `cargo build --release && cargo bench --bench spider_trap -- [SECONDS] [THREADS]`
//! (`LP=path` for another binary). Linux only (reads `/proc`).

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

#[path = "../tests/support/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod server;

use server::{Reply, Routes, TestServer};

const FANOUT: u64 = 20;

/// Page `n` of the trap: links to `n*FANOUT+1` … `n*FANOUT+FANOUT`, every one new.
fn trap() -> TestServer {
    TestServer::start(Routes::new().dynamic(|req| {
        let n: u64 = req.path_only().strip_prefix("/p/")?.parse().ok()?;
        let mut html = format!("<!doctype html><title>p{n}</title>\n");
        for k in n * FANOUT + 1..=n * FANOUT + FANOUT {
            html.push_str(&format!("<a href=\"/p/{k}\">{k}</a>\n"));
        }
        Some(Reply::html(html))
    }))
}

/// The largest peak resident set of the child processes waited for so far, in bytes.
fn children_peak_rss() -> u64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a `rusage`.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as u64 * 1024
}

fn linkpatrol(binary: &str, threads: &str, target: &str) -> Child {
    Command::new(binary)
        .args([
            "--no-config",
            "--no-status",
            "--max-requests-per-second",
            "0",
            // The default bound (500,000 URLs) would stop the trap: measure the frontier.
            "--max-urls",
            "0",
        ])
        .args([
            "--host-concurrency",
            "0",
            "-t",
            threads,
            "-o",
            "text",
            target,
        ])
        // Flags to compare (`LP_EXTRA="--max-memory 0"`: no budget, nothing spills).
        .args(
            std::env::var("LP_EXTRA")
                .unwrap_or_default()
                .split_whitespace(),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {binary}: {e}"))
}

/// Interrupts `child` (SIGINT, as Ctrl-C) and waits for its report; returns its stdout.
fn interrupt(mut child: Child) -> String {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let mut out = String::new();
    let _ = child.stdout.take().expect("piped").read_to_string(&mut out);
    let _ = child.wait();
    out
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let seconds: f64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(12.0);
    let threads = args.get(1).cloned().unwrap_or_else(|| "8".into());
    let binary = std::env::var("LP").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/linkpatrol").into()
    });
    let empty = std::env::temp_dir().join(format!("spider-trap-{}.html", std::process::id()));
    std::fs::write(&empty, "<!doctype html><title>empty</title>").expect("temp file");
    let mut child = linkpatrol(&binary, &threads, empty.to_str().expect("UTF-8 temp path"));
    let _ = child.wait();
    let fixed = children_peak_rss();
    let _ = std::fs::remove_file(&empty);

    let server = trap();
    let child = linkpatrol(&binary, &threads, &format!("{}p/0", server.url("/")));
    std::thread::sleep(Duration::from_secs_f64(seconds));
    let asked = std::time::Instant::now();
    let out = interrupt(child);
    let exit = asked.elapsed();
    let peak = children_peak_rss();
    // "… in N URLs checked" and "(M URLs not checked)": every URL discovered is one or the other.
    let number_before = |marker: &str| -> Option<u64> {
        out.lines().find_map(|l| {
            let at = l.find(marker)?;
            let digits = l[..at].rsplit([' ', '(']).next()?.replace(',', "");
            digits.parse().ok()
        })
    };
    let checked = number_before(" URLs checked")
        .unwrap_or_else(|| panic!("no summary in the output:\n{out}"));
    let discovered = checked + number_before(" URLs not checked").unwrap_or(0);
    println!(
        "spider trap, fanout {FANOUT}, {threads} threads, {seconds} s: {discovered} URLs discovered"
    );
    println!(
        "peak RSS {:.1} MB, fixed (empty run) {:.1} MB: {:.0} bytes per discovered URL",
        peak as f64 / 1048576.0,
        fixed as f64 / 1048576.0,
        peak.saturating_sub(fixed) as f64 / discovered.max(1) as f64
    );
    println!("Ctrl-C to exit: {:.2} s", exit.as_secs_f64());
}
