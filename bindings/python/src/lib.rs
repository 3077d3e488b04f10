//! The `linkpatrol._linkpatrol` extension module: `Checker(**options)` with `run` and `iter`,
//! `check(*inputs, **options)`, and the `Report` and `Result` classes. The Python package
//! (`python/linkpatrol/`) re-exports them and adds `linkpatrol.dask`.
//!
//! The engine runs with the GIL released (`driver.rs`): other Python threads go on during a
//! crawl, and Ctrl-C cancels the run and returns what was finished.

mod driver;
mod errors;
mod json_py;
#[macro_use]
mod options_doc;
mod options;
mod results;

use std::sync::{Arc, Mutex, TryLockError};

use linkpatrol::{CancelHandle, Config, Entry, Inputs, Notice};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::driver::{Drive, Step};
use crate::errors::engine_error;
use crate::results::{PyReport, PyResult_};

/// A configured check: options once, then any number of runs over inputs.
///
/// ``Checker(**options)``; ``run(inputs)`` returns the whole ``Report``, ``iter(inputs)``
/// yields each ``Result`` as soon as it is known. A bad option raises ``TypeError`` (wrong
/// type) or ``ValueError`` (bad value, unknown name), naming it.
///
#[doc = options_doc!()]
#[pyclass(frozen, module = "linkpatrol", name = "Checker")]
struct PyChecker {
    config: Config,
    /// How each run's inputs are read (the folder walk, `changed_since`), without inputs.
    inputs: Inputs,
    /// Shared by every run of this checker, so `cancel()` reaches the one going on.
    cancel: CancelHandle,
}

#[pymethods]
impl PyChecker {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let (config, inputs) = options::config_from(options)?;
        Ok(PyChecker {
            config,
            inputs,
            cancel: CancelHandle::new(),
        })
    }

    /// Checks `inputs` (a URL, a path, or an iterable of them) to the end and returns the
    /// report. Ctrl-C stops the run: the report then holds what was finished, with
    /// `interrupted` set.
    #[pyo3(signature = (inputs, *, found = None, reuse = None))]
    fn run(
        &self,
        py: Python<'_>,
        inputs: &Bound<'_, PyAny>,
        found: Option<&Bound<'_, PyAny>>,
        reuse: Option<&str>,
    ) -> PyResult<PyReport> {
        let Some(mut drive) = self.start(py, inputs, found, reuse)? else {
            return Ok(finished(linkpatrol::Report::default(), Vec::new()));
        };
        let mut entries = Vec::new();
        loop {
            match drive.next(py)? {
                Some(Step::Entry(e)) => entries.push(e),
                Some(Step::Done(report)) => return Ok(finished(*report, entries)),
                None => return Err(PyRuntimeError::new_err("the run has already ended")),
            }
        }
    }

    /// Checks `inputs`, yielding each `Result` as soon as it is known, while the crawl goes
    /// on. The iterator's `report` holds the whole report once it is exhausted.
    #[pyo3(signature = (inputs, *, found = None, reuse = None))]
    fn iter(
        &self,
        py: Python<'_>,
        inputs: &Bound<'_, PyAny>,
        found: Option<&Bound<'_, PyAny>>,
        reuse: Option<&str>,
    ) -> PyResult<PyResults> {
        let drive = self.start(py, inputs, found, reuse)?;
        let cancel = drive
            .as_ref()
            .map_or_else(|| self.cancel.clone(), Drive::cancel_handle);
        Ok(PyResults {
            state: Mutex::new(IterState {
                drive,
                entries: Vec::new(),
            }),
            report: Mutex::new(None),
            cancel,
        })
    }

    /// Stops the run of this checker going on (from another thread); it returns what was
    /// finished. A cancel while no run is going on stops the next run at once.
    fn cancel(&self) {
        self.cancel.cancel();
    }
}

impl PyChecker {
    /// The run over `inputs`, read as the CLI reads them; `None` when `changed_since` finds no
    /// page touched (said as a warning): there is nothing to check.
    fn start(
        &self,
        py: Python<'_>,
        inputs: &Bound<'_, PyAny>,
        found: Option<&Bound<'_, PyAny>>,
        reuse: Option<&str>,
    ) -> PyResult<Option<Drive>> {
        let mut named = self.inputs.clone();
        for input in inputs_of(inputs)? {
            named = named.input(input);
        }
        let resolved = named.resolve(self.config.clone()).map_err(engine_error)?;
        // Warnings only: the notes (a folder read as an mdBook) are in the report's summary.
        for notice in &resolved.notices {
            if let Notice::Warning(text) = notice {
                warn(py, text)?;
            }
        }
        if resolved.nothing_changed {
            warn(
                py,
                "no Markdown or HTML file is touched by the changes: nothing to check",
            )?;
            return Ok(None);
        }
        let mut config = resolved.config;
        if let Some(found) = found {
            for link in options::found_links(config.sharding(), found)? {
                config = config.found_link(link);
            }
        }
        if let Some(text) = reuse {
            let earlier = linkpatrol::report::merge_ndjson([("reuse".to_owned(), text.as_bytes())])
                .map_err(engine_error)?;
            for entry in earlier.entries {
                config = config.reuse_result(entry.result);
            }
        }
        let checker = linkpatrol::Checker::new(config)
            .map_err(engine_error)?
            .with_cancel_handle(self.cancel.clone());
        Drive::start(py, checker).map(Some)
    }
}

