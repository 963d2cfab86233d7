//! Parsing pytest's TOML files with positions: `toml_edit` (the parser behind
//! `toml` 0.8) keeps the spans of keys and table headers, which `tomllib`
//! does not, and its values are converted to [`toml::Value`] for the rest of
//! the crate.

use std::fmt;

use toml::Value;
use toml_edit::{ImDocument, Item, TableLike};

use crate::error::{ConfigError, ConfigLocation};
use crate::source::ConfigFile;

/// One step of a [`KeyPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySegment {
    /// A table key.
    Key(String),
    /// An index into an array or an array of tables.
    Index(usize),
}

/// Where in the options a problem is, relative to proctor's table: a key
/// path such as `axes.tier.markers[2]`. The loader turns it into a line and
/// column: a value's position, or a table's key when the path ends at a table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<KeySegment>);

impl KeyPath {
    #[must_use]
    pub fn key(mut self, key: &str) -> KeyPath {
        self.0.push(KeySegment::Key(key.to_owned()));
        self
    }

    #[must_use]
    pub fn index(mut self, index: usize) -> KeyPath {
        self.0.push(KeySegment::Index(index));
        self
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                KeySegment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    let bare = !key.is_empty()
                        && key
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    if bare {
                        f.write_str(key)?;
                    } else {
                        write!(f, "{key:?}")?;
                    }
                }
                KeySegment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A parsed TOML document borrowing its source.
pub struct TomlDoc<'a> {
    pub source: &'a ConfigFile,
    pub doc: ImDocument<&'a str>,
}

impl<'a> TomlDoc<'a> {
    /// Parses a file as `tomllib` would, reporting syntax errors with their
    /// position.
    pub fn parse(source: &'a ConfigFile) -> Result<TomlDoc<'a>, ConfigError> {
        if source.text().starts_with('\u{feff}') {
            // `tomllib` reads the byte order mark as a character and rejects it.
            return Err(source.error_at(0, "invalid statement: a byte order mark is not allowed"));
        }
        match ImDocument::parse(source.text()) {
            Ok(doc) => Ok(TomlDoc { source, doc }),
            Err(err) => {
                let offset = err.span().map_or(0, |span| span.start);
                let message = err.message().trim_end().replace('\n', "; ");
                Err(source.error_at(offset, format!("invalid TOML: {message}")))
            }
        }
    }

    /// The root table.
    #[must_use]
    pub fn root(&self) -> &dyn TableLike {
        self.doc.as_table()
    }

    /// The position of `key` in `table`, or of the table when the key has no
    /// span, or `1:1`.
    #[must_use]
    pub fn key_location(&self, table: &dyn TableLike, key: &str) -> ConfigLocation {
        table
            .key(key)
            .and_then(toml_edit::Key::span)
            .map_or(ConfigLocation::START, |span| {
                self.source.location(span.start)
            })
    }

    /// The position of a table's header (`[tool.pytest]`), falling back to
    /// its first key and then to `1:1`.
    #[must_use]
    pub fn table_location(&self, item: &Item) -> ConfigLocation {
        if let Some(span) = item.span() {
            return self.source.location(span.start);
        }
        if let Some(table) = item.as_table_like() {
            if let Some((key, _)) = table.iter().next() {
                return self.key_location(table, key);
            }
        }
        ConfigLocation::START
    }

    /// The position of the value at `prefix` + `path` (an array element, a
    /// string), or of the key that names it when it is a table; when the
    /// path does not resolve all the way, the deepest position found.
    #[must_use]
    pub fn locate(&self, prefix: &[&str], path: &KeyPath) -> ConfigLocation {
        let segments = prefix
            .iter()
            .map(|key| KeySegment::Key((*key).to_owned()))
            .chain(path.0.iter().cloned());
        let mut node = Node::Item(self.doc.as_item());
        let mut location = ConfigLocation::START;
        for segment in segments {
            let next = match &segment {
                KeySegment::Key(key) => node.table_like().and_then(|table| {
                    let item = table.get(key)?;
                    location = self.key_location(table, key);
                    Some(Node::Item(item))
                }),
                KeySegment::Index(index) => node.element(*index),
            };
            let Some(next) = next else {
                return location;
            };
            node = next;
            if let Some(start) = node.value_start() {
                location = self.source.location(start);
            }
        }
        location
    }

    /// An error at `location`, with the source line as excerpt.
    #[must_use]
    pub fn error(&self, location: ConfigLocation, message: impl Into<String>) -> ConfigError {
        self.source.error_at_location(location, message)
    }
}

/// A step of [`TomlDoc::locate`]: table items, array elements and the tables
/// of an array of tables are three different types in `toml_edit`.
#[derive(Clone, Copy)]
enum Node<'d> {
    Item(&'d Item),
    Value(&'d toml_edit::Value),
    Table(&'d toml_edit::Table),
}

impl<'d> Node<'d> {
    fn table_like(self) -> Option<&'d dyn TableLike> {
        match self {
            Node::Item(item) => item.as_table_like(),
            Node::Value(value) => value.as_inline_table().map(|table| table as &dyn TableLike),
            Node::Table(table) => Some(table as &dyn TableLike),
        }
    }

    fn element(self, index: usize) -> Option<Node<'d>> {
        match self {
            Node::Item(Item::ArrayOfTables(array)) => array.get(index).map(Node::Table),
            Node::Item(Item::Value(toml_edit::Value::Array(array)))
            | Node::Value(toml_edit::Value::Array(array)) => array.get(index).map(Node::Value),
            _ => None,
        }
    }

    /// Where a plain value starts; `None` for tables, which are located by
    /// their key.
    fn value_start(self) -> Option<usize> {
        let (Node::Item(Item::Value(value)) | Node::Value(value)) = self else {
            return None;
        };
        if value.is_inline_table() {
            return None;
        }
        value.span().map(|span| span.start)
    }
}

/// Converts a `toml_edit` item to the value `tomllib` would produce; `None`
/// for an empty item.
#[must_use]
pub fn to_value(item: &Item) -> Option<Value> {
    match item {
        Item::None => None,
        Item::Value(value) => Some(value_to_value(value)),
        Item::Table(table) => Some(Value::Table(table_to_map(table))),
        Item::ArrayOfTables(array) => Some(Value::Array(
            array
                .iter()
                .map(|table| Value::Table(table_to_map(table)))
                .collect(),
        )),
    }
}

fn table_to_map(table: &dyn TableLike) -> toml::Table {
    table
        .iter()
        .filter_map(|(key, item)| Some((key.to_owned(), to_value(item)?)))
        .collect()
}

fn value_to_value(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::Integer(*i.value()),
        toml_edit::Value::Float(f) => Value::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Value::Boolean(*b.value()),
        toml_edit::Value::Datetime(d) => Value::Datetime(*d.value()),
        toml_edit::Value::Array(array) => Value::Array(array.iter().map(value_to_value).collect()),
        toml_edit::Value::InlineTable(table) => Value::Table(table_to_map(table)),
    }
}

