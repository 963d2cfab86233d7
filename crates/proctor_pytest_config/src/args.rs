//! Reading pytest command-line arguments (`addopts`, `PYTEST_ADDOPTS`) the way
//! pytest's argparse parser does: which tokens are option values, which are
//! positional paths, and what the options that matter to proctor say.
//!
//! Only pytest's own options are known to pytest when it decides the rootdir,
//! so discovery uses that table alone. For [`Addopts`] a few common plugin
//! options that take a value (`-n auto`, `--reruns 3`) are known as well, so
//! that their values are not mistaken for paths, and so are the options the
//! suite's conftests and installed plugins declare
//! ([`crate::declared_options`]).

use crate::declared_options::{DeclaredArity, DeclaredOption};

/// The options in `addopts` and `PYTEST_ADDOPTS` that proctor acts on, in the
/// order pytest applies them (ini `addopts` first, then `PYTEST_ADDOPTS`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Addopts {
    /// `-m EXPR` (the last one wins).
    pub markexpr: Option<String>,
    /// `-k EXPR` (the last one wins).
    pub keyword: Option<String>,
    /// `--ignore PATH`, all of them.
    pub ignore: Vec<String>,
    /// `--ignore-glob GLOB`, all of them.
    pub ignore_glob: Vec<String>,
    /// `--deselect NODEID`, all of them.
    pub deselect: Vec<String>,
    /// `-p NAME`, all of them (`no:NAME` disables a plugin).
    pub plugins: Vec<String>,
    /// `--rootdir DIR`. In `addopts` it does not change the rootdir: pytest
    /// decides the rootdir before it reads `addopts`.
    pub rootdir: Option<String>,
    /// `--confcutdir DIR`.
    pub confcutdir: Option<String>,
    /// `-c`/`--config-file FILE`; like `rootdir`, too late to matter in
    /// `addopts`.
    pub config_file: Option<String>,
    /// `-o NAME=VALUE` overrides, plus the ones pytest synthesises for
    /// `--strict-markers`, `--strict-config` and `--strict`, in order.
    pub override_ini: Vec<String>,
    /// `--doctest-modules`.
    pub doctest_modules: bool,
    /// `--strict-markers`, or `--strict` (which implies it unless
    /// `strict_markers` is set).
    pub strict_markers: bool,
    /// Positional arguments: paths and node IDs.
    pub paths: Vec<String>,
    /// Every other token, in order, as written (an option and its separate
    /// value are two tokens).
    pub other: Vec<String>,
    /// Options no table knows that were given the next token as their value
    /// because that token is not an existing path (`--plugin-opt VALUE`):
    /// `(option, value)`, each worth a warning.
    pub guessed: Vec<(String, String)>,
}

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arity {
    Flag,
    One,
    /// argparse's `nargs="?"`: the next token if it is not an option.
    Optional,
    /// `nargs="*"`, `"+"` or `N`: the following tokens that are not options,
    /// at least `min`, at most `max`.
    Many {
        min: usize,
        max: Option<usize>,
    },
}

/// What an option means to proctor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Markexpr,
    Keyword,
    Ignore,
    IgnoreGlob,
    Deselect,
    Plugin,
    Rootdir,
    Confcutdir,
    ConfigFile,
    OverrideIni,
    DoctestModules,
    /// An `OverrideIniAction`: the flag adds `NAME=true` to the overrides.
    OverrideFlag(&'static str),
    Other,
}

struct OptSpec {
    names: &'static [&'static str],
    arity: Arity,
    target: Target,
}

const fn opt(names: &'static [&'static str], arity: Arity, target: Target) -> OptSpec {
    OptSpec {
        names,
        arity,
        target,
    }
}

