//! Raw configuration values and pytest's `getini` conversions of them.
//!
//! pytest reads a value in one of two modes: "ini" mode (INI files, `-o`
//! overrides and `[tool.pytest.ini_options]`), where a value is a string or a
//! list, and "toml" mode (`[tool.pytest]`, `pytest.toml`), where it keeps its
//! native TOML type and must already have the registered type.

use toml::Value;

use crate::{python, shlex};

/// One configuration value as the config file gave it, before conversion.
#[derive(Debug, Clone, PartialEq)]
pub enum IniValue {
    /// An ini-mode string: every INI value (continuation lines joined with
    /// `\n`), every `-o` override, and the scalars of
    /// `[tool.pytest.ini_options]`, which pytest turns into strings with
    /// Python's `str()` (`true` becomes `"True"`).
    Text(String),
    /// An ini-mode list, from `[tool.pytest.ini_options]`; pytest keeps lists
    /// as they are, so the items keep their TOML types.
    List(Vec<Value>),
    /// A toml-mode value from `[tool.pytest]`, `pytest.toml`, `.pytest.toml` or a
    /// `[pytest]` table, with its native type.
    Native(Value),
}

impl IniValue {
    /// The value as pytest's `"args"` type: a string is split with Python's
    /// `shlex.split`, a list must hold strings. `name` is used in messages.
    pub fn as_args(&self, name: &str) -> Result<Vec<String>, String> {
        match self {
            IniValue::Text(text) => shlex::split(text).map_err(|e| e.message().to_owned()),
            IniValue::List(items) => string_items(name, items),
            IniValue::Native(value) => native_list(name, "args", value),
        }
    }

    /// The value as pytest's `"linelist"` type: a string is split on `\n`,
    /// each line stripped and empty lines dropped; a list must hold strings.
    pub fn as_linelist(&self, name: &str) -> Result<Vec<String>, String> {
        match self {
            IniValue::Text(text) => Ok(text
                .split('\n')
                .map(python::strip)
                .filter(|line| !line.is_empty())
                .map(str::to_owned)
                .collect()),
            IniValue::List(items) => string_items(name, items),
            IniValue::Native(value) => native_list(name, "linelist", value),
        }
    }

    /// The value as pytest's `"bool"` type: in ini mode one of `y yes t true
    /// on 1 n no f false off 0` (any case), in toml mode a TOML boolean.
    pub fn as_bool(&self, name: &str) -> Result<bool, String> {
        let text = match self {
            IniValue::Native(Value::Boolean(b)) => return Ok(*b),
            IniValue::Native(other) => {
                return Err(format!(
                    "config option '{name}' expects a bool, got {}: {}",
                    python::type_name(other),
                    python::repr_of_toml(other)
                ))
            }
            IniValue::Text(text) => text.clone(),
            IniValue::List(items) => python::repr_of_toml(&Value::Array(items.clone())),
        };
        match python::strip(&text).to_lowercase().as_str() {
            "y" | "yes" | "t" | "true" | "on" | "1" => Ok(true),
            "n" | "no" | "f" | "false" | "off" | "0" => Ok(false),
            other => Err(format!("invalid truth value {}", python::repr_str(other))),
        }
    }

    /// The value as pytest's `"string"` type.
    pub fn as_string(&self, name: &str) -> Result<String, String> {
        match self {
            IniValue::Text(text) | IniValue::Native(Value::String(text)) => Ok(text.clone()),
            IniValue::List(items) => Err(format!(
                "config option '{name}' expects a string, got list: {}",
                python::repr_of_toml(&Value::Array(items.clone()))
            )),
            IniValue::Native(other) => Err(format!(
                "config option '{name}' expects a string, got {}: {}",
                python::type_name(other),
                python::repr_of_toml(other)
            )),
        }
    }
}

fn string_items(name: &str, items: &[Value]) -> Result<Vec<String>, String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(format!(
                "config option '{name}' expects a list of strings, but item at index {i} is {}: {}",
                python::type_name(other),
                python::repr_of_toml(other)
            )),
        })
        .collect()
}

fn native_list(name: &str, kind: &str, value: &Value) -> Result<Vec<String>, String> {
    match value {
        Value::Array(items) => string_items(name, items),
        other => Err(format!(
            "config option '{name}' expects a list for type '{kind}', got {}: {}",
            python::type_name(other),
            python::repr_of_toml(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_in_each_mode() {
        assert_eq!(
            IniValue::Text("tests 'a b'".into()).as_args("testpaths"),
            Ok(vec!["tests".to_owned(), "a b".to_owned()])
        );
        assert_eq!(
            IniValue::List(vec![Value::String("a b".into())]).as_args("testpaths"),
            Ok(vec!["a b".to_owned()])
        );
        assert_eq!(
            IniValue::Native(Value::String("tests".into())).as_args("testpaths"),
            Err(
                "config option 'testpaths' expects a list for type 'args', got str: 'tests'"
                    .to_owned()
            )
        );
        assert_eq!(
            IniValue::Native(Value::Array(vec![Value::Integer(1)])).as_args("x"),
            Err(
                "config option 'x' expects a list of strings, but item at index 0 is int: 1"
                    .to_owned()
            )
        );
        assert_eq!(
            IniValue::Text("'open".into()).as_args("addopts"),
            Err("No closing quotation".to_owned())
        );
    }

    #[test]
    fn linelist_strips_and_drops_blank_lines() {
        assert_eq!(
            IniValue::Text("\n  slow: slow\n\n fast \n".into()).as_linelist("markers"),
            Ok(vec!["slow: slow".to_owned(), "fast".to_owned()])
        );
    }

    #[test]
    fn bools() {
        assert_eq!(IniValue::Text(" On ".into()).as_bool("x"), Ok(true));
        assert_eq!(IniValue::Text("False".into()).as_bool("x"), Ok(false));
        assert!(IniValue::Text("maybe".into()).as_bool("x").is_err());
        assert_eq!(
            IniValue::Native(Value::Boolean(true)).as_bool("x"),
            Ok(true)
        );
        assert!(IniValue::Native(Value::String("true".into()))
            .as_bool("x")
            .is_err());
    }
}
