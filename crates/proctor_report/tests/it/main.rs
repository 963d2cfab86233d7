//! Tests of the three reporters on one run with every outcome.

mod fixture;
mod json;
mod junit;
mod terminal;
