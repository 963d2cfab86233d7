//! Reading a report file: the extension picks the parser.

use std::path::Path;

use crate::error::ReportError;
use crate::model::Report;
use crate::{cobertura, json};

/// Reads the report at `path`: Cobertura XML when its name ends in `.xml`,
/// coverage.py's JSON otherwise.
pub fn read_report(path: &Path) -> Result<Report, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ReportError::Missing {
                path: path.to_owned(),
            }
        } else {
            ReportError::Read {
                path: path.to_owned(),
                source,
            }
        }
    })?;
    parse_report(path, &text)
}

/// Parses `text`, the contents of the report at `path` (which picks the
/// format and names the report in errors).
pub fn parse_report(path: &Path, text: &str) -> Result<Report, ReportError> {
    let is_xml = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("xml"));
    if is_xml {
        cobertura::parse(path, text)
    } else {
        json::parse(path, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_report_names_its_path() {
        let dir = std::env::temp_dir().join("proctor-coverage-surely-absent");
        let error = read_report(&dir.join("coverage.json")).unwrap_err();
        assert!(matches!(error, ReportError::Missing { .. }));
        assert!(
            error
                .to_string()
                .contains("proctor-coverage-surely-absent/coverage.json"),
            "{error}"
        );
        assert!(error.to_string().contains("does not exist"), "{error}");
    }

    #[test]
    fn the_extension_picks_the_format() {
        let xml = parse_report(Path::new("c.XML"), "<json/>").unwrap_err();
        assert!(xml.to_string().contains("Cobertura"), "{xml}");
        let json = parse_report(Path::new("c.txt"), "<coverage/>").unwrap_err();
        assert!(json.to_string().contains("malformed JSON"), "{json}");
    }
}
