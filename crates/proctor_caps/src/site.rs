//! Where an interpreter's packages are installed, read from the file system
//! without running it: a virtual environment's `pyvenv.cfg` and
//! `lib/pythonX.Y/site-packages`, or an installation's prefix. Static
//! commands use this (plugin options, installed modules) where starting
//! Python would cost more than the whole collection.

use std::path::{Path, PathBuf};

/// The directories that hold `interpreter`'s installed distributions, in
/// `sys.path` order: the environment's own site-packages, then, for a
/// virtual environment with `include-system-site-packages = true`, its base
/// installation's. Empty when none can be found.
#[must_use]
pub fn site_packages(interpreter: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(bin) = interpreter.parent() else { return out };
    let Some(prefix) = bin.parent() else { return out };
    let config = std::fs::read_to_string(prefix.join("pyvenv.cfg")).ok();
    let version = config.as_deref().and_then(|text| key(text, "version_info").or_else(|| key(text, "version")));
    out.extend(lib_site_dirs(prefix, version.as_deref()));
    match config.as_deref() {
        Some(text) => {
            let system = key(text, "include-system-site-packages").is_some_and(|v| v.eq_ignore_ascii_case("true"));
            if let (true, Some(home)) = (system, key(text, "home")) {
                if let Some(base) = Path::new(&home).parent() {
                    out.extend(lib_site_dirs(base, version.as_deref()));
                }
            }
        }
        None => {
            // Not a virtual environment: follow the link to the installation.
            if let Ok(real) = std::fs::canonicalize(interpreter) {
                if let Some(base) = real.parent().and_then(Path::parent).filter(|base| *base != prefix) {
                    out.extend(lib_site_dirs(base, None));
                }
            }
        }
    }
    out
}

/// The value of `key = value` in a `pyvenv.cfg`.
fn key(text: &str, wanted: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        (name.trim() == wanted).then(|| value.trim().to_owned())
    })
}

/// `prefix/lib/pythonX.Y/site-packages` (and Debian's `dist-packages`),
/// for the version given, else for every `python3*` directory there.
fn lib_site_dirs(prefix: &Path, version: Option<&str>) -> Vec<PathBuf> {
    let lib = prefix.join("lib");
    let mut names: Vec<String> = match version.and_then(|v| {
        let mut parts = v.split('.');
        Some(format!("python{}.{}", parts.next()?, parts.next()?))
    }) {
        Some(name) => vec![name],
        None => std::fs::read_dir(&lib)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.starts_with("python3"))
            .collect(),
    };
    names.sort();
    let mut out = Vec::new();
    for name in names {
        for leaf in ["site-packages", "dist-packages"] {
            let dir = lib.join(&name).join(leaf);
            if dir.is_dir() {
                out.push(dir);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_environment_and_its_base() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base");
        let venv = dir.path().join("venv");
        for d in [base.join("bin"), base.join("lib/python3.12/site-packages"), venv.join("bin"), venv.join("lib/python3.12/site-packages")] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cfg = format!("home = {}\ninclude-system-site-packages = false\nversion = 3.12.1\n", base.join("bin").display());
        std::fs::write(venv.join("pyvenv.cfg"), &cfg).unwrap();
        let python = venv.join("bin/python");
        assert_eq!(site_packages(&python), [venv.join("lib/python3.12/site-packages")]);
        std::fs::write(venv.join("pyvenv.cfg"), cfg.replace("= false", "= true")).unwrap();
        assert_eq!(
            site_packages(&python),
            [venv.join("lib/python3.12/site-packages"), base.join("lib/python3.12/site-packages")]
        );
        assert_eq!(site_packages(&base.join("bin/python3")), [base.join("lib/python3.12/site-packages")]);
        assert!(site_packages(Path::new("python")).is_empty());
    }
}
