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
    let Some(bin) = interpreter.parent() else {
        return out;
    };
    let Some(prefix) = bin.parent() else {
        return out;
    };
    let config = std::fs::read_to_string(prefix.join("pyvenv.cfg")).ok();
    let version = config
        .as_deref()
        .and_then(|text| key(text, "version_info").or_else(|| key(text, "version")));
    out.extend(lib_site_dirs(prefix, version.as_deref()));
    match config.as_deref() {
        Some(text) => {
            let system = key(text, "include-system-site-packages")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            if let (true, Some(home)) = (system, key(text, "home")) {
                if let Some(base) = Path::new(&home).parent() {
                    out.extend(lib_site_dirs(base, version.as_deref()));
                }
            }
        }
        None => {
            // Not a virtual environment: follow the link to the installation.
            if let Ok(real) = std::fs::canonicalize(interpreter) {
                if let Some(base) = real
                    .parent()
                    .and_then(Path::parent)
                    .filter(|base| *base != prefix)
                {
                    out.extend(lib_site_dirs(base, None));
                }
            }
        }
    }
    out
}

/// The directories `interpreter` imports from, in `sys.path` order without
/// running it: the directories of `PYTHONPATH` (which pytest, started by
/// proctor, inherits), its standard library (`lib/pythonX.Y` and
/// `lib-dynload`), its site-packages, and the directories their `.pth`
/// files add. `None` when the standard library cannot be found, so that a
/// caller never concludes a module is missing from a partial picture.
#[must_use]
pub fn module_search_path(interpreter: &Path) -> Option<Vec<PathBuf>> {
    search_path(interpreter, std::env::var_os("PYTHONPATH").as_deref())
}

/// [`module_search_path`] with `PYTHONPATH` given.
fn search_path(interpreter: &Path, pythonpath: Option<&std::ffi::OsStr>) -> Option<Vec<PathBuf>> {
    let site = site_packages(interpreter);
    let prefix = interpreter.parent()?.parent()?;
    let config = std::fs::read_to_string(prefix.join("pyvenv.cfg")).ok();
    let base = match config.as_deref().and_then(|text| key(text, "home")) {
        Some(home) => Path::new(&home).parent()?.to_path_buf(),
        None => std::fs::canonicalize(interpreter)
            .ok()?
            .parent()?
            .parent()?
            .to_path_buf(),
    };
    let version = site
        .first()
        .and_then(|dir| dir.parent())
        .and_then(|lib| lib.file_name())
        .map(|name| name.to_string_lossy().into_owned())?;
    let stdlib = base.join("lib").join(&version);
    if !stdlib.join("os.py").is_file() {
        return None;
    }
    // Empty entries of `PYTHONPATH` are the current directory, which the
    // suite's own directories already account for.
    let mut out: Vec<PathBuf> = pythonpath
        .map(|p| {
            std::env::split_paths(p)
                .filter(|d| !d.as_os_str().is_empty() && d.is_dir())
                .collect()
        })
        .unwrap_or_default();
    out.extend([stdlib.clone(), stdlib.join("lib-dynload")]);
    for dir in &site {
        out.push(dir.clone());
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut pth: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "pth"))
            .collect();
        pth.sort();
        for file in pth {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for line in text.lines().map(str::trim) {
                if line.is_empty()
                    || line.starts_with('#')
                    || line.starts_with("import ")
                    || line.starts_with("import\t")
                {
                    continue;
                }
                let added = dir.join(line);
                if added.is_dir() {
                    out.push(added);
                }
            }
        }
    }
    Some(out)
}

