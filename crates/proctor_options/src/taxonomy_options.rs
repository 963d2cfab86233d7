//! The taxonomy part of proctor's options: marker axes (`[axes.<name>]`),
//! marker rules (`[markers.<name>]`) and path rules (`[[paths]]`).
//!
//! This module owns every rule about what a *valid* taxonomy is
//! ([`TaxonomyOptions::problems`]); the loader turns each problem into an
//! error at its line and column, and `proctor_taxonomy` reuses the same
//! check for options built in code. Applying the taxonomy to test items is
//! `proctor_taxonomy`'s job.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use proctor_config_file::KeyPath;
use schemars::JsonSchema;
use serde::Deserialize;

/// The taxonomy: axes, marker rules and path rules, in file order.
///
/// ```toml
/// [axes.tier]
/// markers = ["unit", "integration", "e2e"]
/// cardinality = "exactly-one"
/// default = "unit"
///
/// [markers.llm]
/// alias-of = "e2e"
/// deprecated = true
///
/// [[paths]]
/// glob = "tests/integration/**"
/// markers = ["integration"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaxonomyOptions {
    /// `[axes.<name>]` tables, in file order.
    pub axes: Vec<(String, AxisOptions)>,
    /// `[markers.<name>]` tables, in file order.
    pub markers: Vec<(String, MarkerOptions)>,
    /// `[[paths]]` entries, in file order.
    pub paths: Vec<PathRuleOptions>,
    /// `[decorators]`: the dotted path of a decorator that is not a pytest
    /// mark (`"transformers.testing_utils.slow"`) → the marker it stands for.
    pub decorators: Vec<(String, String)>,
}

/// A family of markers (`[axes.<name>]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AxisOptions {
    /// The markers of the axis (`markers`, required, at least one).
    pub markers: Vec<String>,
    /// How many markers of the axis an item may carry (`cardinality`,
    /// default `any`).
    #[serde(default)]
    pub cardinality: Cardinality,
    /// The marker added to items that carry none of the axis (`default`).
    #[serde(default)]
    pub default: Option<String>,
    /// Whether writing the default explicitly is allowed (`write-default`,
    /// default `true`; only meaningful with a `default`).
    #[serde(default)]
    pub write_default: Option<bool>,
}

impl AxisOptions {
    /// Whether writing the default marker explicitly is allowed.
    #[must_use]
    pub fn write_default_allowed(&self) -> bool {
        self.write_default.unwrap_or(true)
    }
}

/// How many markers of one axis an item may carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Cardinality {
    /// Exactly one (`exactly-one`).
    ExactlyOne,
    /// None or one (`at-most-one`).
    AtMostOne,
    /// Any number (`any`).
    #[default]
    Any,
}

/// Where a marker may be written (`scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MarkerScope {
    /// On the test function (a decorator).
    Function,
    /// On a class (a decorator or the class's `pytestmark`).
    Class,
    /// In the module's `pytestmark`.
    Module,
    /// In `pytest.param(..., marks=...)`.
    Param,
}

/// The rules of one marker (`[markers.<name>]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct MarkerOptions {
    /// The marker this one stands for (`alias-of`): it is replaced by its
    /// target, whose rules then apply.
    pub alias_of: Option<String>,
    /// Writing this marker is a finding (`deprecated`).
    pub deprecated: Option<bool>,
    /// Writing this marker is a finding with this message (`removed`).
    pub removed: Option<String>,
    /// The marker that replaces this removed one (`replaced-by`): `proctor
    /// check --fix` rewrites the name, keeping the written arguments. Only
    /// with `removed`.
    pub replaced_by: Option<String>,
    /// Markers added to every item that has this one (`implies`).
    pub implies: Vec<String>,
    /// The item must also have one of these (`requires-any`).
    pub requires_any: Option<Vec<String>>,
    /// This marker is only allowed on items that also have one of these
    /// (`only-with`).
    pub only_with: Option<Vec<String>>,
    /// Markers that must not be on the same item (`conflicts`).
    pub conflicts: Vec<String>,
    /// Where the marker may be written (`scope`); `None` means anywhere.
    pub scope: Option<Vec<MarkerScope>>,
    /// The marker must sit next to a justifying comment (`needs-comment`).
    pub needs_comment: Option<bool>,
}

