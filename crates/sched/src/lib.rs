//! Affine scheduling of scops.
//!
//! The schedulers (Pluto and Feautrier, on Farkas-linearised legality constraints) compute
//! a new [`pollen_scop::ScheduleTree`] from a scop's dependences; [`legality`] checks any
//! schedule against the dependences independently of how it was found.

pub mod legality;
