//! A crate outside the root package that uses only linkpatrol's public API, the way a build
//! tool embeds it. If a public item it needs disappears or changes, this stops compiling.

use std::time::Duration;

use linkpatrol::report::{CsvReporter, Reporter, TextReporter, Verbosity};
use linkpatrol::{CancelHandle, Checker, Config, Entry, Outcome, Report};

/// Checks a folder with a cancel handle shared with the caller, writing CSV as it streams.
pub fn check_folder(
    path: &str,
    cancel: CancelHandle,
) -> Result<(Report, Vec<u8>), Box<dyn std::error::Error>> {
    let config = Config::new()
        .input_path(path)
        .threads(2)
        .timeout(Duration::from_secs(5))
        .abort_timeout(Duration::from_secs(1));
    let checker = Checker::new(config)?.with_cancel_handle(cancel);
    let mut csv = CsvReporter::new(Vec::new(), b';', Verbosity::All);
    let report = checker.run_with(|e: &Entry| {
        let _ = csv.entry(e);
    })?;
    let _ = csv.finish(&report);
    let mut text = TextReporter::new(std::io::sink(), Verbosity::Problems);
    let _ = text.finish(&report);
    Ok((report, csv.into_inner()?))
}

/// Sorts outcomes the way a build tool would gate a deploy.
pub fn verdict(report: &Report) -> &'static str {
    match report.broken().next().map(|e| &e.result.outcome) {
        None => "ok",
        Some(Outcome::Broken { .. }) => "broken",
        Some(Outcome::Failed { .. }) => "unreachable",
        Some(_) => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linkpatrol::{Error, ErrorKind};

    #[test]
    fn embeds_and_checks_the_example_site() {
        let site = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/site");
        let (report, csv) = check_folder(site, CancelHandle::new()).unwrap();
        assert!(report.errors() > 0);
        let csv = String::from_utf8(csv).unwrap();
        assert!(csv.starts_with("urlname;parentname;"));
        assert_eq!(csv.lines().count(), report.entries.len() + 1);
        assert_ne!(verdict(&report), "ok");
    }

    #[test]
    fn a_missing_folder_is_an_invalid_input_error() {
        let err = check_folder("/no/such/folder", CancelHandle::new()).unwrap_err();
        let err = err.downcast_ref::<Error>().expect("a linkpatrol::Error");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    }
}