/// pytest 9.2's own options that are not plain flags, and the flags that
/// matter. Flags not listed are unknown to this table, which for a flag makes
/// no difference except inside a cluster like `-vx` (all short flags are listed).
const CORE: &[OptSpec] = &[
    opt(&["-k"], Arity::One, Target::Keyword),
    opt(&["-m"], Arity::One, Target::Markexpr),
    opt(&["--ignore"], Arity::One, Target::Ignore),
    opt(&["--ignore-glob"], Arity::One, Target::IgnoreGlob),
    opt(&["--deselect"], Arity::One, Target::Deselect),
    opt(&["-p"], Arity::One, Target::Plugin),
    opt(&["--rootdir"], Arity::One, Target::Rootdir),
    opt(&["--confcutdir"], Arity::One, Target::Confcutdir),
    opt(&["-c", "--config-file"], Arity::One, Target::ConfigFile),
    opt(&["-o", "--override-ini"], Arity::One, Target::OverrideIni),
    opt(&["--doctest-modules"], Arity::Flag, Target::DoctestModules),
    opt(
        &["--strict-markers"],
        Arity::Flag,
        Target::OverrideFlag("strict_markers"),
    ),
    opt(
        &["--strict-config"],
        Arity::Flag,
        Target::OverrideFlag("strict_config"),
    ),
    opt(&["--strict"], Arity::Flag, Target::OverrideFlag("strict")),
    opt(
        &[
            "--maxfail",
            "-W",
            "--pythonwarnings",
            "--max-warnings",
            "--import-mode",
            "--basetemp",
            "--durations",
            "--durations-min",
            "--verbosity",
            "-r",
            "--report-chars",
            "--tb",
            "--show-capture",
            "--color",
            "--code-highlight",
            "--pdbcls",
            "--capture",
            "--pastebin",
            "--assert",
            "--junitxml",
            "--junit-xml",
            "--junitprefix",
            "--junit-prefix",
            "--doctest-report",
            "--doctest-glob",
            "--lfnf",
            "--last-failed-no-failures",
            "--log-level",
            "--log-format",
            "--log-date-format",
            "--log-cli-level",
            "--log-cli-format",
            "--log-cli-date-format",
            "--log-file",
            "--log-file-mode",
            "--log-file-level",
            "--log-file-format",
            "--log-file-date-format",
            "--log-auto-indent",
            "--log-disable",
        ],
        Arity::One,
        Target::Other,
    ),
    opt(&["--debug", "--cache-show"], Arity::Optional, Target::Other),
    opt(
        &["-x", "-v", "-q", "-l", "-s", "-V", "-h"],
        Arity::Flag,
        Target::Other,
    ),
];

/// Value-taking options of widely used plugins (xdist, rerunfailures, timeout,
/// randomly, random-order, cov, html, json-report, django, asyncio, repeat,
/// split, benchmark, hypothesis, socket, recording, syrupy, playwright,
/// metadata), known only when reading [`Addopts`]. Each list was read from
/// the plugin's `pytest_addoption`.
const PLUGINS: &[OptSpec] = &[
    opt(
        &[
            "-n",
            "--numprocesses",
            "--maxprocesses",
            "--dist",
            "--tx",
            "--rsyncdir",
            "--rsyncignore",
            "--max-worker-restart",
            "--maxschedchunk",
            "--reruns",
            "--reruns-delay",
            "--only-rerun",
            "--rerun-except",
            "--timeout",
            "--timeout-method",
            "--timeout_method",
            "--randomly-seed",
            "--random-order-seed",
            "--random-order-bucket",
            "--cov-report",
            "--cov-config",
            "--cov-fail-under",
            "--cov-context",
            "--html",
            "--css",
            "--json-report-file",
            "--json-report-indent",
            "--ds",
            "--dc",
            "--asyncio-mode",
            "--count",
            "--repeat-scope",
            "--splits",
            "--group",
            "--splitting-algorithm",
            "--durations-path",
            "--session-timeout",
            "--benchmark-sort",
            "--benchmark-group-by",
            "--benchmark-columns",
            "--benchmark-name",
            "--benchmark-storage",
            "--benchmark-min-time",
            "--benchmark-max-time",
            "--benchmark-min-rounds",
            "--benchmark-timer",
            "--benchmark-calibration-precision",
            "--benchmark-warmup-iterations",
            "--benchmark-save",
            "--benchmark-compare-fail",
            "--benchmark-cprofile",
            "--benchmark-time-unit",
            "--benchmark-json",
            "--hypothesis-profile",
            "--hypothesis-seed",
            "--hypothesis-verbosity",
            "--allow-hosts",
            "--record-mode",
            "--snapshot-default-extension",
            "--browser",
            "--browser-channel",
            "--base-url",
            "--metadata-from-json",
            "--liveserver",
        ],
        Arity::One,
        Target::Other,
    ),
    opt(
        &[
            "--cov",
            "--benchmark-histogram",
            "--benchmark-csv",
            "--benchmark-netrc",
            "--benchmark-warmup",
            "--benchmark-compare",
        ],
        Arity::Optional,
        Target::Other,
    ),
];

/// Which options are known while parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Known {
    /// pytest's own options: what pytest knows when it decides the rootdir.
    Core,
    /// pytest's and common plugins' options.
    WithPlugins,
}

