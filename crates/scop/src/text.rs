//! The text form of a scop (placeholder until the printer and parser land).
