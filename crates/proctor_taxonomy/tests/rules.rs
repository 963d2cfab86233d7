//! The order of application and its edge cases: written duplicates,
//! implication chains and cycles, aliases meeting path rules, defaults after
//! implications, arguments, serialisation, and options refused in code.

mod common;

use common::{item, mark, show, taxonomy};
use proctor_config::{AxisOptions, Cardinality, TaxonomyOptions};
use proctor_python::{
    Marker,
    MarkerSource::{Class, Function, Module},
};
use proctor_taxonomy::{Taxonomy, TaxonomyError};
use serde_json::json;
use std::sync::Arc;

#[test]
fn written_duplicates_are_kept_as_pytest_keeps_them() {
    let taxonomy = taxonomy("[markers.slow]\nimplies = ['nightly']\n");
    let effective = taxonomy.effective(&item(
        "tests/test_a.py::TestA::test_b",
        vec![
            mark("slow", Function),
            mark("slow", Class),
            mark("slow", Module),
        ],
    ));
    assert_eq!(
        show(&effective),
        [
            "slow <- written function",
            "slow <- written class",
            "slow <- written module",
            "nightly <- implied by slow"
        ]
    );
}

#[test]
fn implications_are_transitive_and_attributed_to_the_direct_cause() {
    let taxonomy = taxonomy(
        "[markers.credentialed]\nimplies = ['live', 'slow']\n\
         [markers.live]\nimplies = ['network']\n\
         [markers.network]\nimplies = ['not_hermetic']\n",
    );
    let effective = taxonomy.effective(&item(
        "tests/test_a.py::test_b",
        vec![mark("credentialed", Function)],
    ));
    assert_eq!(
        show(&effective),
        [
            "credentialed <- written function",
            "live <- implied by credentialed",
            "slow <- implied by credentialed",
            "network <- implied by live",
            "not_hermetic <- implied by network"
        ]
    );
}

#[test]
fn implication_cycles_end() {
    let taxonomy = taxonomy(
        "[markers.a]\nimplies = ['b']\n[markers.b]\nimplies = ['c']\n[markers.c]\nimplies = ['a']\n",
    );
    let effective = taxonomy.effective(&item("tests/test_a.py::test_b", vec![mark("b", Function)]));
    assert_eq!(
        show(&effective),
        [
            "b <- written function",
            "c <- implied by b",
            "a <- implied by c"
        ]
    );
}

#[test]
fn implications_apply_to_path_rule_and_alias_markers() {
    let taxonomy = taxonomy(
        "[markers.llm]\nalias-of = 'e2e'\n\
         [markers.e2e]\nimplies = ['network']\n\
         [markers.realdb]\nimplies = ['docker']\n\
         [[paths]]\nglob = 'tests/realdb/**'\nmarkers = ['realdb']\n",
    );
    let effective = taxonomy.effective(&item(
        "tests/realdb/test_pg.py::test_x",
        vec![mark("llm", Function)],
    ));
    assert_eq!(
        show(&effective),
        [
            "e2e <- alias llm (function)",
            "realdb <- path tests/realdb/**",
            "network <- implied by e2e",
            "docker <- implied by realdb"
        ]
    );
}

#[test]
fn a_path_rule_does_not_repeat_what_an_alias_gave() {
    let taxonomy = taxonomy(
        "[markers.llm]\nalias-of = 'e2e'\n[[paths]]\nglob = 'tests/e2e/**'\nmarkers = ['e2e']\n",
    );
    let effective = taxonomy.effective(&item(
        "tests/e2e/test_a.py::test_b",
        vec![mark("llm", Module)],
    ));
    assert_eq!(show(&effective), ["e2e <- alias llm (module)"]);
}

#[test]
fn path_rules_apply_in_file_order_and_implied_markers_suppress_defaults() {
    let taxonomy = taxonomy(
        "[axes.tier]\nmarkers = ['unit', 'integration', 'e2e']\ndefault = 'unit'\n\
         [axes.needs]\nmarkers = ['offline', 'live']\ndefault = 'offline'\n\
         [markers.smoke]\nimplies = ['e2e', 'live']\n\
         [[paths]]\nglob = 'tests/**'\nmarkers = ['b_first', 'a_second']\n\
         [[paths]]\nglob = 'tests/smoke/**'\nmarkers = ['smoke']\n",
    );
    let effective = taxonomy.effective(&item("tests/smoke/test_a.py::test_b", vec![]));
    assert_eq!(
        show(&effective),
        [
            "b_first <- path tests/**",
            "a_second <- path tests/**",
            "smoke <- path tests/smoke/**",
            "e2e <- implied by smoke",
            "live <- implied by smoke"
        ]
    );
    let effective = taxonomy.effective(&item("tests/unit/test_a.py::test_b", vec![]));
    assert_eq!(
        show(&effective),
        [
            "b_first <- path tests/**",
            "a_second <- path tests/**",
            "unit <- default of tier",
            "offline <- default of needs"
        ]
    );
}

