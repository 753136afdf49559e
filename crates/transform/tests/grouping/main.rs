//! Tests of PolyMage's grouping (`pollen_transform::grouping`): the rows P1–P26 of the
//! digest's test table that apply to a grouping on plain data (the search, the cost
//! model and tile sizes, inlining, the bounded search, the greedy baseline), and a
//! brute-force oracle on random small graphs.

mod cost;
mod from_scop;
mod inline;
mod pipelines;
mod properties;
mod search;