/// The interpreter's version as its files state it, without running it:
/// `version_info` or `version` of a virtual environment's `pyvenv.cfg`
/// (`3.12.1`, `3.13.0rc2`), else `PY_VERSION` of its installation's
/// `include/pythonX.Y/patchlevel.h`, else only `X.Y` from its
/// `lib/pythonX.Y` directory. `None` when none of them is found.
#[must_use]
pub fn interpreter_version(interpreter: &Path) -> Option<String> {
    let prefix = interpreter.parent()?.parent()?;
    let config = std::fs::read_to_string(prefix.join("pyvenv.cfg")).ok();
    if let Some(version) = config
        .as_deref()
        .and_then(|text| key(text, "version_info").or_else(|| key(text, "version")))
    {
        return Some(version);
    }
    let base = match config.as_deref().and_then(|text| key(text, "home")) {
        Some(home) => Path::new(&home).parent()?.to_path_buf(),
        None => std::fs::canonicalize(interpreter)
            .ok()?
            .parent()?
            .parent()?
            .to_path_buf(),
    };
    let lib = site_packages(interpreter)
        .first()
        .and_then(|dir| dir.parent())
        .and_then(|lib| lib.file_name())
        .map(|name| name.to_string_lossy().into_owned())?;
    let short = lib.strip_prefix("python")?.to_owned();
    let header = std::fs::read_to_string(base.join("include").join(&lib).join("patchlevel.h"));
    let full = header.ok().and_then(|text| {
        text.lines().find_map(|line| {
            let rest = line.trim().strip_prefix("#define")?.trim_start();
            let value = rest.strip_prefix("PY_VERSION")?;
            value
                .starts_with([' ', '\t'])
                .then(|| value.trim().trim_matches('"').to_owned())
        })
    });
    // The header of another installation of the same X.Y is not this one's.
    Some(
        full.filter(|v| v.starts_with(&format!("{short}.")))
            .unwrap_or(short),
    )
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
        for d in [
            base.join("bin"),
            base.join("lib/python3.12/site-packages"),
            venv.join("bin"),
            venv.join("lib/python3.12/site-packages"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cfg = format!(
            "home = {}\ninclude-system-site-packages = false\nversion = 3.12.1\n",
            base.join("bin").display()
        );
        std::fs::write(venv.join("pyvenv.cfg"), &cfg).unwrap();
        let python = venv.join("bin/python");
        assert_eq!(
            site_packages(&python),
            [venv.join("lib/python3.12/site-packages")]
        );
        std::fs::write(venv.join("pyvenv.cfg"), cfg.replace("= false", "= true")).unwrap();
        assert_eq!(
            site_packages(&python),
            [
                venv.join("lib/python3.12/site-packages"),
                base.join("lib/python3.12/site-packages")
            ]
        );
        assert_eq!(
            site_packages(&base.join("bin/python3")),
            [base.join("lib/python3.12/site-packages")]
        );
        assert!(site_packages(Path::new("python")).is_empty());
    }

    #[test]
    fn the_version_from_pyvenv_cfg_or_the_installation() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base");
        let venv = dir.path().join("venv");
        for d in [
            base.join("bin"),
            base.join("lib/python3.12/site-packages"),
            base.join("include/python3.12"),
            venv.join("bin"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cfg = format!("home = {}\nversion = 3.12.1\n", base.join("bin").display());
        std::fs::write(venv.join("pyvenv.cfg"), cfg).unwrap();
        assert_eq!(
            interpreter_version(&venv.join("bin/python")).as_deref(),
            Some("3.12.1")
        );
        let python = base.join("bin/python3");
        std::fs::write(&python, "").unwrap();
        assert_eq!(interpreter_version(&python).as_deref(), Some("3.12"));
        std::fs::write(
            base.join("include/python3.12/patchlevel.h"),
            "#define PY_VERSION_HEX 0\n#define PY_VERSION              \"3.12.4\"\n",
        )
        .unwrap();
        assert_eq!(interpreter_version(&python).as_deref(), Some("3.12.4"));
        assert_eq!(interpreter_version(Path::new("python")), None);
    }

    #[test]
    fn pythonpath_comes_first_in_the_search_path() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base");
        let extra = dir.path().join("extra");
        for d in [
            base.join("bin"),
            base.join("lib/python3.12/site-packages"),
            base.join("lib/python3.12/lib-dynload"),
            extra.clone(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(base.join("lib/python3.12/os.py"), "").unwrap();
        let python = base.join("bin/python3");
        std::fs::write(&python, "").unwrap();
        let stdlib = base.join("lib/python3.12");
        let plain = vec![
            stdlib.clone(),
            stdlib.join("lib-dynload"),
            stdlib.join("site-packages"),
        ];
        assert_eq!(search_path(&python, None), Some(plain.clone()));
        let pythonpath =
            std::env::join_paths([extra.clone(), PathBuf::new(), dir.path().join("missing")])
                .unwrap();
        let mut with_extra = vec![extra];
        with_extra.extend(plain);
        assert_eq!(search_path(&python, Some(&pythonpath)), Some(with_extra));
    }
}
