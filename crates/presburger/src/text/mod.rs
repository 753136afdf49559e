//! The isl text syntax: parser and printer.