impl MarkerOptions {
    /// Whether writing the marker is a finding of its own.
    #[must_use]
    pub fn is_deprecated(&self) -> bool {
        self.deprecated.unwrap_or(false)
    }
}

/// Markers applied to every item collected from matching files
/// (`[[paths]]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PathRuleOptions {
    /// A `globset` pattern relative to the rootdir (`glob`).
    pub glob: String,
    /// The markers to apply (`markers`, at least one): a name, or a table
    /// `{ name, args, kwargs }` for a marker with arguments.
    pub markers: Vec<PathMarker>,
}

/// One marker of a path rule: `"integration"`, or with arguments
/// `{ name = "filterwarnings", args = ["ignore::DeprecationWarning"] }`.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(untagged)]
pub enum PathMarker {
    /// A marker without arguments, by name.
    Name(String),
    /// A marker with arguments, shared by every item it is added to.
    Call(Arc<PathMarkerCall>),
}

/// A path rule's marker with arguments (`{ name, args, kwargs }`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathMarkerCall {
    /// The marker's name (`name`).
    pub name: String,
    /// Positional arguments (`args`), as `pytest.mark.<name>(*args)`.
    #[serde(default)]
    pub args: Vec<serde_json::Value>,
    /// Keyword arguments (`kwargs`), as `pytest.mark.<name>(**kwargs)`.
    #[serde(default)]
    pub kwargs: serde_json::Map<String, serde_json::Value>,
}

impl PathMarker {
    /// The marker's name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            PathMarker::Name(name) => name,
            PathMarker::Call(call) => &call.name,
        }
    }

    /// The positional arguments (none for a bare name).
    #[must_use]
    pub fn args(&self) -> &[serde_json::Value] {
        match self {
            PathMarker::Name(_) => &[],
            PathMarker::Call(call) => &call.args,
        }
    }

    /// The keyword arguments (`None` for a bare name).
    #[must_use]
    pub fn kwargs(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        match self {
            PathMarker::Name(_) => None,
            PathMarker::Call(call) => Some(&call.kwargs),
        }
    }
}

impl From<&str> for PathMarker {
    fn from(name: &str) -> PathMarker {
        PathMarker::Name(name.to_owned())
    }
}

/// A name or a `{ name, args, kwargs }` table; a table's mistakes are
/// reported as its own fields' (an unknown key, a missing `name`).
impl<'de> Deserialize<'de> for PathMarker {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PathMarker;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a marker name, or a table `{ name, args, kwargs }`")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<PathMarker, E> {
                Ok(PathMarker::Name(name.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<PathMarker, A::Error> {
                PathMarkerCall::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|call| PathMarker::Call(Arc::new(call)))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Builds the glob matcher of a path rule. The one place that decides the
/// glob dialect, so that validation and matching agree: `*` and `?` do not
/// cross `/`, `**` does.
pub fn build_path_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
}

/// A taxonomy that proctor refuses, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxonomyProblem {
    /// The value (or table) at fault.
    pub key: KeyPath,
    /// What is wrong, in lowercase.
    pub message: String,
}

impl fmt::Display for TaxonomyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

impl TaxonomyOptions {
    /// Whether nothing is configured.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.axes.is_empty() && self.markers.is_empty() && self.paths.is_empty()
    }

    /// The axis named `name`.
    #[must_use]
    pub fn axis(&self, name: &str) -> Option<&AxisOptions> {
        self.axes.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }

    /// The rules of marker `name`.
    #[must_use]
    pub fn marker(&self, name: &str) -> Option<&MarkerOptions> {
        self.markers.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }

