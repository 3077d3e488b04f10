//! `Result` (one report row: a link, the page it is on, the verdict on its URL) and `Report`
//! (every row, the statistics, `write` in every report format the CLI has). Both are
//! read-only views over the library's `Entry` and `Report`; their dict forms are the JSON
//! report's objects (`entry_json`, `summary_json`), so Python and the JSON/NDJSON reports name
//! every field alike.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use linkpatrol::report::{
    Format, ReportOptions, Reporter, SortedReporter, Verbosity, entry_json, reporter_for,
    summary_json,
};
use linkpatrol::{Entry, FailureClass};
use pyo3::exceptions::{PyOSError, PyValueError};

use crate::errors::os_error;
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::json_py::to_py;

/// One row of a report: a link as found on a page (or a start URL) and the verdict on its URL.
#[pyclass(frozen, module = "linkpatrol", name = "Result")]
pub struct PyResult_ {
    pub(crate) entry: Entry,
}

impl PyResult_ {
    fn referrer(&self) -> Option<&linkpatrol::Referrer> {
        self.entry.referrer.as_ref()
    }
}

#[pymethods]
impl PyResult_ {
    /// The URL as checked: resolved, without fragment.
    #[getter]
    fn url(&self) -> &str {
        &self.entry.result.url
    }

    /// The link as written in the page (the URL itself for a start URL).
    #[getter]
    fn urlname(&self) -> &str {
        self.referrer()
            .map_or(self.entry.result.url.as_str(), |r| r.raw.as_str())
    }

    /// Where the redirects ended (the URL itself without redirects).
    #[getter]
    fn real_url(&self) -> String {
        let r = &self.entry.result;
        r.real_url
            .as_ref()
            .map_or_else(|| r.url.clone(), |u| u.to_string())
    }

    /// The page that links to it; `None` for a start URL.
    #[getter]
    fn parent(&self) -> Option<&str> {
        self.referrer().map(|r| r.parent.as_str())
    }

    /// 1-based line of the link in its page, when known.
    #[getter]
    fn line(&self) -> Option<usize> {
        self.referrer().and_then(|r| r.line)
    }

    /// 1-based column (in characters) of the link in its page, when known.
    #[getter]
    fn column(&self) -> Option<usize> {
        self.referrer().and_then(|r| r.column)
    }

    /// The link text or alt text.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.referrer().map(|r| r.name.as_str())
    }

    /// `False` when the link is broken (an error status or a failure).
    #[getter]
    fn valid(&self) -> bool {
        !self.entry.result.outcome.is_broken()
    }

    /// The HTTP status, when there is one.
    #[getter]
    fn status(&self) -> Option<u16> {
        self.entry.result.outcome.status()
    }

    /// The verdict as the reports write it (`200 OK`, `404 Not Found`, `timeout: …`).
    #[getter]
    fn result(&self) -> String {
        self.entry.result.outcome.to_string()
    }

    /// `ok`, `broken` (an error status), `failed`, `blocked` (bot protection answered) or
    /// `ignored`.
    #[getter]
    fn state(&self) -> &'static str {
        self.entry.result.outcome.state_name()
    }

    /// The failure class of a broken link (`http-error`, `timeout`, `connect`, …), else `None`.
    #[getter]
    fn failure(&self) -> Option<&'static str> {
        FailureClass::of(&self.entry.result.outcome).map(FailureClass::name)
    }

    /// With `suggest=True`: the web archive's closest snapshot of this broken URL, if any.
    #[getter]
    fn suggestion(&self) -> Option<&str> {
        self.entry.result.suggestion.as_deref()
    }

    /// The warnings, as `(tag, message)` pairs.
    #[getter]
    fn warnings(&self) -> Vec<(&'static str, String)> {
        self.entry
            .warnings()
            .map(|w| (w.tag, w.message.clone()))
            .collect()
    }

    /// Informational remarks.
    #[getter]
    fn infos(&self) -> Vec<String> {
        self.entry.result.infos.clone()
    }

    /// The media type without parameters, when known.
    #[getter]
    fn content_type(&self) -> Option<&str> {
        self.entry.result.content_type.as_deref()
    }

    /// Body bytes read (or announced), when known.
    #[getter]
    fn size(&self) -> Option<u64> {
        self.entry.result.size
    }

    /// Seconds the whole check of the URL took (politeness waits excluded).
    #[getter]
    fn check_time(&self) -> f64 {
        self.entry.result.check_time.as_secs_f64()
    }

    /// Recursion level at which the URL was first found (start URLs are 0).
    #[getter]
    fn level(&self) -> usize {
        self.entry.result.level
    }

    /// `True` when the URL is inside the crawl's scope.
    #[getter]
    fn internal(&self) -> bool {
        self.entry.result.internal
    }

    /// `True` for every row of a URL after its first (the URL was not checked again).
    #[getter]
    fn cached(&self) -> bool {
        self.entry.cached
    }

    /// `True` when the result was reused from the state file (``cache_file``), not requested.
    #[getter(from_state)]
    fn reused_from_state(&self) -> bool {
        self.entry.result.cached_from.is_some()
    }

    /// The redirect chain, as `(url, status)` pairs.
    #[getter]
    fn redirects(&self) -> Vec<(String, u16)> {
        self.entry
            .result
            .redirects
            .iter()
            .map(|h| (h.url.to_string(), h.status))
            .collect()
    }

    /// The shard that checks this link, when this run (a shard's phase 1) exported it instead
    /// of checking it; `None` for a link this run checked.
    #[getter]
    fn exported_to(&self) -> Option<usize> {
        self.entry.result.exported_to
    }

    /// Every field, as the JSON and NDJSON reports write an entry.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &entry_json(&self.entry))
    }

    /// `Result(url='…', parent='…', line=3, result='404 Not Found')`, in Python's own
    /// notation (`None` for a start URL's parent and an unknown line).
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Result(url={}, parent={}, line={}, result={})",
            py_repr(py, self.entry.result.url.as_str())?,
            py_repr(py, self.parent())?,
            py_repr(py, self.line())?,
            py_repr(py, self.result())?,
        ))
    }
}

