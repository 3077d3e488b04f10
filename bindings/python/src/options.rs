//! Keyword options → `linkpatrol::Config`, through the library's one definition of the
//! options (`linkpatrol::options::CheckOptions`): a name is the long flag with `_` for `-`,
//! each value is handed to the flag's own parser as `--name=value`, and the library maps the
//! result to a `Config`, as for the command line. A value of the wrong type is a `TypeError`,
//! an unknown name or a bad value a `ValueError`, each naming the option.

use std::ffi::OsString;

use linkpatrol::options::{CheckOptions, Described, Kind};
use linkpatrol::{Config, Inputs};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The links another shard exported (`Result.to_dict()` of rows with `exported_to` set) that
/// `shard` owns, as found links: url, fragment, parent, urlname, line, column, name, base,
/// level.
pub fn found_links(
    shard: Option<linkpatrol::Shard>,
    rows: &Bound<'_, PyAny>,
) -> PyResult<Vec<linkpatrol::FoundLink>> {
    let mut out = Vec::new();
    for row in rows.try_iter()? {
        let row = row?;
        let row = row
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("found: each link is a dict (Result.to_dict())"))?;
        let text = |key: &str| -> PyResult<Option<String>> {
            match row.get_item(key)? {
                Some(v) if !v.is_none() => Ok(Some(v.extract()?)),
                _ => Ok(None),
            }
        };
        let number = |key: &str| -> PyResult<Option<usize>> {
            match row.get_item(key)? {
                Some(v) if !v.is_none() => Ok(Some(v.extract()?)),
                _ => Ok(None),
            }
        };
        let missing = |k: &str| PyValueError::new_err(format!("found: a link without `{k}'"));
        let url = text("url")?.ok_or_else(|| missing("url"))?;
        let parent = text("parent")?.ok_or_else(|| missing("parent"))?;
        let level = number("level")?.ok_or_else(|| missing("level"))?;
        let full = match text("fragment")? {
            Some(f) => format!("{url}#{f}"),
            None => url,
        };
        if let (Some(shard), Ok(parsed)) = (shard, url::Url::parse(&full))
            && !shard.owns(&parsed)
        {
            continue;
        }
        out.push(
            linkpatrol::FoundLink::new(full, parent, text("urlname")?.unwrap_or_default(), level)
                .at(number("line")?, number("column")?)
                .name(text("name")?.unwrap_or_default())
                .base(text("base")?),
        );
    }
    Ok(out)
}

/// The names `Checker(**options)` takes, in the order of their definition.
pub fn names() -> Vec<String> {
    CheckOptions::described()
        .iter()
        .map(|d| d.flag.replace('-', "_"))
        .collect()
}

/// The configuration `options` describe (no inputs yet), and how the inputs of each run are
/// read (the folder walk, `changed_since`): the library's `Inputs` without inputs.
pub fn config_from(options: Option<&Bound<'_, PyDict>>) -> PyResult<(Config, Inputs)> {
    let described = CheckOptions::described();
    let mut arguments: Vec<OsString> = Vec::new();
    for (key, value) in options.into_iter().flat_map(|d| d.iter()) {
        let name: String = key.extract()?;
        let Some(option) = described
            .iter()
            .find(|d| d.flag == name.replace('_', "-") && !name.contains('-'))
        else {
            return Err(PyValueError::new_err(format!(
                "unknown option `{name}' (options: {})",
                names().join(", ")
            )));
        };
        let v = Value {
            name: &name,
            value: &value,
        };
        // None leaves an option at its default (`recursion_level=None`: no limit).
        if value.is_none() {
            continue;
        }
        if option.kind == Kind::Switch {
            // A switch takes no value: named when true, left out when false.
            if v.switch()? {
                arguments.push(OsString::from(format!("--{}", option.flag)));
            }
            continue;
        }
        for text in v.arguments(option)? {
            let mut argument = OsString::from(format!("--{}=", option.flag));
            argument.push(text);
            arguments.push(argument);
        }
    }
    let parsed = CheckOptions::from_arguments(&arguments).map_err(|e| {
        let (flag, message) = CheckOptions::explain(&e);
        let name = flag.map_or_else(|| "?".to_owned(), |f| f.replace('-', "_"));
        PyValueError::new_err(format!("option `{name}': {message}"))
    })?;
    parsed.to_config(Config::new()).map_err(|e| {
        let message = format!("option `{}': {}", e.option.replace('-', "_"), e.message);
        match &e.io {
            Some(io) => crate::errors::os_error(io, message),
            None => PyValueError::new_err(message),
        }
    })
}

