//! The mark nodes that later stages understand, and their names.
//!
//! A mark node ([`crate::Node::Mark`]) annotates a subtree; it changes nothing in the
//! schedule it describes, and a stage that does not know a mark ignores it. The marks
//! defined here pass requests from the schedule transformations to code generation.
//!
//! - `unroll-and-jam m:u m:u ...`, above a permutable band: unroll band member `m`
//!   `u` times (`2 <= u <= 64`) and jam the copies into the band's innermost loop
//!   (register tiling). All requests apply together; in the jammed body, the copy
//!   number of the first request varies slowest.
//! - `skipped`: the subtree's instances run elsewhere (an extension node adds them
//!   inside the tiles of their consumers); code generation emits nothing for it.
//! - `local_UB`: the subtree runs on a vector unit with its data in a unified buffer
//!   (AKG's intra-tile distribution); code generation scans it as usual.

/// The mark over a subtree that code generation does not scan.
pub const SKIPPED: &str = "skipped";

/// The mark over a subtree whose statements run on the vector unit, data in UB.
pub const LOCAL_UB: &str = "local_UB";

/// The prefix of an unroll-and-jam mark's name.
pub const UNROLL_AND_JAM: &str = "unroll-and-jam";

/// The largest unroll-and-jam factor a mark may ask for.
pub const MAX_JAM_FACTOR: u32 = 64;

/// The name of the mark asking for the `(member, factor)` requests.
pub fn unroll_and_jam_name(requests: &[(usize, u32)]) -> String {
    let mut name = UNROLL_AND_JAM.to_string();
    for (member, factor) in requests {
        name.push_str(&format!(" {member}:{factor}"));
    }
    name
}

/// The `(member, factor)` requests of an unroll-and-jam mark, in order; `None` when
/// `name` is not such a mark or is malformed (no request, a factor outside
/// `2..=`[`MAX_JAM_FACTOR`], anything but `member:factor` items).
pub fn parse_unroll_and_jam(name: &str) -> Option<Vec<(usize, u32)>> {
    let rest = name.strip_prefix(UNROLL_AND_JAM)?;
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let mut out = Vec::new();
    for item in rest.split_whitespace() {
        let (member, factor) = item.split_once(':')?;
        let member: usize = member.parse().ok()?;
        let factor: u32 = factor.parse().ok()?;
        if !(2..=MAX_JAM_FACTOR).contains(&factor) {
            return None;
        }
        out.push((member, factor));
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unroll_and_jam_names_round_trip() {
        let requests = vec![(0, 4), (1, 2)];
        let name = unroll_and_jam_name(&requests);
        assert_eq!(name, "unroll-and-jam 0:4 1:2");
        assert_eq!(parse_unroll_and_jam(&name), Some(requests));
    }

    #[test]
    fn malformed_marks_are_not_requests() {
        for bad in [
            "unroll-and-jam",
            "unroll-and-jamx 0:4",
            "unroll-and-jam 0:1",
            "unroll-and-jam 0:65",
            "unroll-and-jam a:2",
            "unroll-and-jam 0-2",
            "other",
        ] {
            assert_eq!(parse_unroll_and_jam(bad), None, "{bad}");
        }
    }
}
