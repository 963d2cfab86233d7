//! What the target interpreter says about itself without being run:
//! `sys.version_info` (read from its files, see
//! [`crate::settings::PythonVersion`]) and the platform, which is the one
//! proctor runs on (`sys.platform`, `os.name`, `platform.system()`).

use crate::value::{ContainerKind, PyValue};

use super::ops::int_value;
use super::Evaluator;
use crate::project::Project;

/// The literal value of `expr` (see [`Project::eval_literal`]), and
/// whether anything it was computed from is a fact of the target
/// interpreter, however it is spelled (`from sys import platform`, a
/// module-level `IS_WINDOWS = sys.platform == "win32"`).
pub(crate) fn literal_reads_target<'a>(
    project: Project<'_, 'a>,
    module: usize,
    expr: &'a ruff_python_ast::Expr,
) -> (PyValue, bool) {
    let evaluator = Evaluator::literal(project);
    let value = evaluator.eval(module, expr);
    (value, evaluator.read_target.get())
}

/// `sys.platform` of an interpreter on this machine.
const SYS_PLATFORM: Option<&str> = if cfg!(target_os = "linux") {
    Some("linux")
} else if cfg!(target_os = "macos") {
    Some("darwin")
} else if cfg!(windows) {
    Some("win32")
} else {
    None
};

/// `platform.system()` on this machine.
const PLATFORM_SYSTEM: Option<&str> = if cfg!(target_os = "linux") {
    Some("Linux")
} else if cfg!(target_os = "macos") {
    Some("Darwin")
} else if cfg!(windows) {
    Some("Windows")
} else {
    None
};

const OS_NAME: &str = if cfg!(windows) { "nt" } else { "posix" };

impl Evaluator<'_, '_> {
    /// The value of a dotted name that the target interpreter decides
    /// (`sys.version_info`, `sys.platform`); `None` for any other name.
    pub(super) fn target_value(&self, path: &str) -> Option<PyValue> {
        let value = self.target_value_untainted(path)?;
        self.read_target.set(true);
        Some(value)
    }

    fn target_value_untainted(&self, path: &str) -> Option<PyValue> {
        let version = self.project.python_version();
        let no_version = || {
            PyValue::Unknown(
                "`sys.version_info` of the target interpreter, which proctor did not find"
                    .to_owned(),
            )
        };
        let micro = || match version.and_then(|v| v.micro) {
            Some(micro) => int_value(i128::from(micro)),
            None => PyValue::Unknown(
                "the target interpreter's micro version, which its files do not state".to_owned(),
            ),
        };
        let level = |serial: bool| match version.and_then(|v| v.level.as_ref()) {
            Some((_, n)) if serial => int_value(i128::from(*n)),
            Some((level, _)) => PyValue::str(level.clone()),
            None => PyValue::Unknown(
                "the target interpreter's release level, which its files do not state".to_owned(),
            ),
        };
        Some(match path {
            "sys.version_info" => match version {
                Some(v) => PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements: vec![
                        int_value(i128::from(v.major)),
                        int_value(i128::from(v.minor)),
                        micro(),
                        level(false),
                        level(true),
                    ]
                    .into(),
                },
                None => no_version(),
            },
            "sys.version_info.major" => {
                version.map_or_else(no_version, |v| int_value(v.major.into()))
            }
            "sys.version_info.minor" => {
                version.map_or_else(no_version, |v| int_value(v.minor.into()))
            }
            "sys.version_info.micro" => version.map_or_else(no_version, |_| micro()),
            "sys.version_info.releaselevel" => version.map_or_else(no_version, |_| level(false)),
            "sys.version_info.serial" => version.map_or_else(no_version, |_| level(true)),
            "sys.platform" => PyValue::str(SYS_PLATFORM?),
            "os.name" => PyValue::str(OS_NAME),
            // typing's special forms: pytest names them by `__name__`, which
            // they have from Python 3.10 on (bpo-44524).
            "typing.Any" | "typing.ClassVar" | "typing.Final" | "typing.Literal"
            | "typing.NoReturn" | "typing.Optional" | "typing.Union" => match version {
                Some(v) if (v.major, v.minor) >= (3, 10) => {
                    PyValue::Named(path["typing.".len()..].into())
                }
                Some(_) => PyValue::Unknown(format!(
                    "`{path}` before Python 3.10, which may have no `__name__`"
                )),
                None => no_version(),
            },
            _ => return None,
        })
    }

    /// The result of calling a dotted name that the target interpreter
    /// decides (`platform.system()`, `sys.platform.startswith("linux")`);
    /// `None` for any other call.
    pub(super) fn target_call(&self, path: &str, args: &super::expr::Args) -> Option<PyValue> {
        let no_args = args.positional.is_empty() && args.keywords.is_empty();
        match path {
            "platform.system" if no_args => {
                let system = PyValue::str(PLATFORM_SYSTEM?);
                self.read_target.set(true);
                return Some(system);
            }
            "platform.python_version_tuple" if no_args => {
                let v = self.project.python_version()?;
                self.read_target.set(true);
                let micro = v.micro?;
                return Some(PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements: [v.major, v.minor, micro]
                        .map(|n| PyValue::str(n.to_string()))
                        .to_vec()
                        .into(),
                });
            }
            _ => {}
        }
        // A method of a value the interpreter decides.
        let (base, method) = path.rsplit_once('.')?;
        let receiver = self.target_value(base)?;
        let callee = self.attribute_of(receiver, method);
        Some(self.call_value(&callee, args.positional.clone(), args.keywords.clone()))
    }
}
