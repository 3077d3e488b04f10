//! Check a local folder of HTML (default: the bundled example site) and list its broken links.
//!
//! `cargo run --example check_folder -- path/to/public`

use linkpatrol::{Checker, Config};

fn main() -> Result<(), linkpatrol::Error> {
    let folder = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site").to_owned());
    let report = Checker::new(Config::new().input_path(&folder))?.run()?;
    for entry in report.broken() {
        let r = entry.referrer.as_ref();
        println!(
            "{} (in {} line {}): {}",
            r.map_or(entry.result.url.as_str(), |r| r.raw.as_str()),
            r.map_or("-", |r| r.parent.as_str()),
            r.and_then(|r| r.line).unwrap_or(0),
            entry.result.outcome
        );
    }
    println!("{} broken links in {} URLs", report.errors(), report.urls);
    Ok(())
}