/// Whether an item is a table (`dict` in `tomllib`'s result).
#[must_use]
pub fn is_table(item: &Item) -> bool {
    item.as_table_like().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_have_positions() {
        let source = ConfigFile::new(
            std::path::Path::new("pyproject.toml"),
            "[tool.pytest]\nx = [1,\ny = 2\n",
        );
        let error = TomlDoc::parse(&source).err().unwrap();
        assert_eq!(error.line, 3);
        assert!(
            error.message.starts_with("invalid TOML"),
            "{}",
            error.message
        );
        assert_eq!(error.excerpt.as_deref(), Some("y = 2"));
    }

    #[test]
    fn byte_order_mark_is_rejected_like_tomllib() {
        let source = ConfigFile::new(std::path::Path::new("pyproject.toml"), "\u{feff}a = 1\n");
        assert!(TomlDoc::parse(&source).is_err());
    }

    #[test]
    fn header_and_key_locations() {
        let source = ConfigFile::new(
            std::path::Path::new("p"),
            "a = 1\n\n[tool.pytest.ini_options]\n  testpaths = []\n",
        );
        let doc = TomlDoc::parse(&source).unwrap();
        let tool = doc.root().get("tool").unwrap();
        let pytest = tool.as_table_like().unwrap().get("pytest").unwrap();
        let ini = pytest.as_table_like().unwrap().get("ini_options").unwrap();
        assert_eq!(
            doc.table_location(ini),
            ConfigLocation { line: 3, column: 1 }
        );
        assert_eq!(
            doc.key_location(ini.as_table_like().unwrap(), "testpaths"),
            ConfigLocation { line: 4, column: 3 }
        );
        assert_eq!(
            to_value(ini),
            Some(Value::Table(toml::from_str("testpaths = []").unwrap()))
        );
    }
}