    /// Every reason to refuse these options, in the order of the tables
    /// (axes, markers, paths); empty when they are valid.
    ///
    /// The rules: marker names are identifiers; an axis has markers, each
    /// listed once and in one axis only, none an alias or removed; a default
    /// is one of its axis's markers and implies nothing (defaults are applied
    /// last); `write-default` needs a `default`; an alias points at a marker
    /// that is neither an alias (no chains, no cycles) nor removed, and
    /// carries no rules that its target would shadow; rules name no aliases
    /// and not the marker itself; `requires-any`, `only-with` and `scope`
    /// are not empty; `removed` has a message; `replaced-by` comes with
    /// `removed` and names a marker that is neither an alias nor removed;
    /// globs parse and are relative.
    #[must_use]
    pub fn problems(&self) -> Vec<TaxonomyProblem> {
        let aliases: HashMap<&str, &str> = self
            .markers
            .iter()
            .filter_map(|(name, m)| Some((name.as_str(), m.alias_of.as_deref()?)))
            .collect();
        let mut rules: HashMap<&str, &MarkerOptions> = HashMap::new();
        for (name, rule) in &self.markers {
            rules.entry(name.as_str()).or_insert(rule);
        }
        let mut check = Checker {
            options: self,
            alias_ends: alias_ends(&aliases),
            aliases,
            rules,
            problems: Vec::new(),
        };
        check.axes();
        check.markers();
        check.paths();
        check.decorators();
        check.problems
    }
}

struct Checker<'a> {
    options: &'a TaxonomyOptions,
    /// Alias name → target.
    aliases: HashMap<&'a str, &'a str>,
    /// Where following each alias ends (see [`alias_ends`]).
    alias_ends: HashMap<&'a str, AliasEnd<'a>>,
    /// Marker name → its rules (the first table of that name).
    rules: HashMap<&'a str, &'a MarkerOptions>,
    problems: Vec<TaxonomyProblem>,
}

/// Where following an alias (`a` → `b` → ...) ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AliasEnd<'a> {
    /// At this marker, which is not an alias.
    Marker(&'a str),
    /// In a cycle: the chain from the alias reaches `entry` (the first of
    /// its names met twice) again after `steps` arrows.
    Cycle { entry: &'a str, steps: usize },
}

/// Where following each alias ends, every alias visited once (a chain of
/// n aliases is resolved in O(n), not once per alias).
fn alias_ends<'a>(aliases: &HashMap<&'a str, &'a str>) -> HashMap<&'a str, AliasEnd<'a>> {
    let mut ends: HashMap<&'a str, AliasEnd<'a>> = HashMap::new();
    for &start in aliases.keys() {
        if ends.contains_key(start) {
            continue;
        }
        // The aliases walked from `start`, each with its index in `path`.
        let mut path: Vec<&str> = Vec::new();
        let mut on_path: HashMap<&str, usize> = HashMap::new();
        let mut current = start;
        loop {
            if let Some(&end) = ends.get(current) {
                // Joins a resolved chain: the walked aliases end where it does.
                for (i, alias) in path.iter().enumerate() {
                    let end = match end {
                        AliasEnd::Marker(marker) => AliasEnd::Marker(marker),
                        AliasEnd::Cycle { entry, steps } => AliasEnd::Cycle {
                            entry,
                            steps: steps + path.len() - i,
                        },
                    };
                    ends.insert(alias, end);
                }
                break;
            }
            if let Some(&at) = on_path.get(current) {
                // A cycle of the aliases from `at` on: each is its own
                // entry; the ones before it enter at `current`.
                let length = path.len() - at;
                for (i, alias) in path.iter().enumerate() {
                    let end = if i >= at {
                        AliasEnd::Cycle {
                            entry: alias,
                            steps: length,
                        }
                    } else {
                        AliasEnd::Cycle {
                            entry: current,
                            steps: at - i + length,
                        }
                    };
                    ends.insert(alias, end);
                }
                break;
            }
            let Some(&next) = aliases.get(current) else {
                for alias in &path {
                    ends.insert(alias, AliasEnd::Marker(current));
                }
                break;
            };
            on_path.insert(current, path.len());
            path.push(current);
            current = next;
        }
    }
    ends
}

