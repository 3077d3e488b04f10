//! The `linkpatrol._linkpatrol` extension module: `Checker(**options)` with `run` and `iter`,
//! `check(*inputs, **options)`, and the `Report` and `Result` classes. The Python package
//! (`python/linkpatrol/`) re-exports them and adds `linkpatrol.dask`.
//!
//! The engine runs with the GIL released (`driver.rs`): other Python threads go on during a
//! crawl, and Ctrl-C cancels the run and returns what was finished.

mod driver;
mod errors;
mod json_py;
mod options;
mod results;

use std::sync::{Arc, Mutex, TryLockError};

use linkpatrol::{CancelHandle, Config, Entry, Input};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
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
#[doc = crate::options_doc!()]
#[pyclass(frozen, module = "linkpatrol", name = "Checker")]
struct PyChecker {
    config: Config,
    /// Shared by every run of this checker, so `cancel()` reaches the one going on.
    cancel: CancelHandle,
}

#[pymethods]
impl PyChecker {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyChecker {
            config: options::config_from(options)?,
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
        let mut drive = self.start(inputs, found, reuse)?;
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
        inputs: &Bound<'_, PyAny>,
        found: Option<&Bound<'_, PyAny>>,
        reuse: Option<&str>,
    ) -> PyResult<PyResults> {
        let drive = self.start(inputs, found, reuse)?;
        let cancel = drive.cancel_handle();
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
    fn start(
        &self,
        inputs: &Bound<'_, PyAny>,
        found: Option<&Bound<'_, PyAny>>,
        reuse: Option<&str>,
    ) -> PyResult<Drive> {
        let mut config = self.config.clone();
        for input in inputs_of(inputs)? {
            config = config.input(input);
        }
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
        Drive::start(checker)
    }
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

/// One start input: a URL (`http://`, `https://`, `file:`), else a path; or an iterable of
/// them.
fn inputs_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
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

fn one_input(value: &Bound<'_, PyAny>) -> PyResult<Option<Input>> {
    if value.is_instance_of::<PyString>() {
        let s: String = value.extract()?;
        let lower = s.trim_start().to_ascii_lowercase();
        let is_url = ["http://", "https://", "file:"]
            .iter()
            .any(|p| lower.starts_with(p));
        return Ok(Some(if is_url {
            Input::Url(s)
        } else {
            Input::Path(s.into())
        }));
    }
    // An os.PathLike (pathlib.Path): it has __fspath__.
    if value.hasattr("__fspath__")? {
        return Ok(Some(Input::Path(value.extract()?)));
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
    drive: Drive,
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
        match state.drive.next(py)? {
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
#[doc = crate::options_doc!()]
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
fn option_names() -> Vec<&'static str> {
    options::OPTIONS.to_vec()
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