/// An option found in a table: how many values it takes, what it means,
/// and its names for argparse's messages.
#[derive(Debug, Clone, Copy)]
struct Spec<'t> {
    arity: Arity,
    target: Target,
    label: &'t [String],
    names: &'static [&'static str],
}

impl Spec<'_> {
    fn label(&self) -> String {
        if self.label.is_empty() {
            self.names.join("/")
        } else {
            self.label.join("/")
        }
    }
}

/// The options known while parsing: a built-in table, and those the suite's
/// conftests and installed plugins declare.
#[derive(Clone, Copy)]
struct Options<'t> {
    known: Known,
    declared: &'t [DeclaredOption],
}

impl<'t> Options<'t> {
    fn find(self, name: &str) -> Option<Spec<'t>> {
        let tables: &[&[OptSpec]] = match self.known {
            Known::Core => &[CORE],
            Known::WithPlugins => &[CORE, PLUGINS],
        };
        if let Some(spec) = tables
            .iter()
            .flat_map(|table| table.iter())
            .find(|spec| spec.names.contains(&name))
        {
            return Some(Spec {
                arity: spec.arity,
                target: spec.target,
                label: &[],
                names: spec.names,
            });
        }
        let declared = self
            .declared
            .iter()
            .find(|option| option.names.iter().any(|n| n == name))?;
        let arity = match declared.arity {
            DeclaredArity::Flag => Arity::Flag,
            DeclaredArity::One => Arity::One,
            DeclaredArity::Optional => Arity::Optional,
            DeclaredArity::Many { min, max } => Arity::Many { min, max },
        };
        Some(Spec {
            arity,
            target: Target::Other,
            label: &declared.names,
            names: &[],
        })
    }
}

/// argparse's idea of whether a token is an option rather than a value.
fn looks_like_option(known: Options<'_>, token: &str) -> bool {
    if !token.starts_with('-') || token == "-" {
        return false;
    }
    if token == "--" || known.find(token).is_some() {
        return true;
    }
    if let Some((name, _)) = token.split_once('=') {
        if known.find(name).is_some() {
            return true;
        }
    }
    if !token.starts_with("--") && token.get(..2).and_then(|short| known.find(short)).is_some() {
        return true;
    }
    let negative_number = token[1..].chars().all(|c| c.is_ascii_digit() || c == '.')
        && token[1..].chars().any(|c| c.is_ascii_digit());
    !negative_number && !token.contains(' ')
}

/// Reads pytest command-line arguments (those `proctor run` passes after
/// `--`) as pytest's and common plugins' options: what they say, such as
/// their last `-m`. An option that lacks its value is an error with
/// argparse's message.
pub fn parse_pytest_args(tokens: &[String]) -> Result<Addopts, String> {
    parse(tokens, Known::WithPlugins)
}

/// Parses argument tokens like pytest's `parse_known_args`; an option that
/// lacks its value is an error with argparse's message.
pub(crate) fn parse(tokens: &[String], known: Known) -> Result<Addopts, String> {
    parse_guessing(tokens, known, &[], &|_| true)
}