/// A `UserWarning` with `text` (a note or warning about the inputs).
fn warn(py: Python<'_>, text: &str) -> PyResult<()> {
    let text = std::ffi::CString::new(text.replace('\0', "\u{fffd}"))
        .expect("no NUL byte is left in the text");
    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 2)
}

/// The report of a run, with the entries the bindings collected (the run keeps none itself),
/// each at its URL's settled level.
fn finished(mut report: linkpatrol::Report, mut entries: Vec<Entry>) -> PyReport {
    report.settle_levels(&mut entries);
    report.entries = entries;
    PyReport {
        report: Arc::new(report),
    }
}

/// The start inputs, as the CLI takes them: each a str (a URL, a path, a glob) or an
/// `os.PathLike`; one, or an iterable of them.
fn inputs_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Some(one) = one_input(value)? {
        return Ok(vec![one]);
    }
    let iter = value
        .try_iter()
        .map_err(|_| PyTypeError::new_err("inputs: give a URL, a path, or a list of them"))?;
    let mut out = Vec::new();
    for item in iter {
        let item = item?;
        out.push(one_input(&item)?.ok_or_else(|| {
            PyTypeError::new_err("inputs: each input is a str (URL or path) or an os.PathLike")
        })?);
    }
    Ok(out)
}

fn one_input(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if value.is_instance_of::<PyString>() {
        return Ok(Some(value.extract()?));
    }
    // An os.PathLike (pathlib.Path): it has __fspath__.
    if value.hasattr("__fspath__")? {
        let path: std::path::PathBuf = value.extract()?;
        let text = path.into_os_string().into_string().map_err(|p| {
            PyValueError::new_err(format!("inputs: {} is not UTF-8", p.to_string_lossy()))
        })?;
        return Ok(Some(text));
    }
    Ok(None)
}

/// The iterator `Checker.iter` returns.
#[pyclass(frozen, module = "linkpatrol", name = "Results")]
struct PyResults {
    /// Taken with `try_lock` only: one thread drains at a time (a second gets an error
    /// rather than waiting for the GIL the first one needs back).
    state: Mutex<IterState>,
    report: Mutex<Option<Py<PyReport>>>,
    cancel: CancelHandle,
}

struct IterState {
    /// `None` when there is nothing to check: the iterator yields nothing.
    drive: Option<Drive>,
    entries: Vec<Entry>,
}

#[pymethods]
impl PyResults {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyResult_>> {
        let mut state = match self.state.try_lock() {
            Ok(s) => s,
            Err(TryLockError::WouldBlock) => {
                return Err(PyRuntimeError::new_err(
                    "this iterator is being read by another thread",
                ));
            }
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        let Some(drive) = state.drive.as_mut() else {
            let report = Py::new(py, finished(linkpatrol::Report::default(), Vec::new()))?;
            *self.report.lock().unwrap_or_else(|p| p.into_inner()) = Some(report);
            return Ok(None);
        };
        match drive.next(py)? {
            Some(Step::Entry(e)) => {
                state.entries.push(e.clone());
                Ok(Some(PyResult_ { entry: e }))
            }
            Some(Step::Done(report)) => {
                let entries = std::mem::take(&mut state.entries);
                let report = Py::new(py, finished(*report, entries))?;
                *self.report.lock().unwrap_or_else(|p| p.into_inner()) = Some(report);
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// The whole report, once the iterator is exhausted; `None` before.
    #[getter]
    fn report(&self, py: Python<'_>) -> Option<Py<PyReport>> {
        self.report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|r| r.clone_ref(py))
    }

    /// Stops the run; the iterator then yields what was finished and ends.
    fn cancel(&self) {
        self.cancel.cancel();
    }
}

/// Checks ``inputs`` (URLs, paths) and returns the ``Report``: ``Checker(**options).run(inputs)``.
///
/// Ctrl-C stops the run and returns what was finished, with ``report.interrupted`` set. A
/// missing input path raises ``FileNotFoundError``; a bad option ``TypeError`` or
/// ``ValueError``, naming it.
///
#[doc = options_doc!()]
#[pyfunction]
#[pyo3(signature = (*inputs, **options))]
fn check(
    py: Python<'_>,
    inputs: &Bound<'_, PyTuple>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyReport> {
    let checker = PyChecker::new(options)?;
    checker.run(py, inputs.as_any(), None, None)
}

/// `merge(*ndjson)`: one report from NDJSON reports (`Report.ndjson()` of each shard's
/// phases, or the text of `-o ndjson -v` files), as one run over everything.
#[pyfunction]
#[pyo3(signature = (*reports))]
fn merge(py: Python<'_>, reports: Vec<String>) -> PyResult<PyReport> {
    let report = py
        .detach(|| {
            linkpatrol::report::merge_ndjson(
                reports
                    .iter()
                    .enumerate()
                    .map(|(i, text)| (format!("report {}", i + 1), text.as_bytes())),
            )
        })
        .map_err(engine_error)?;
    Ok(PyReport {
        report: Arc::new(report),
    })
}

/// The names `Checker(**options)` takes.
#[pyfunction]
fn option_names() -> Vec<String> {
    options::names()
}

#[pymodule]
fn _linkpatrol(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyChecker>()?;
    m.add_class::<PyResults>()?;
    m.add_class::<PyReport>()?;
    m.add_class::<PyResult_>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(option_names, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The names `Report.write(format=...)` takes: every report format of the command line.
    let formats: Vec<&str> = linkpatrol::report::Format::ALL
        .iter()
        .map(|f| f.name())
        .collect();
    m.add("FORMATS", PyTuple::new(m.py(), formats)?)?;
    Ok(())
}
