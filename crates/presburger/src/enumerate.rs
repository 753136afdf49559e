//! Enumeration and counting of the points of bounded sets.
