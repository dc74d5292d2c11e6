//! Conversions between Python values and JSON (`serde_json::Value`), and of path arguments.
//! Every refusal is a `TypeError` or `ValueError` that names the argument and, inside it, the
//! JSON pointer of the offending value — never a panic across the FFI.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use std::path::PathBuf;

/// Nesting deeper than this is refused (a list that contains itself would recurse forever).
const MAX_DEPTH: usize = 256;

fn at(pointer: &str) -> String {
    if pointer.is_empty() {
        String::new()
    } else {
        format!(" (at {pointer})")
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A Python value as JSON: `None`, `bool`, `int`, finite `float`, `str`, `dict` with `str` keys,
/// `list` and `tuple`. Anything else is a `TypeError`; NaN, infinities, integers beyond 64 bits
/// and nesting beyond 256 levels are a `ValueError`.
pub fn to_json(arg: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let mut pointer = String::new();
    convert(arg, value, &mut pointer, 0)
}

fn convert(arg: &str, v: &Bound<'_, PyAny>, pointer: &mut String, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "argument `{arg}`: nested deeper than {MAX_DEPTH} levels{}",
            at(pointer)
        )));
    }
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = v.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(PyValueError::new_err(format!(
            "argument `{arg}`: the integer {} does not fit in 64 bits{}",
            v.str().map(|s| s.to_string()).unwrap_or_default(),
            at(pointer)
        )));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        let x = f.value();
        return Number::from_f64(x).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!(
                "argument `{arg}`: {x} is not a JSON number (NaN and infinities are not allowed){}",
                at(pointer)
            ))
        });
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, item) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "argument `{arg}`: a JSON object's keys are strings, not {}{}",
                    type_name(&k),
                    at(pointer)
                )));
            };
            let key = key.to_cow()?.into_owned();
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&escape(&key));
            let value = convert(arg, &item, pointer, depth + 1)?;
            pointer.truncate(len);
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in v.try_iter()?.enumerate() {
            let item = item?;
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&i.to_string());
            out.push(convert(arg, &item, pointer, depth + 1)?);
            pointer.truncate(len);
        }
        return Ok(Value::Array(out));
    }
    Err(PyTypeError::new_err(format!(
        "argument `{arg}`: a {} is not JSON-serialisable (use dict, list, str, int, float, bool or None){}",
        type_name(v),
        at(pointer)
    )))
}

/// A JSON object argument (`input`, `output`, …).
pub fn to_json_object(arg: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let v = to_json(arg, value)?;
    if v.is_object() {
        Ok(v)
    } else {
        Err(PyTypeError::new_err(format!(
            "argument `{arg}` must be a dict (a JSON object), not {}",
            type_name(value)
        )))
    }
}

/// JSON as Python values (objects keep their key order).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// The name of a value's type, for messages.
pub fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A path argument: `str` or `os.PathLike` (of `str`). Anything else is a `TypeError` naming
/// the argument.
pub fn to_path(arg: &str, value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(PathBuf::from(s.to_cow()?.as_ref()));
    }
    if value.is_instance_of::<PyBytes>() || !value.hasattr("__fspath__")? {
        return Err(PyTypeError::new_err(format!(
            "argument `{arg}` must be a path (str or os.PathLike), not {}",
            type_name(value)
        )));
    }
    let fspath = value.call_method0("__fspath__")?;
    match fspath.cast::<PyString>() {
        Ok(s) => Ok(PathBuf::from(s.to_cow()?.as_ref())),
        Err(_) => Err(PyTypeError::new_err(format!(
            "argument `{arg}`: its __fspath__ must return a str, not {}",
            type_name(&fspath)
        ))),
    }
}

/// One path or an iterable of paths.
pub fn to_paths(arg: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if value.cast::<PyString>().is_ok() || value.hasattr("__fspath__")? {
        return Ok(vec![to_path(arg, value)?]);
    }
    if value.is_instance_of::<PyBytes>() || value.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "argument `{arg}` must be a path or an iterable of paths, not {}",
            type_name(value)
        )));
    }
    let Ok(iter) = value.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "argument `{arg}` must be a path or an iterable of paths, not {}",
            type_name(value)
        )));
    };
    let mut out = Vec::new();
    for (i, item) in iter.enumerate() {
        out.push(to_path(&format!("{arg}[{i}]"), &item?)?);
    }
    Ok(out)
}

/// An optional `str` argument.
pub fn to_opt_str(arg: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => Ok(Some(to_str(arg, v)?)),
    }
}

/// A `str` argument.
pub fn to_str(arg: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "argument `{arg}` must be a str, not {}",
            type_name(value)
        ))),
    }
}