/// What a run found: every row (`results`), the summary numbers (`statistics`), and `write`
/// for every report format of the CLI.
#[pyclass(frozen, module = "linkpatrol", name = "Report")]
pub struct PyReport {
    pub(crate) report: Arc<linkpatrol::Report>,
}

#[pymethods]
impl PyReport {
    /// Every row, in the order they finished (a new list each time).
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self
            .report
            .entries
            .iter()
            .map(|e| PyResult_ { entry: e.clone() });
        PyList::new(py, rows)
    }

    /// The broken rows.
    #[getter]
    fn broken<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.report.broken().map(|e| PyResult_ { entry: e.clone() });
        PyList::new(py, rows)
    }

    /// The summary, as the JSON report writes it: `links`, `urls`, `errors`, `warnings`,
    /// `unchecked`, `interrupted`, `duration`, `broken_urls`, `bytes`, `content_types`,
    /// `url_lengths`, `insecure`, `hosts`.
    #[getter]
    fn statistics(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &summary_json(&self.report))
    }

    /// `True` when the run was cancelled (Ctrl-C, `cancel()`) before it finished.
    #[getter]
    fn interrupted(&self) -> bool {
        self.report.interrupted
    }

    /// The time limit in seconds (`max_run_time`) when it stopped the run (then
    /// `interrupted` is `True` too), else `None`.
    #[getter]
    fn time_limit_reached(&self) -> Option<f64> {
        self.report.time_limit_reached.map(|d| d.as_secs_f64())
    }

    /// The memory budget in bytes (`max_memory`) when it stopped the run from discovering
    /// URLs (the links to further URLs were only counted), else `None`.
    #[getter]
    fn memory_limit(&self) -> Option<usize> {
        self.report.memory_limit
    }

    /// Why the state file (`cache`, `cache_file`, `resume`) was not used or was set aside,
    /// one line each; the run went on without it.
    #[getter]
    fn state_warnings(&self) -> Vec<String> {
        self.report.state_warnings.clone()
    }

    /// Broken rows (one per page and link).
    #[getter]
    fn errors(&self) -> usize {
        self.report.errors()
    }

    /// Warnings over all rows.
    #[getter]
    fn warnings(&self) -> usize {
        self.report.warnings()
    }

    /// Rows that fail the run, as the CLI's exit status counts them: the broken ones (with a
    /// state file and `fail_after_runs`, those broken in that many runs in a row), and with
    /// `fail_on_blocked` the ones bot protection answered for.
    #[getter]
    fn failing(&self) -> usize {
        self.report.failing
    }

    /// Rows: link occurrences plus start URLs.
    #[getter]
    fn links(&self) -> usize {
        self.report.links()
    }

    /// Distinct URLs seen.
    #[getter]
    fn urls(&self) -> usize {
        self.report.urls
    }

    /// Seconds the run took.
    #[getter]
    fn duration(&self) -> f64 {
        self.report.duration.as_secs_f64()
    }

    fn __len__(&self) -> usize {
        self.report.entries.len()
    }

    /// Writes the report to `path` in `format` (one of `linkpatrol.FORMATS`, the names `-o`
    /// takes), as `-F FORMAT/PATH` would. With
    /// `verbose=False` (the CLI's default) the text, CSV, HTML, JSON and NDJSON reports list
    /// problems only; the other formats have a fixed scope.
    // The keyword arguments of the Python method, one parameter each.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (path, format = "text", *, verbose = false, csv_delimiter = ";", csv_bom = false, csv_raw = false))]
    fn write(
        &self,
        py: Python<'_>,
        path: PathBuf,
        format: &str,
        verbose: bool,
        csv_delimiter: &str,
        csv_bom: bool,
        csv_raw: bool,
    ) -> PyResult<()> {
        let format = Format::from_name(format).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            PyValueError::new_err(format!(
                "unknown report format `{format}' (one of: {})",
                names.join(", ")
            ))
        })?;
        let delimiter = match csv_delimiter.as_bytes() {
            [b] if b.is_ascii() => *b,
            _ => {
                return Err(PyValueError::new_err(
                    "csv_delimiter must be a single ASCII character",
                ));
            }
        };
        let options = ReportOptions {
            verbosity: if verbose {
                Verbosity::All
            } else {
                Verbosity::Problems
            },
            csv_delimiter: delimiter,
            csv_bom,
            csv_raw,
            ..ReportOptions::default()
        };
        let report = self.report.clone();
        py.detach(move || write_report(&report, format, &path, &options))
            .map_err(|e| os_error(&e, e.to_string()))
    }

    /// The report as NDJSON text listing every row (as `-o ndjson -v`), for `merge`.
    fn ndjson(&self, py: Python<'_>) -> PyResult<String> {
        let report = self.report.clone();
        let options = ReportOptions {
            verbosity: Verbosity::All,
            ..ReportOptions::default()
        };
        let bytes = py
            .detach(move || {
                let mut out = Vec::new();
                feed(&report, Format::Ndjson, &mut out, &options).map(|()| out)
            })
            .map_err(|e| os_error(&e, e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| PyOSError::new_err(e.to_string()))
    }

    /// The rows this run exported to other shards (phase 1 of a sharded check), as dicts for
    /// `Checker.run(..., found=...)` of phase 2.
    fn exported(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.report
            .entries
            .iter()
            .filter(|e| e.result.exported_to.is_some())
            .map(|e| to_py(py, &entry_json(e)))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(links={}, errors={}, warnings={}, urls={}, interrupted={})",
            self.report.links(),
            self.report.errors(),
            self.report.warnings(),
            self.report.urls,
            if self.report.interrupted {
                "True"
            } else {
                "False"
            }
        )
    }
}