/// [`parse`], with a last resort for options no table knows: with
/// [`Known::WithPlugins`], an unknown `--long-option` followed by a token that
/// is not an option and not an existing path (`exists`) takes that token as
/// its value, recorded in [`Addopts::guessed`]. Without it, a plugin's
/// `--columns min,mean` would make pytest's paths `min,mean` and collect
/// nothing.
pub(crate) fn parse_guessing(
    tokens: &[String],
    known: Known,
    declared: &[DeclaredOption],
    exists: &dyn Fn(&str) -> bool,
) -> Result<Addopts, String> {
    let guessing = known == Known::WithPlugins;
    let known = Options { known, declared };
    let mut out = Addopts::default();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
        if token == "--" {
            out.paths.extend(tokens[i..].iter().cloned());
            break;
        }
        if !looks_like_option(known, token) {
            out.paths.push(token.clone());
            continue;
        }
        // Exact name, `--name=value`, then a short option with its value or
        // more short flags attached.
        let (spec, name, mut explicit) = if let Some(spec) = known.find(token) {
            (spec, token.as_str(), None)
        } else if let Some(spec) = token
            .split_once('=')
            .and_then(|(name, value)| Some((known.find(name)?, name, value)))
            .map(|(spec, name, value)| (spec, name, Some(value.to_owned())))
        {
            spec
        } else if let Some((spec, short)) = (!token.starts_with("--"))
            .then(|| token.get(..2))
            .flatten()
            .and_then(|short| Some((known.find(short)?, short)))
        {
            (spec, short, Some(token[2..].to_owned()))
        } else {
            out.other.push(token.clone());
            let guess = guessing && token.starts_with("--") && !token.contains('=');
            if let Some(next) = tokens
                .get(i)
                .filter(|next| guess && !looks_like_option(known, next))
            {
                let path = next
                    .split_once("::")
                    .map_or(next.as_str(), |(path, _)| path);
                if !exists(path) {
                    out.other.push(next.clone());
                    out.guessed.push((token.clone(), next.clone()));
                    i += 1;
                }
            }
            continue;
        };

        let mut current = spec;
        let mut current_name = name.to_owned();
        let mut written = vec![token.clone()];
        loop {
            if current.arity == Arity::Flag {
                apply(&mut out, current.target, None, &written);
                written.clear();
                // `-vx`: the rest of a short cluster is more options.
                match explicit.take() {
                    None => break,
                    Some(rest) if !current_name.starts_with("--") && !rest.is_empty() => {
                        let mut chars = rest.chars();
                        let next = format!("-{}", chars.next().unwrap_or_default());
                        let Some(next_spec) = known.find(&next) else {
                            return Err(format!(
                                "argument {current_name}: ignored explicit argument '{rest}'"
                            ));
                        };
                        let remainder = chars.as_str();
                        current = next_spec;
                        current_name = next;
                        explicit = (!remainder.is_empty()).then(|| remainder.to_owned());
                    }
                    Some(rest) => {
                        return Err(format!(
                            "argument {current_name}: ignored explicit argument '{rest}'"
                        ));
                    }
                }
                continue;
            }
            if let Arity::Many { min, max } = current.arity {
                let mut values: Vec<String> = explicit.take().into_iter().collect();
                while max.is_none_or(|max| values.len() < max) {
                    match tokens.get(i) {
                        Some(next) if !looks_like_option(known, next) => {
                            i += 1;
                            written.push(next.clone());
                            values.push(next.clone());
                        }
                        _ => break,
                    }
                }
                if values.len() < min {
                    let what = if min == 1 {
                        "expected at least one argument".to_owned()
                    } else {
                        format!("expected {min} arguments")
                    };
                    return Err(format!("argument {}: {what}", spec.label()));
                }
                apply(&mut out, current.target, values.pop(), &written);
                break;
            }
            let value = match explicit.take() {
                Some(value) => Some(value),
                None => match tokens.get(i) {
                    Some(next) if !looks_like_option(known, next) => {
                        i += 1;
                        written.push(next.clone());
                        Some(next.clone())
                    }
                    _ if current.arity == Arity::Optional => None,
                    _ => return Err(format!("argument {}: expected one argument", spec.label())),
                },
            };
            apply(&mut out, current.target, value, &written);
            break;
        }
    }
    Ok(out)
}