impl<'a> Checker<'a> {
    /// The chain from `name` round its cycle to `entry`, `steps` arrows
    /// long: `` `a` -> `b` -> `a` ``, shortened in the middle when long.
    fn cycle_shown(&self, name: &'a str, entry: &'a str, steps: usize) -> String {
        const SHOWN: usize = 8;
        let mut names = vec![name];
        let mut current = name;
        for _ in 0..steps.min(SHOWN) {
            current = self.aliases.get(current).copied().unwrap_or(current);
            names.push(current);
        }
        let mut shown: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        if steps > SHOWN {
            shown.push(format!("... ({} more)", steps - SHOWN - 1));
            shown.push(format!("`{entry}`"));
        }
        shown.join(" -> ")
    }
}

impl Checker<'_> {
    fn report(&mut self, key: KeyPath, message: impl Into<String>) {
        self.problems.push(TaxonomyProblem {
            key,
            message: message.into(),
        });
    }

    fn removed(&self, name: &str) -> bool {
        self.rules.get(name).is_some_and(|m| m.removed.is_some())
    }

    /// Checks a marker named in a rule: an identifier, not an alias, not
    /// removed. `what` names the step that aliases are resolved before.
    fn reference(&mut self, key: KeyPath, name: &str, what: &str) -> bool {
        if !self.name(key.clone(), name) {
            return false;
        }
        if let Some(target) = self.aliases.get(name) {
            let target = *target;
            self.report(
                key,
                format!(
                    "`{name}` is an alias of `{target}`, and aliases are replaced before {what}; write `{target}`"
                ),
            );
            return false;
        }
        if self.removed(name) {
            self.report(key, format!("`{name}` is a removed marker"));
            return false;
        }
        true
    }

    fn name(&mut self, key: KeyPath, name: &str) -> bool {
        if is_marker_name(name) {
            return true;
        }
        self.report(
            key,
            format!(
                "`{name}` is not a marker name (a Python identifier, as in `pytest.mark.{{name}}`)"
            ),
        );
        false
    }

    fn axes(&mut self) {
        let options = self.options;
        let mut owner: HashMap<&str, &str> = HashMap::new();
        for (axis_name, axis) in &options.axes {
            let at = KeyPath::default().key("axes").key(axis_name);
            if axis.markers.is_empty() {
                self.report(
                    at.clone().key("markers"),
                    "an axis needs at least one marker",
                );
            }
            let mut listed: HashSet<&str> = HashSet::new();
            for (i, marker) in axis.markers.iter().enumerate() {
                let key = at.clone().key("markers").index(i);
                if !listed.insert(marker) {
                    self.report(key, format!("`{marker}` is listed twice"));
                    continue;
                }
                if let Some(first) = owner.get(marker.as_str()) {
                    let first = *first;
                    self.report(
                        key,
                        format!(
                            "`{marker}` is already in axis `{first}`; a marker belongs to at most one axis"
                        ),
                    );
                    continue;
                }
                if self.reference(key, marker, "axes are looked at") {
                    owner.insert(marker, axis_name);
                }
            }
            match &axis.default {
                Some(default) if !axis.markers.contains(default) => {
                    let listed = axis
                        .markers
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.report(
                        at.clone().key("default"),
                        format!(
                            "the default `{default}` is not one of the axis's markers ({listed})"
                        ),
                    );
                }
                Some(default) => {
                    let implies = self
                        .rules
                        .get(default.as_str())
                        .is_some_and(|m| !m.implies.is_empty());
                    if implies {
                        self.report(
                            at.clone().key("default"),
                            format!(
                                "the default `{default}` has `implies`, but defaults are applied after implications and imply nothing; imply from the markers that need it instead"
                            ),
                        );
                    }
                }
                None => {
                    if axis.write_default.is_some() {
                        self.report(
                            at.clone().key("write-default"),
                            "`write-default` needs a `default`",
                        );
                    }
                }
            }
        }
    }

    fn markers(&mut self) {
        let options = self.options;
        for (name, rule) in &options.markers {
            let at = KeyPath::default().key("markers").key(name);
            if !self.name(at.clone(), name) {
                continue;
            }
            if let Some(target) = &rule.alias_of {
                self.alias(&at, name, target, rule);
            }
            if rule.removed.as_deref().is_some_and(|m| m.trim().is_empty()) {
                self.report(
                    at.clone().key("removed"),
                    "`removed` is the message shown where the marker is written: say what to use instead",
                );
            }
            if let Some(replacement) = &rule.replaced_by {
                let key = at.clone().key("replaced-by");
                if rule.removed.is_none() {
                    self.report(key, "`replaced-by` needs `removed`: only a removed marker is replaced; for a synonym, use `alias-of`");
                } else if replacement == name {
                    self.report(key, format!("`{name}` cannot be replaced by itself"));
                } else {
                    self.reference(key, replacement, "`replaced-by` is applied");
                }
            }
            for (i, target) in rule.implies.iter().enumerate() {
                let key = at.clone().key("implies").index(i);
                if target == name {
                    self.report(key, format!("`{name}` cannot imply itself"));
                } else {
                    self.reference(key, target, "implications");
                }
            }
            for (list_key, list) in [
                ("requires-any", &rule.requires_any),
                ("only-with", &rule.only_with),
            ] {
                let Some(list) = list else { continue };
                if list.is_empty() {
                    self.report(
                        at.clone().key(list_key),
                        format!("`{list_key}` needs at least one marker: an empty list can never be satisfied"),
                    );
                }
                for (i, other) in list.iter().enumerate() {
                    let key = at.clone().key(list_key).index(i);
                    if other == name {
                        self.report(key, format!("`{name}` cannot name itself"));
                    } else {
                        self.reference(key, other, "rules are checked");
                    }
                }
            }
            for (i, other) in rule.conflicts.iter().enumerate() {
                let key = at.clone().key("conflicts").index(i);
                if other == name {
                    self.report(key, format!("`{name}` cannot conflict with itself"));
                } else {
                    self.reference(key, other, "rules are checked");
                }
            }
            if rule.scope.as_ref().is_some_and(Vec::is_empty) {
                self.report(
                    at.clone().key("scope"),
                    "`scope` needs at least one of `function`, `class`, `module`, `param`",
                );
            }
        }
    }

    fn alias(&mut self, at: &KeyPath, name: &str, target: &str, rule: &MarkerOptions) {
        let key = at.clone().key("alias-of");
        if target == name {
            self.report(key, format!("`{name}` cannot be an alias of itself"));
            return;
        }
        if !self.name(key.clone(), target) {
            return;
        }
        if let Some(next) = self.aliases.get(target) {
            let next = *next;
            match self.alias_ends.get(name) {
                Some(&AliasEnd::Cycle { entry, steps }) => {
                    let shown = self.cycle_shown(name, entry, steps);
                    self.report(key, format!("alias cycle: {shown}"));
                }
                Some(&AliasEnd::Marker(last)) => self.report(
                    key,
                    format!(
                        "`{target}` is itself an alias (of `{next}`); an alias must point at a marker that is not one: write `alias-of = \"{last}\"`"
                    ),
                ),
                None => {}
            }
            return;
        }
        if self.removed(target) {
            self.report(key, format!("`{target}` is a removed marker"));
            return;
        }
        let shadowed = [
            ("removed", rule.removed.is_some()),
            ("implies", !rule.implies.is_empty()),
            ("requires-any", rule.requires_any.is_some()),
            ("only-with", rule.only_with.is_some()),
            ("conflicts", !rule.conflicts.is_empty()),
        ];
        for (rule_key, present) in shadowed {
            if present {
                self.report(
                    at.clone().key(rule_key),
                    format!(
                        "`{rule_key}` has no effect on an alias: `{name}` is replaced by `{target}`, whose rules apply; put it in `[markers.{target}]`"
                    ),
                );
            }
        }
    }

    fn paths(&mut self) {
        let options = self.options;
        for (i, rule) in options.paths.iter().enumerate() {
            let at = KeyPath::default().key("paths").index(i);
            let glob_key = at.clone().key("glob");
            if rule.glob.starts_with('/') || rule.glob.starts_with("./") {
                self.report(
                    glob_key,
                    "globs are matched against paths relative to the rootdir: drop the leading `/` or `./`",
                );
            } else if let Err(err) = build_path_glob(&rule.glob) {
                self.report(glob_key, format!("invalid glob: {}", err.kind()));
            }
            if rule.markers.is_empty() {
                self.report(
                    at.clone().key("markers"),
                    "a path rule needs at least one marker",
                );
            }
            for (j, marker) in rule.markers.iter().enumerate() {
                let key = at.clone().key("markers").index(j);
                let key = match marker {
                    PathMarker::Name(_) => key,
                    PathMarker::Call(_) => key.key("name"),
                };
                self.reference(key, marker.name(), "path rules apply");
            }
        }
    }

    fn decorators(&mut self) {
        let options = self.options;
        for (path, marker) in &options.decorators {
            let at = KeyPath::default().key("decorators").key(path);
            if path.is_empty() || path.split('.').any(|part| !is_marker_name(part)) {
                self.report(at.clone(), "a decorator is named by its dotted path, such as `transformers.testing_utils.slow`");
            }
            self.reference(at, marker, "decorators stand for");
        }
    }
}