/// `value` as Python's `repr` writes it.
fn py_repr<'py, T: IntoPyObject<'py>>(py: Python<'py>, value: T) -> PyResult<String> {
    Ok(value.into_bound_py_any(py)?.repr()?.to_string())
}

/// Feeds every entry of `report` to a reporter of `format` writing to `path`.
fn write_report(
    report: &linkpatrol::Report,
    format: Format,
    path: &std::path::Path,
    options: &ReportOptions,
) -> std::io::Result<()> {
    let file = linkpatrol::report::out_file::create_report_file(path).map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
    })?;
    let mut out = BufWriter::new(file);
    feed(report, format, &mut out, options)?;
    out.flush()
}

/// Feeds the entries this run checked (not those it exported to other shards) to a reporter
/// of `format` writing to `out`.
fn feed(
    report: &linkpatrol::Report,
    format: Format,
    out: &mut dyn Write,
    options: &ReportOptions,
) -> std::io::Result<()> {
    // Rows in a stable order (page, line, column), as the CLI writes them.
    let mut reporter = SortedReporter::new(reporter_for(format, Box::new(out), options));
    for entry in report
        .entries
        .iter()
        .filter(|e| e.result.exported_to.is_none())
    {
        reporter.entry(entry)?;
    }
    reporter.finish(report)
}
