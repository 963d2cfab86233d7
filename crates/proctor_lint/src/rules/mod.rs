//! The rules, one file each, grouped by what they check.

pub(crate) mod config;
pub(crate) mod conventions;
pub(crate) mod examples;
pub(crate) mod registry;
pub(crate) mod taxonomy;

/// Declares a rule's documentation once: as the `DOC` constant that
/// `proctor rule` prints and as its rustdoc.
macro_rules! rule_doc {
    ($text:literal) => {
        #[doc = $text]
        pub(crate) const DOC: &str = $text;
    };
}
pub(crate) use rule_doc;
