//! The configuration `proctor init` proposes, before it is written: each
//! part carries where it was inferred from, which becomes its comment.

use std::collections::BTreeMap;

/// An axis: a family of markers with a cardinality and maybe a default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AxisDraft {
    pub name: String,
    pub markers: Vec<String>,
    /// `exactly-one`, `at-most-one` or `any`.
    pub cardinality: String,
    pub default: Option<String>,
    /// `Some(false)` when the default is never written in tests.
    pub write_default: Option<bool>,
    /// Where it comes from.
    pub from: String,
    /// A suggestion only: written commented out.
    pub suggestion: bool,
}

/// Rules for one marker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkerDraft {
    pub name: String,
    pub alias_of: Option<String>,
    pub deprecated: bool,
    pub implies: Vec<String>,
    pub from: Vec<String>,
}

/// A path rule: glob → markers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathDraft {
    pub glob: String,
    pub markers: Vec<String>,
    pub from: String,
}

/// What a helper states a test needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelperDraft {
    /// A kind whose amount is read from the call (`"gpu"`, `"env"`, ...).
    Kind(&'static str),
    /// Fixed needs.
    Fixed {
        packages: Vec<String>,
        services: Vec<String>,
        gpu: bool,
    },
}

/// An environment-dependent gate on a marker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateDraft {
    pub marker: String,
    pub skip_if_env: BTreeMap<String, String>,
    pub run_if_env: BTreeMap<String, String>,
    pub run_if_flag: Option<String>,
    pub reason: Option<String>,
    pub from: String,
}

/// A service tests talk to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServiceDraft {
    pub name: String,
    pub default_address: Option<String>,
    pub address_env: Option<String>,
    /// A service container's image.
    pub image: Option<String>,
    /// A service container's environment (literal values only).
    pub env: BTreeMap<String, String>,
    pub from: String,
}

/// A CI job read from a workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobDraft {
    pub name: String,
    pub from: String,
    pub markers: Option<String>,
    pub keywords: Option<String>,
    pub paths: Vec<String>,
    pub use_default: bool,
    pub env: BTreeMap<String, String>,
    pub flags: Vec<String>,
    pub python: Vec<String>,
    pub services: Vec<String>,
    pub assume: Vec<String>,
    /// `pr`, `nightly` or `manual`.
    pub trigger: String,
    /// Every event of the workflow's `on:`.
    pub triggers: Vec<String>,
    /// proctor triggers besides `trigger` that the events give.
    pub also_on: Vec<String>,
    /// The workflow's `paths:` filter on pull requests and pushes.
    pub on_paths: Vec<String>,
    pub required: bool,
    pub runs_on: Option<String>,
    /// The GitHub environment the job waits on (approval).
    pub environment: Option<String>,
    /// What could not be carried over, each a sentence.
    pub notes: Vec<String>,
}

impl Default for JobDraft {
    fn default() -> Self {
        JobDraft {
            name: String::new(),
            from: String::new(),
            markers: None,
            keywords: None,
            paths: Vec::new(),
            use_default: true,
            env: BTreeMap::new(),
            flags: Vec::new(),
            python: Vec::new(),
            services: Vec::new(),
            assume: Vec::new(),
            trigger: "pr".to_owned(),
            triggers: Vec::new(),
            also_on: Vec::new(),
            on_paths: Vec::new(),
            required: true,
            runs_on: None,
            environment: None,
            notes: Vec::new(),
        }
    }
}

/// Everything `proctor init` proposes, and what it could not infer.
#[derive(Debug, Clone, Default)]
pub struct Draft {
    /// The default selection and where it comes from.
    pub default_select: Option<(String, String)>,
    /// Registered markers: name → description.
    pub registered: Vec<(String, String)>,
    pub axes: Vec<AxisDraft>,
    pub markers: Vec<MarkerDraft>,
    pub paths: Vec<PathDraft>,
    /// Decorator path → marker, with where it comes from.
    pub decorators: Vec<(String, String, String)>,
    /// Helper path → needs, with where it comes from.
    pub helpers: Vec<(String, HelperDraft, String)>,
    pub gates: Vec<GateDraft>,
    pub services: Vec<ServiceDraft>,
    pub jobs: Vec<JobDraft>,
    /// Notebook folders and the metadata key their notebooks opt in with.
    pub notebooks: Option<(Vec<String>, String)>,
    /// What was inferred, one sentence each (printed).
    pub inferred: Vec<String>,
    /// What could not be inferred, one sentence each (printed, and written
    /// as comments).
    pub unknown: Vec<String>,
}

impl Draft {
    /// The rules of marker `name`, created when missing.
    pub fn marker(&mut self, name: &str) -> &mut MarkerDraft {
        let at = self
            .markers
            .iter()
            .position(|m| m.name == name)
            .unwrap_or_else(|| {
                self.markers.push(MarkerDraft {
                    name: name.to_owned(),
                    ..MarkerDraft::default()
                });
                self.markers.len() - 1
            });
        &mut self.markers[at]
    }

    /// The gate of marker `name`, created when missing.
    pub fn gate(&mut self, name: &str, from: &str) -> &mut GateDraft {
        let at = self
            .gates
            .iter()
            .position(|g| g.marker == name)
            .unwrap_or_else(|| {
                self.gates.push(GateDraft {
                    marker: name.to_owned(),
                    from: from.to_owned(),
                    ..GateDraft::default()
                });
                self.gates.len() - 1
            });
        &mut self.gates[at]
    }

    /// Adds service `service` unless one of that name is known; fills in
    /// an address that is missing.
    pub fn add_service(&mut self, service: ServiceDraft) {
        match self.services.iter_mut().find(|s| s.name == service.name) {
            Some(known) => {
                if known.default_address.is_none() {
                    known.default_address = service.default_address;
                }
                if known.address_env.is_none() {
                    known.address_env = service.address_env;
                }
                if known.image.is_none() {
                    known.image = service.image;
                    known.env = service.env;
                }
            }
            None => self.services.push(service),
        }
    }
}