/// One option's name and value, with the conversions that name it in their errors.
struct Value<'a, 'py> {
    name: &'a str,
    value: &'a Bound<'py, PyAny>,
}

impl Value<'_, '_> {
    fn wrong_type(&self, wanted: &str) -> PyErr {
        let got = self
            .value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!("option `{}' takes {wanted}, not {got}", self.name))
    }

    fn switch(&self) -> PyResult<bool> {
        if self.value.is_instance_of::<PyBool>() {
            self.value.extract()
        } else {
            Err(self.wrong_type("a bool"))
        }
    }

    /// The value as the flag's values: one for most options, one per item for a repeatable
    /// option given a list or tuple, none for a switch that is off.
    fn arguments(&self, option: &Described) -> PyResult<Vec<OsString>> {
        let v = self.value;
        if option.repeats && (v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
            let mut out = Vec::new();
            for item in v.try_iter()? {
                let item = item?;
                if !item.is_instance_of::<PyString>() {
                    return Err(self.wrong_type("a str or a list of str"));
                }
                out.push(OsString::from(item.extract::<String>()?));
            }
            // `index_files=[]`: no names, not the default.
            if out.is_empty() && linkpatrol::options::empty_list_is_a_value(&option.flag) {
                out.push(OsString::new());
            }
            return Ok(out);
        }
        let is_bool = v.is_instance_of::<PyBool>();
        let is_int = v.is_instance_of::<PyInt>() && !is_bool;
        let is_number = is_int || v.is_instance_of::<PyFloat>();
        let text = match option.kind {
            Kind::Switch | Kind::Bool => self.switch()?.to_string(),
            Kind::Count if is_int => v.str()?.to_string(),
            Kind::Count => return Err(self.wrong_type("an int")),
            // Bytes, or a size as the flag takes it: `"512M"`.
            Kind::Size if is_int => v.str()?.to_string(),
            Kind::Size if v.is_instance_of::<PyString>() => v.extract()?,
            Kind::Size => return Err(self.wrong_type("an int or a size such as \"512M\"")),
            Kind::Number if is_number => v.str()?.to_string(),
            // Seconds may be written as the flag takes them: `"5s"`.
            Kind::Number if v.is_instance_of::<PyString>() => v.extract()?,
            Kind::Number => return Err(self.wrong_type("a number")),
            // Seconds, as the other durations in Python.
            Kind::Duration if is_number => {
                let secs: f64 = v.extract()?;
                if secs.fract() != 0.0 || !(0.0..=1e15).contains(&secs) {
                    return Err(PyValueError::new_err(format!(
                        "option `{}': {secs} is not a whole number of seconds >= 0",
                        self.name
                    )));
                }
                format!("{}s", secs as u64)
            }
            Kind::Duration if v.is_instance_of::<PyString>() => v.extract()?,
            Kind::Duration => return Err(self.wrong_type("a number of seconds")),
            Kind::Path => {
                let path: std::path::PathBuf = v
                    .extract()
                    .map_err(|_| self.wrong_type("a str or os.PathLike"))?;
                return Ok(vec![path.into_os_string()]);
            }
            Kind::Shard if v.is_instance_of::<PyTuple>() => {
                let (i, n): (i64, i64) = v
                    .extract()
                    .map_err(|_| self.wrong_type("\"I/N\" or a tuple (I, N)"))?;
                format!("{i}/{n}")
            }
            _ if v.is_instance_of::<PyString>() => v.extract()?,
            _ if option.repeats => return Err(self.wrong_type("a str or a list of str")),
            _ => return Err(self.wrong_type("a str")),
        };
        Ok(vec![OsString::from(text)])
    }
}