#[test]
fn written_arguments_are_kept_and_derived_markers_have_none() {
    let taxonomy =
        taxonomy("[markers.llm]\nalias-of = 'e2e'\n[markers.e2e]\nimplies = ['network']\n");
    let mut kwargs = serde_json::Map::new();
    kwargs.insert("reason".into(), json!("needs a model"));
    let written = Arc::new(Marker {
        name: "llm".into(),
        args: vec![json!("granite"), json!({"expr": "MODEL"})],
        kwargs,
        source: Function,
        location: None,
    });
    let effective = taxonomy.effective(&item("tests/test_a.py::test_b", vec![written]));
    assert_eq!(effective.markers[0].name, "e2e");
    assert_eq!(
        effective.markers[0].args(),
        [json!("granite"), json!({"expr": "MODEL"})]
    );
    assert_eq!(
        effective.markers[0].kwargs().unwrap()["reason"],
        json!("needs a model")
    );
    assert!(effective.markers[1].args().is_empty() && effective.markers[1].kwargs().is_none());
}

#[test]
fn a_path_rule_marker_with_arguments_is_added_unless_written_with_the_same() {
    let taxonomy = taxonomy(
        "[[paths]]\nglob = 'tests'\nmarkers = ['legacy', { name = 'filterwarnings', args = ['error::UserWarning'] }]\n",
    );
    let filter = |arg: &str| {
        Arc::new(Marker {
            name: "filterwarnings".into(),
            args: vec![json!(arg)],
            kwargs: serde_json::Map::new(),
            source: Function,
            location: None,
        })
    };
    let other = taxonomy.effective(&item(
        "tests/test_a.py::test_b",
        vec![filter("ignore::UserWarning"), mark("legacy", Function)],
    ));
    assert_eq!(
        show(&other),
        [
            "filterwarnings <- written function",
            "legacy <- written function",
            "filterwarnings <- path tests"
        ]
    );
    assert_eq!(other.markers[2].args(), [json!("error::UserWarning")]);
    assert!(other.markers[2]
        .kwargs()
        .is_some_and(serde_json::Map::is_empty));
    let same = taxonomy.effective(&item(
        "tests/test_a.py::test_b",
        vec![filter("error::UserWarning")],
    ));
    assert_eq!(
        show(&same),
        ["filterwarnings <- written function", "legacy <- path tests"]
    );
}

#[test]
fn effective_serialises_with_kind_tags() {
    let taxonomy = taxonomy(
        "[axes.tier]\nmarkers = ['unit', 'e2e']\ndefault = 'unit'\n\
         [markers.llm]\nalias-of = 'e2e'\ndeprecated = true\n\
         [markers.e2e]\nimplies = ['network']\n\
         [markers.old]\nremoved = 'use new'\n\
         [[paths]]\nglob = 'tests/**'\nmarkers = ['suite']\n",
    );
    let effective = taxonomy.effective(&item(
        "tests/test_a.py::test_b",
        vec![mark("llm", Function), mark("old", Class)],
    ));
    let value = serde_json::to_value(&effective).unwrap();
    assert_eq!(
        value,
        json!({
            "markers": [
                {"name": "e2e", "args": [], "kwargs": {}, "provenance": {"kind": "alias", "written": "llm", "source": "function"}},
                {"name": "old", "args": [], "kwargs": {}, "provenance": {"kind": "written", "source": "class"}},
                {"name": "suite", "args": [], "kwargs": {}, "provenance": {"kind": "path-rule", "glob": "tests/**"}},
                {"name": "network", "args": [], "kwargs": {}, "provenance": {"kind": "implied", "by": "e2e"}}
            ],
            "notes": [
                {"kind": "alias", "written": "llm", "target": "e2e", "source": "function"},
                {"kind": "deprecated", "name": "llm", "source": "function"},
                {"kind": "removed", "name": "old", "message": "use new", "source": "class"}
            ]
        })
    );
    let unit = taxonomy.effective(&item("other/test_a.py::test_b", vec![]));
    assert_eq!(
        serde_json::to_value(&unit).unwrap()["markers"][0]["provenance"],
        json!({"kind": "axis-default", "axis": "tier"})
    );
}

#[test]
fn an_empty_taxonomy_changes_nothing() {
    let taxonomy = Taxonomy::new(&TaxonomyOptions::default()).unwrap();
    let effective = taxonomy.effective(&item(
        "tests/test_a.py::test_b",
        vec![mark("slow", Function), mark("parametrize", Function)],
    ));
    assert_eq!(
        show(&effective),
        [
            "slow <- written function",
            "parametrize <- written function"
        ]
    );
    assert!(effective.notes.is_empty());
    assert!(taxonomy.path_rules_for("tests/test_a.py").is_empty());
}

#[test]
fn options_built_in_code_are_validated_too() {
    let options = TaxonomyOptions {
        axes: vec![(
            "tier".to_owned(),
            AxisOptions {
                markers: vec!["unit".to_owned()],
                cardinality: Cardinality::ExactlyOne,
                default: Some("e2e".to_owned()),
                write_default: None,
            },
        )],
        ..TaxonomyOptions::default()
    };
    let error = Taxonomy::new(&options).unwrap_err();
    assert!(matches!(error, TaxonomyError::Invalid(_)));
    assert_eq!(
        error.to_string(),
        "invalid taxonomy at `axes.tier.default`: the default `e2e` is not one of the axis's markers (`unit`)"
    );
}
