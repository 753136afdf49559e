//! The independent legality checker (being written).