fn apply(out: &mut Addopts, target: Target, value: Option<String>, written: &[String]) {
    match (target, value) {
        (Target::Markexpr, Some(v)) => out.markexpr = Some(v),
        (Target::Keyword, Some(v)) => out.keyword = Some(v),
        (Target::Ignore, Some(v)) => out.ignore.push(v),
        (Target::IgnoreGlob, Some(v)) => out.ignore_glob.push(v),
        (Target::Deselect, Some(v)) => out.deselect.push(v),
        (Target::Plugin, Some(v)) => out.plugins.push(v),
        (Target::Rootdir, Some(v)) => out.rootdir = Some(v),
        (Target::Confcutdir, Some(v)) => out.confcutdir = Some(v),
        (Target::ConfigFile, Some(v)) => out.config_file = Some(v),
        (Target::OverrideIni, Some(v)) => out.override_ini.push(v),
        (Target::DoctestModules, _) => out.doctest_modules = true,
        (Target::OverrideFlag(name), _) => {
            if name == "strict_markers" || name == "strict" {
                out.strict_markers = true;
            }
            out.override_ini.push(format!("{name}=true"));
        }
        _ => out.other.extend(written.iter().cloned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str, known: Known) -> Addopts {
        parse(&crate::shlex::split(s).unwrap(), known).unwrap()
    }

    #[test]
    fn options_that_matter() {
        let a = parse_str(
            "-ra -m 'not slow' -k=foo --ignore=a --ignore b --ignore-glob '*.x' -p no:cacheprovider -pxdist --strict-markers --doctest-modules --rootdir=r --confcutdir c -o x=1 --deselect t::a tests",
            Known::Core,
        );
        assert_eq!(a.markexpr.as_deref(), Some("not slow"));
        assert_eq!(a.keyword.as_deref(), Some("foo"));
        assert_eq!(a.ignore, ["a", "b"]);
        assert_eq!(a.ignore_glob, ["*.x"]);
        assert_eq!(a.plugins, ["no:cacheprovider", "xdist"]);
        assert!(a.strict_markers && a.doctest_modules);
        assert_eq!(a.rootdir.as_deref(), Some("r"));
        assert_eq!(a.confcutdir.as_deref(), Some("c"));
        assert_eq!(a.override_ini, ["strict_markers=true", "x=1"]);
        assert_eq!(a.deselect, ["t::a"]);
        assert_eq!(a.paths, ["tests"]);
        assert_eq!(a.other, ["-ra"]);
    }

    #[test]
    fn short_clusters_and_values() {
        let a = parse_str("-vxk expr -mfoo -W error -q", Known::Core);
        assert_eq!(a.keyword.as_deref(), Some("expr"));
        assert_eq!(a.markexpr.as_deref(), Some("foo"));
        assert_eq!(a.other, ["-vxk", "-W", "error", "-q"]);
        assert!(a.paths.is_empty());
    }

    #[test]
    fn unknown_options_leave_their_value_positional_like_argparse() {
        let a = parse_str("--reruns 3 -n auto --cov=src --cov t", Known::Core);
        assert_eq!(a.paths, ["3", "auto", "t"]);
        let a = parse_str("--reruns 3 -n auto --cov=src --cov t", Known::WithPlugins);
        assert_eq!(a.paths, Vec::<String>::new());
        assert_eq!(
            a.other,
            ["--reruns", "3", "-n", "auto", "--cov=src", "--cov", "t"]
        );
    }

    #[test]
    fn plugin_options_with_values_are_not_paths() {
        let a = parse_str(
            "--benchmark-columns min,mean --timeout 30 --cov-report term -ra tests",
            Known::WithPlugins,
        );
        assert_eq!(a.paths, ["tests"]);
        assert!(a.guessed.is_empty());
    }

    #[test]
    fn unknown_options_take_a_value_that_is_not_a_path() {
        let tokens =
            crate::shlex::split("--unheard-of min,mean --other-flag tests --last").unwrap();
        let a = parse_guessing(&tokens, Known::WithPlugins, &[], &|path| path == "tests").unwrap();
        assert_eq!(a.paths, ["tests"]);
        assert_eq!(
            a.guessed,
            [("--unheard-of".to_owned(), "min,mean".to_owned())]
        );
        assert_eq!(
            a.other,
            ["--unheard-of", "min,mean", "--other-flag", "--last"]
        );
        // pytest's own table alone (rootdir discovery) never guesses.
        let a = parse_guessing(&tokens, Known::Core, &[], &|path| path == "tests").unwrap();
        assert_eq!(a.paths, ["min,mean", "tests"]);
    }

    #[test]
    fn declared_options_take_their_values() {
        let declared = crate::declared_options::scan(
            "p.addoption('--stages', nargs='+')\np.addoption('--fast', action='store_true')\np.addoption('--pair', nargs=2)",
        );
        let tokens = crate::shlex::split("--stages one two --fast tests --pair a b more").unwrap();
        let a = parse_guessing(&tokens, Known::WithPlugins, &declared, &|_| false).unwrap();
        assert_eq!(a.paths, ["tests", "more"]);
        assert!(a.guessed.is_empty());
        let tokens = crate::shlex::split("--pair a").unwrap();
        assert_eq!(
            parse_guessing(&tokens, Known::WithPlugins, &declared, &|_| false),
            Err("argument --pair: expected 2 arguments".to_owned())
        );
    }

    #[test]
    fn double_dash_and_negative_numbers() {
        let a = parse_str("--maxfail -1 -- -odd", Known::Core);
        assert_eq!(a.other, ["--maxfail", "-1"]);
        assert_eq!(a.paths, ["-odd"]);
    }

    #[test]
    fn missing_values_are_errors() {
        let tokens = crate::shlex::split("-m").unwrap();
        assert_eq!(
            parse(&tokens, Known::Core),
            Err("argument -m: expected one argument".to_owned())
        );
        let tokens = crate::shlex::split("--rootdir --strict").unwrap();
        assert!(parse(&tokens, Known::Core).is_err());
    }
}
