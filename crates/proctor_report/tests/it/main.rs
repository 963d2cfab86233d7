//! Tests of the reporters on one run with every outcome.

mod fixture;
mod html;
mod json;
mod junit;
mod terminal;