/// Whether `name` can be written as `pytest.mark.<name>`: a Python
/// identifier.
fn is_marker_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_quote_keys_that_are_not_bare() {
        let path = KeyPath::default()
            .key("markers")
            .key("a.b")
            .key("implies")
            .index(2);
        assert_eq!(path.to_string(), "markers.\"a.b\".implies[2]");
    }

    #[test]
    fn marker_names_are_identifiers() {
        assert!(is_marker_name("e2e"));
        assert!(is_marker_name("_private"));
        assert!(is_marker_name("ünïcode"));
        assert!(!is_marker_name(""));
        assert!(!is_marker_name("2e"));
        assert!(!is_marker_name("slow fast"));
        assert!(!is_marker_name("a.b"));
    }

    #[test]
    fn alias_chains_are_resolved_once_each() {
        let names: Vec<String> = (0..=4000).map(|i| format!("a{i}")).collect();
        // a0 -> a1 -> ... -> a4000, a marker; x -> c0 -> c1 -> c2 -> c0.
        let mut aliases: HashMap<&str, &str> = names
            .windows(2)
            .map(|w| (w[0].as_str(), w[1].as_str()))
            .collect();
        aliases.extend([("x", "c0"), ("c0", "c1"), ("c1", "c2"), ("c2", "c0")]);
        let ends = alias_ends(&aliases);
        assert_eq!(ends.len(), aliases.len());
        assert!(names[..4000]
            .iter()
            .all(|n| ends[n.as_str()] == AliasEnd::Marker("a4000")));
        assert_eq!(
            ends["c1"],
            AliasEnd::Cycle {
                entry: "c1",
                steps: 3
            }
        );
        assert_eq!(
            ends["x"],
            AliasEnd::Cycle {
                entry: "c0",
                steps: 4
            }
        );

        // Every alias of a long chain but the last is reported, each once.
        let options_with = |to: fn(usize) -> usize| TaxonomyOptions {
            markers: (0..4000)
                .map(|i| {
                    (
                        format!("a{i}"),
                        MarkerOptions {
                            alias_of: Some(format!("a{}", to(i))),
                            ..MarkerOptions::default()
                        },
                    )
                })
                .collect(),
            ..TaxonomyOptions::default()
        };
        let options = options_with(|i| i + 1);
        let problems = options.problems();
        assert_eq!(problems.len(), 3999);
        assert!(
            problems[0]
                .message
                .ends_with("write `alias-of = \"a4000\"`"),
            "{}",
            problems[0].message
        );
        // A long cycle is shown shortened.
        let options = options_with(|i| (i + 1) % 4000);
        let problems = options.problems();
        assert_eq!(problems.len(), 4000);
        assert_eq!(
            problems[0].message,
            "alias cycle: `a0` -> `a1` -> `a2` -> `a3` -> `a4` -> `a5` -> `a6` -> `a7` -> `a8` -> ... (3991 more) -> `a0`"
        );
    }
}
