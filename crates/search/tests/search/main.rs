//! Tests of the interleaving spaces: the encodings O and I, the joint fusion test and
//! the pruned space F¹ against the digest's table (`shared/digests/pouchet-popl11.md`
//! §6) and against a direct enumeration.

mod common;
mod encoding;
mod fusion;
mod kernels;
mod oracle;
mod schedule;
mod space;
