//! Tests of the interleaving spaces: the encodings O and I against the digest's table
//! (`shared/digests/pouchet-popl11.md` §6) and a direct enumeration.

mod encoding;
