//! The text form of a [`Scop`] and of a [`ScheduleTree`]: a small block format in the style
//! of isl's schedule-tree printer (a subset of YAML), with every set and map written as a
//! quoted string in isl syntax.
//!
//! ```text
//! # pollen scop
//! params: [N]
//! context: "[N] -> { : N >= 1 }"
//! arrays:
//!   - name: A
//!     type: double
//!     extents: [N, N + 1]
//! statements:
//!   - name: S0
//!     iterators: [i, j]
//!     domain: "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }"
//!     body: "A[i][j] = 0.0;"
//!     accesses:
//!       - write: "[N] -> { S0[i, j] -> A[i, j] }"
//! schedule:
//!   domain: "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }"
//!   child:
//!     schedule: "[N] -> { S0[i, j] -> [i, j] }"
//!     permutable: 1
//!     coincident: [ 1, 1 ]
//! ```
//!
//! # Format
//! - A document is a mapping of `key: value` lines; a value is a scalar on the same line
//!   (plain text up to the end of the line, or a `"`-quoted string with the escapes `\"`,
//!   `\\`, `\n`, `\t`, `\r` and `\u{hex}`), a flow list `[a, "b", c]` on the same line, or a
//!   block below the key: a mapping indented deeper, or a list of `- ` items indented
//!   deeper or (isl's style) at the key's own indentation. Lines whose first non-blank
//!   character is `#` are comments; indentation is made of spaces.
//! - The scop has the keys `params`, `context`, `arrays` (`name`, `type`, `extents`, and
//!   `local: 1` for an array the region declares),
//!   `statements` (`name`, `iterators`, `domain`, `body`, `accesses`) and `schedule`.
//!   An access is `- read: "..."` or `- write: "..."`, with `array: name` only when the
//!   array's name differs from the relation's range tuple.
//! - A schedule-tree node is a mapping holding one kind key — `domain`, `context`,
//!   `schedule` (a band, with `permutable: 0|1` and `coincident: [ 1, 0 ]`), `sequence`,
//!   `set`, `filter`, `mark` or `extension` — and, unless its child is a leaf, `child`.
//!   The children of `sequence` and `set` are a list of filter nodes. A leaf standing
//!   alone (a root, or a list item) is written `leaf`.
//!
//! # Invariants
//! - [`parse`] never panics: every malformed text is an [`Error::Parse`] with the 1-based
//!   line and column of the offending character in the whole text (errors inside an
//!   embedded isl string are moved to their place in the text), or the error of
//!   [`Scop::validate`];
//! - `parse(&print(s))` equals `s` (equal sets and maps, same names, bodies, flags and
//!   tree shape) and printing it again gives the same text.

use std::fmt;
use std::str::FromStr;

use pollen_presburger::text::{parse_object, Parsed};
use pollen_presburger::{Map, Set, UnionMap, UnionSet};

use crate::tree::{Band, Node, ScheduleTree};
use crate::{Access, AccessKind, Array, Error, Result, Scop, Statement};

// ---------------------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------------------

/// The text form of a scop (see the module documentation).
pub fn print(scop: &Scop) -> String {
    let mut out = String::from("# pollen scop\n");
    out.push_str(&format!("params: {}\n", flow_list(&scop.params)));
    out.push_str(&format!("context: {}\n", quote(&scop.context.to_string())));
    push_block_list(&mut out, "arrays", scop.arrays.iter().map(array_lines));
    push_block_list(
        &mut out,
        "statements",
        scop.statements.iter().map(statement_lines),
    );
    let tree = node_lines(&scop.schedule.root);
    push_keyed_block(&mut out, "schedule", &tree);
    out
}

/// Writes `key:` followed by a list of items indented by two, or `key: []`.
fn push_block_list(out: &mut String, key: &str, items: impl Iterator<Item = Vec<String>>) {
    let lines = list_item_lines(items, "  ");
    if lines.is_empty() {
        out.push_str(&format!("{key}: []\n"));
    } else {
        out.push_str(&format!("{key}:\n"));
        for l in lines {
            out.push_str(&format!("{l}\n"));
        }
    }
}

/// Writes `key: leaf` or `key:` followed by the block of `lines` indented by two.
fn push_keyed_block(out: &mut String, key: &str, lines: &[String]) {
    if let [single] = lines {
        if single == "leaf" {
            out.push_str(&format!("{key}: leaf\n"));
            return;
        }
    }
    out.push_str(&format!("{key}:\n"));
    for l in lines {
        out.push_str(&format!("  {l}\n"));
    }
}

/// The lines of list items: `- ` before each item's first line, two spaces before its
/// other lines, and `indent` before every line.
fn list_item_lines(items: impl Iterator<Item = Vec<String>>, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for item in items {
        for (k, l) in item.into_iter().enumerate() {
            let marker = if k == 0 { "- " } else { "  " };
            lines.push(format!("{indent}{marker}{l}"));
        }
    }
    lines
}

fn array_lines(a: &Array) -> Vec<String> {
    let mut lines = vec![
        format!("name: {}", scalar(&a.name)),
        format!("type: {}", scalar(&a.element_type)),
        format!("extents: {}", flow_list(&a.extents)),
    ];
    if a.local {
        lines.push("local: 1".into());
    }
    lines
}

fn statement_lines(s: &Statement) -> Vec<String> {
    let mut lines = vec![
        format!("name: {}", scalar(&s.name)),
        format!("iterators: {}", flow_list(&s.iterators)),
        format!("domain: {}", quote(&s.domain.to_string())),
        format!("body: {}", quote(&s.body)),
    ];
    let accesses = list_item_lines(s.accesses.iter().map(access_lines), "  ");
    if accesses.is_empty() {
        lines.push("accesses: []".into());
    } else {
        lines.push("accesses:".into());
        lines.extend(accesses);
    }
    lines
}

fn access_lines(a: &Access) -> Vec<String> {
    let kind = match a.kind {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
    };
    let mut lines = vec![format!("{kind}: {}", quote(&a.relation.to_string()))];
    let target = a.relation.space().range_tuple().and_then(|t| t.name());
    if target != Some(a.array.as_str()) {
        lines.push(format!("array: {}", scalar(&a.array)));
    }
    lines
}

/// The lines of a schedule-tree node, relative to the node's indentation.
fn node_lines(node: &Node) -> Vec<String> {
    let (mut lines, child) = match node {
        Node::Leaf => return vec!["leaf".into()],
        Node::Domain { domain, child } => (vec![keyed("domain", domain)], Some(child)),
        Node::Context { context, child } => (vec![keyed("context", context)], Some(child)),
        Node::Band(band) => (band_lines(band), Some(&band.child)),
        Node::Sequence(children) => (children_lines("sequence", children), None),
        Node::Set(children) => (children_lines("set", children), None),
        Node::Filter { filter, child } => (vec![keyed("filter", filter)], Some(child)),
        Node::Mark { name, child } => (vec![format!("mark: {}", quote(name))], Some(child)),
        Node::Extension { extension, child } => (vec![keyed("extension", extension)], Some(child)),
    };
    if let Some(child) = child {
        if !matches!(**child, Node::Leaf) {
            lines.push("child:".into());
            lines.extend(node_lines(child).into_iter().map(|l| format!("  {l}")));
        }
    }
    lines
}

/// `key: "<isl text>"`.
fn keyed(key: &str, value: &impl fmt::Display) -> String {
    format!("{key}: {}", quote(&value.to_string()))
}

fn band_lines(band: &Band) -> Vec<String> {
    let mut lines = vec![keyed("schedule", &band.schedule)];
    if band.permutable {
        lines.push("permutable: 1".into());
    }
    let flags: Vec<&str> = band
        .coincident
        .iter()
        .map(|&c| if c { "1" } else { "0" })
        .collect();
    if flags.is_empty() {
        lines.push("coincident: [ ]".into());
    } else {
        lines.push(format!("coincident: [ {} ]", flags.join(", ")));
    }
    lines
}

/// `key:` and the children as list items at the key's indentation (isl's style).
fn children_lines(key: &str, children: &[Node]) -> Vec<String> {
    if children.is_empty() {
        return vec![format!("{key}: []")];
    }
    let mut lines = vec![format!("{key}:")];
    lines.extend(list_item_lines(children.iter().map(node_lines), ""));
    lines
}

/// A scalar written plainly when it reads back unchanged, quoted otherwise.
fn scalar(s: &str) -> String {
    if is_plain(s) {
        s.to_string()
    } else {
        quote(s)
    }
}

/// Whether `s` reads back as itself when written without quotes, also inside a flow list.
fn is_plain(s: &str) -> bool {
    !s.is_empty()
        && s.trim() == s
        && !s
            .chars()
            .any(|c| c.is_control() || "\"\\,[]{}#:".contains(c))
}

/// `[a, b, c]` with each item written by [`scalar`].
fn flow_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| scalar(s)).collect();
    format!("[{}]", items.join(", "))
}

/// `s` between double quotes, with `"`, `\` and control characters escaped.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl fmt::Display for Scop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

impl fmt::Display for ScheduleTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in node_lines(&self.root) {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Reading the block structure
// ---------------------------------------------------------------------------------------

/// How deeply blocks may nest before the text is refused (keeps recursion bounded).
const MAX_DEPTH: usize = 256;

/// A 1-based position in the whole text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    line: usize,
    column: usize,
}

fn error_at(pos: Pos, message: impl Into<String>) -> Error {
    Error::Parse {
        line: pos.line,
        column: pos.column,
        message: message.into(),
    }
}

/// A line with content: its characters and where the content starts.
#[derive(Clone, Debug)]
struct Line {
    /// 1-based line number.
    number: usize,
    /// The line's characters.
    chars: Vec<char>,
    /// Index of the first content character (its indentation, for a fresh line).
    start: usize,
}

impl Line {
    fn pos(&self, index: usize) -> Pos {
        Pos {
            line: self.number,
            column: index + 1,
        }
    }

    /// Whether the content is a list item `- ...` (or a lone `-`).
    fn is_item(&self) -> bool {
        self.chars.get(self.start) == Some(&'-')
            && matches!(self.chars.get(self.start + 1), None | Some(' '))
    }

    /// Index of the first non-space character at or after `index` (the line's length at
    /// its end).
    fn skip_spaces(&self, index: usize) -> usize {
        let mut k = index;
        while self.chars.get(k) == Some(&' ') {
            k += 1;
        }
        k
    }

    /// If a key `name:` starts at `index`, the key and the index after its colon.
    fn key_at(&self, index: usize) -> Option<(String, usize)> {
        let c = self.chars.get(index)?;
        if !(c.is_ascii_alphabetic() || *c == '_') {
            return None;
        }
        let mut k = index;
        while self
            .chars
            .get(k)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            k += 1;
        }
        if self.chars.get(k) != Some(&':') || self.chars.get(k + 1).is_some_and(|&c| c != ' ') {
            return None;
        }
        Some((self.chars[index..k].iter().collect(), k + 1))
    }
}

/// A scalar value with the position of each of its characters, so that errors found
/// inside it (by the isl parser) can be placed in the whole text.
#[derive(Clone, Debug)]
struct Scalar {
    text: String,
    quoted: bool,
    pos: Pos,
    /// The position of each character of `text`.
    origins: Vec<Pos>,
    /// The position just after the scalar (its closing quote, for a quoted one).
    end: Pos,
}

impl Scalar {
    /// The position in the whole text of line `line`, column `column` of `self.text`.
    fn locate(&self, line: usize, column: usize) -> Pos {
        let (mut l, mut c) = (1, 1);
        for (k, ch) in self.text.chars().enumerate() {
            if (l, c) == (line, column) {
                return self.origins.get(k).copied().unwrap_or(self.end);
            }
            if ch == '\n' {
                l += 1;
                c = 1;
            } else {
                c += 1;
            }
        }
        self.end
    }
}

/// A value of the block structure.
#[derive(Clone, Debug)]
enum Value {
    Scalar(Scalar),
    /// `[a, b]` on one line.
    Flow(Vec<Scalar>, Pos),
    /// `- ` items.
    List(Vec<Value>, Pos),
    Mapping(Mapping),
}

impl Value {
    fn pos(&self) -> Pos {
        match self {
            Value::Scalar(s) => s.pos,
            Value::Flow(_, pos) | Value::List(_, pos) => *pos,
            Value::Mapping(m) => m.pos,
        }
    }
}

/// `key: value` entries, in order.
#[derive(Clone, Debug)]
struct Mapping {
    pos: Pos,
    entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    key: String,
    pos: Pos,
    value: Value,
}

/// The reader of the block structure: a cursor over the content lines.
struct Reader {
    lines: Vec<Line>,
    next: usize,
    depth: usize,
}

impl Reader {
    /// Splits the text into content lines, leaving out blank lines and comments.
    fn new(text: &str) -> Result<Reader> {
        let mut lines = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let chars: Vec<char> = raw.chars().collect();
            let start = chars.iter().take_while(|&&c| c == ' ').count();
            let line = Line {
                number: k + 1,
                chars,
                start,
            };
            if line.chars.iter().all(|c| c.is_whitespace()) {
                continue;
            }
            match line.chars.get(start) {
                Some('#') => continue,
                Some('\t') => return Err(error_at(line.pos(start), "tab in indentation")),
                _ => lines.push(line),
            }
        }
        Ok(Reader {
            lines,
            next: 0,
            depth: 0,
        })
    }

    fn peek(&self) -> Option<&Line> {
        self.lines.get(self.next)
    }

    /// Reads the whole text as one mapping.
    fn read_document(&mut self) -> Result<Mapping> {
        let Some(first) = self.peek() else {
            return Err(error_at(
                Pos { line: 1, column: 1 },
                "expected a mapping, found no content",
            ));
        };
        let indent = first.start;
        let mapping = self.read_mapping(indent)?;
        if let Some(line) = self.peek() {
            return Err(error_at(
                line.pos(line.start),
                "unexpected content after the document",
            ));
        }
        Ok(mapping)
    }

    fn enter(&mut self, pos: Pos) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(error_at(pos, "blocks nested too deeply"));
        }
        Ok(())
    }

    /// Reads the `key: value` lines at indentation `indent`.
    fn read_mapping(&mut self, indent: usize) -> Result<Mapping> {
        let Some(first) = self.peek() else {
            return Err(error_at(Pos { line: 1, column: 1 }, "expected a mapping"));
        };
        let pos = first.pos(first.start);
        self.enter(pos)?;
        let mut entries: Vec<Entry> = Vec::new();
        while let Some(line) = self.peek().cloned() {
            if line.start < indent || (line.start == indent && line.is_item()) {
                break;
            }
            let here = line.pos(line.start);
            if line.start > indent {
                return Err(error_at(here, "unexpected indentation"));
            }
            let Some((key, after)) = line.key_at(line.start) else {
                return Err(error_at(here, "expected 'key:'"));
            };
            if entries.iter().any(|e| e.key == key) {
                return Err(error_at(here, format!("duplicate key '{key}'")));
            }
            self.next += 1;
            let value = self.read_value(&line, after, indent)?;
            entries.push(Entry {
                key,
                pos: here,
                value,
            });
        }
        self.depth -= 1;
        if entries.is_empty() {
            return Err(error_at(pos, "expected 'key:'"));
        }
        Ok(Mapping { pos, entries })
    }

    /// Reads the value of a key whose colon ends before `after` on `line` (a line of a
    /// mapping at indentation `indent`): inline, or a block on the following lines.
    fn read_value(&mut self, line: &Line, after: usize, indent: usize) -> Result<Value> {
        let start = line.skip_spaces(after);
        if start < line.chars.len() {
            return inline_value(line, start);
        }
        let missing = || error_at(line.pos(after), "expected a value after ':'");
        let Some(next) = self.peek() else {
            return Err(missing());
        };
        let next_indent = next.start;
        match (next_indent.cmp(&indent), next.is_item()) {
            (std::cmp::Ordering::Greater, true) | (std::cmp::Ordering::Equal, true) => {
                self.read_list(next_indent)
            }
            (std::cmp::Ordering::Greater, false) => {
                Ok(Value::Mapping(self.read_mapping(next_indent)?))
            }
            _ => Err(missing()),
        }
    }

    /// Reads the `- ` items at indentation `indent`.
    fn read_list(&mut self, indent: usize) -> Result<Value> {
        let Some(first) = self.peek() else {
            return Err(error_at(Pos { line: 1, column: 1 }, "expected a list"));
        };
        let pos = first.pos(first.start);
        self.enter(pos)?;
        let mut items = Vec::new();
        while let Some(line) = self.peek().cloned() {
            if line.start != indent || !line.is_item() {
                break;
            }
            let content = line.skip_spaces(line.start + 1);
            if content >= line.chars.len() {
                return Err(error_at(line.pos(line.start), "expected an item after '-'"));
            }
            if line.key_at(content).is_some() {
                // The item is a mapping whose entries sit at the column of its first key.
                self.lines[self.next].start = content;
                items.push(Value::Mapping(self.read_mapping(content)?));
            } else {
                self.next += 1;
                items.push(inline_value(&line, content)?);
            }
        }
        self.depth -= 1;
        Ok(Value::List(items, pos))
    }
}

/// Reads a scalar or flow list starting at `start` that must end the line.
fn inline_value(line: &Line, start: usize) -> Result<Value> {
    let (value, end) = match line.chars[start] {
        '"' => {
            let (s, end) = read_quoted(line, start)?;
            (Value::Scalar(s), end)
        }
        '[' => read_flow(line, start)?,
        _ => {
            let mut end = line.chars.len();
            while end > start && line.chars[end - 1].is_whitespace() {
                end -= 1;
            }
            (Value::Scalar(plain(line, start, end)), end)
        }
    };
    let rest = line.skip_spaces(end);
    if rest < line.chars.len() {
        return Err(error_at(line.pos(rest), "unexpected text after the value"));
    }
    Ok(value)
}

/// The plain scalar `line.chars[start..end]`.
fn plain(line: &Line, start: usize, end: usize) -> Scalar {
    Scalar {
        text: line.chars[start..end].iter().collect(),
        quoted: false,
        pos: line.pos(start),
        origins: (start..end).map(|k| line.pos(k)).collect(),
        end: line.pos(end),
    }
}

/// Reads the quoted string opening at `start`; returns it and the index after its closing
/// quote.
fn read_quoted(line: &Line, start: usize) -> Result<(Scalar, usize)> {
    let mut text = String::new();
    let mut origins = Vec::new();
    let mut k = start + 1;
    loop {
        let Some(&c) = line.chars.get(k) else {
            return Err(error_at(line.pos(start), "unterminated string"));
        };
        match c {
            '"' => break,
            '\\' => {
                let (decoded, next) = read_escape(line, k)?;
                text.push(decoded);
                origins.push(line.pos(k));
                k = next;
            }
            c => {
                text.push(c);
                origins.push(line.pos(k));
                k += 1;
            }
        }
    }
    let scalar = Scalar {
        text,
        quoted: true,
        pos: line.pos(start),
        origins,
        end: line.pos(k),
    };
    Ok((scalar, k + 1))
}

/// Decodes the escape whose backslash is at `k`; returns the character and the index
/// after the escape.
fn read_escape(line: &Line, k: usize) -> Result<(char, usize)> {
    let bad = || {
        error_at(
            line.pos(k),
            "unknown escape (expected \\\" \\\\ \\n \\t \\r or \\u{hex})",
        )
    };
    let Some(&c) = line.chars.get(k + 1) else {
        return Err(error_at(line.pos(k), "unterminated string"));
    };
    let simple = match c {
        '"' => Some('"'),
        '\\' => Some('\\'),
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        _ => None,
    };
    if let Some(s) = simple {
        return Ok((s, k + 2));
    }
    if c != 'u' || line.chars.get(k + 2) != Some(&'{') {
        return Err(bad());
    }
    let digits_start = k + 3;
    let mut end = digits_start;
    while line.chars.get(end).is_some_and(|c| c.is_ascii_hexdigit()) {
        end += 1;
    }
    if line.chars.get(end) != Some(&'}') || end == digits_start || end - digits_start > 6 {
        return Err(bad());
    }
    let digits: String = line.chars[digits_start..end].iter().collect();
    let decoded = u32::from_str_radix(&digits, 16)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(bad)?;
    Ok((decoded, end + 1))
}

/// Reads the flow list opening at `start`; returns it and the index after its `]`.
fn read_flow(line: &Line, start: usize) -> Result<(Value, usize)> {
    let mut items = Vec::new();
    let mut k = line.skip_spaces(start + 1);
    if line.chars.get(k) == Some(&']') {
        return Ok((Value::Flow(items, line.pos(start)), k + 1));
    }
    loop {
        match line.chars.get(k) {
            None => return Err(error_at(line.pos(k), "unterminated list (expected ']')")),
            Some('"') => {
                let (s, next) = read_quoted(line, k)?;
                items.push(s);
                k = next;
            }
            Some(_) => {
                let mut end = k;
                while line.chars.get(end).is_some_and(|&c| c != ',' && c != ']') {
                    end += 1;
                }
                let mut last = end;
                while last > k && line.chars[last - 1].is_whitespace() {
                    last -= 1;
                }
                if last == k {
                    return Err(error_at(line.pos(k), "expected a list item"));
                }
                items.push(plain(line, k, last));
                k = end;
            }
        }
        k = line.skip_spaces(k);
        match line.chars.get(k) {
            Some(',') => k = line.skip_spaces(k + 1),
            Some(']') => return Ok((Value::Flow(items, line.pos(start)), k + 1)),
            _ => return Err(error_at(line.pos(k), "expected ',' or ']'")),
        }
    }
}

// ---------------------------------------------------------------------------------------
// From the block structure to the model
// ---------------------------------------------------------------------------------------

impl Mapping {
    /// Fails on the first key not in `allowed`.
    fn check_keys(&self, what: &str, allowed: &[&str]) -> Result<()> {
        match self
            .entries
            .iter()
            .find(|e| !allowed.contains(&e.key.as_str()))
        {
            Some(e) => Err(error_at(
                e.pos,
                format!(
                    "unknown key '{}' in {what} (expected one of: {})",
                    e.key,
                    allowed.join(", ")
                ),
            )),
            None => Ok(()),
        }
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|e| e.key == key).map(|e| &e.value)
    }

    fn require(&self, key: &str, what: &str) -> Result<&Value> {
        self.get(key)
            .ok_or_else(|| error_at(self.pos, format!("{what} has no '{key}'")))
    }
}

fn expect_scalar<'a>(v: &'a Value, what: &str) -> Result<&'a Scalar> {
    match v {
        Value::Scalar(s) => Ok(s),
        _ => Err(error_at(v.pos(), format!("expected {what} (a scalar)"))),
    }
}

fn expect_flow<'a>(v: &'a Value, what: &str) -> Result<&'a [Scalar]> {
    match v {
        Value::Flow(items, _) => Ok(items),
        _ => Err(error_at(
            v.pos(),
            format!("expected {what} (a list [a, b, ...])"),
        )),
    }
}

/// The items of a block list (or of an empty flow list `[]`).
fn expect_items<'a>(v: &'a Value, what: &str) -> Result<&'a [Value]> {
    match v {
        Value::List(items, _) => Ok(items),
        Value::Flow(items, _) if items.is_empty() => Ok(&[]),
        _ => Err(error_at(
            v.pos(),
            format!("expected {what} (a list of '- ' items)"),
        )),
    }
}

fn expect_mapping<'a>(v: &'a Value, what: &str) -> Result<&'a Mapping> {
    match v {
        Value::Mapping(m) => Ok(m),
        _ => Err(error_at(
            v.pos(),
            format!("expected {what} (a block of 'key: value' lines)"),
        )),
    }
}

fn strings(items: &[Scalar]) -> Vec<String> {
    items.iter().map(|s| s.text.clone()).collect()
}

/// Reads an isl object, placing its errors in the whole text.
fn read_object(s: &Scalar) -> Result<Parsed> {
    parse_object(&s.text).map_err(|e| match e {
        pollen_presburger::Error::Parse {
            line,
            column,
            message,
        } => error_at(s.locate(line, column), message),
        other => error_at(s.pos, other.to_string()),
    })
}

fn read_set(v: &Value, what: &str) -> Result<Set> {
    let s = expect_scalar(v, what)?;
    match read_object(s)? {
        Parsed::Set(set) => Ok(set),
        Parsed::UnionSet(u) if u.as_union_map().n_maps() == 0 => Err(error_at(
            s.pos,
            format!("expected {what}, found an empty union"),
        )),
        _ => Err(error_at(
            s.pos,
            format!("expected {what} (a set in one space)"),
        )),
    }
}

fn read_map(v: &Value, what: &str) -> Result<Map> {
    let s = expect_scalar(v, what)?;
    match read_object(s)? {
        Parsed::Map(m) => Ok(m),
        _ => Err(error_at(
            s.pos,
            format!("expected {what} (a map in one space)"),
        )),
    }
}

fn read_union_set(v: &Value, what: &str) -> Result<UnionSet> {
    let s = expect_scalar(v, what)?;
    match read_object(s)? {
        Parsed::Set(set) => Ok(UnionSet::from_set(set)),
        Parsed::UnionSet(u) => Ok(u),
        _ => Err(error_at(
            s.pos,
            format!("expected {what} (a union set), found a map"),
        )),
    }
}

fn read_union_map(v: &Value, what: &str) -> Result<UnionMap> {
    let s = expect_scalar(v, what)?;
    match read_object(s)? {
        Parsed::Map(m) => Ok(UnionMap::from_map(m)),
        Parsed::UnionMap(u) => Ok(u),
        Parsed::UnionSet(u) if u.as_union_map().n_maps() == 0 => {
            Ok(UnionMap::empty(u.param_names().to_vec()))
        }
        _ => Err(error_at(
            s.pos,
            format!("expected {what} (a union map), found a set"),
        )),
    }
}

/// Reads a flag written `0` or `1`.
fn read_flag(s: &Scalar, what: &str) -> Result<bool> {
    match s.text.as_str() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(error_at(s.pos, format!("expected {what} (0 or 1)"))),
    }
}

/// The node kinds, as written.
const NODE_KINDS: [&str; 8] = [
    "domain",
    "context",
    "schedule",
    "sequence",
    "set",
    "filter",
    "mark",
    "extension",
];

/// Reads a schedule-tree node: a mapping, or the plain word `leaf`.
fn read_node(v: &Value) -> Result<Node> {
    match v {
        Value::Scalar(s) if !s.quoted && s.text == "leaf" => Ok(Node::Leaf),
        Value::Mapping(m) => read_node_mapping(m),
        _ => Err(error_at(
            v.pos(),
            "expected a schedule tree node (a block with one of domain, context, schedule, sequence, set, filter, mark, extension; or 'leaf')",
        )),
    }
}

fn read_node_mapping(m: &Mapping) -> Result<Node> {
    let mut kinds = m
        .entries
        .iter()
        .filter(|e| NODE_KINDS.contains(&e.key.as_str()));
    let Some(kind) = kinds.next() else {
        return Err(error_at(
            m.pos,
            format!(
                "a schedule tree node needs one of the keys {}",
                NODE_KINDS.join(", ")
            ),
        ));
    };
    if let Some(other) = kinds.next() {
        return Err(error_at(
            other.pos,
            format!(
                "a node is either a {} or a {}, not both",
                kind.key, other.key
            ),
        ));
    }
    let what = format!("a {} node", kind.key);
    let allowed: &[&str] = match kind.key.as_str() {
        "schedule" => &["schedule", "permutable", "coincident", "child"],
        "sequence" | "set" => &[],
        _ => &["child"],
    };
    let mut keys = vec![kind.key.as_str()];
    keys.extend_from_slice(allowed);
    m.check_keys(&what, &keys)?;
    let child = || -> Result<Box<Node>> {
        Ok(Box::new(match m.get("child") {
            Some(v) => read_node(v)?,
            None => Node::Leaf,
        }))
    };
    let v = &kind.value;
    Ok(match kind.key.as_str() {
        "domain" => Node::Domain {
            domain: read_union_set(v, "the instances of a domain node")?,
            child: child()?,
        },
        "context" => Node::Context {
            context: read_set(v, "the parameter set of a context node")?,
            child: child()?,
        },
        "schedule" => Node::Band(read_band(m, v, child()?)?),
        "sequence" => Node::Sequence(read_children(v, "sequence")?),
        "set" => Node::Set(read_children(v, "set")?),
        "filter" => Node::Filter {
            filter: read_union_set(v, "the instances of a filter")?,
            child: child()?,
        },
        "mark" => Node::Mark {
            name: expect_scalar(v, "the name of a mark")?.text.clone(),
            child: child()?,
        },
        _ => Node::Extension {
            extension: read_union_map(v, "the map of an extension node")?,
            child: child()?,
        },
    })
}

/// Reads a band from its node mapping `m` whose `schedule` value is `v`.
fn read_band(m: &Mapping, v: &Value, child: Box<Node>) -> Result<Band> {
    let schedule = read_union_map(v, "the schedule of a band")?;
    let permutable = match m.get("permutable") {
        Some(p) => read_flag(
            expect_scalar(p, "the permutable flag")?,
            "the permutable flag",
        )?,
        None => false,
    };
    let dims = schedule.maps().next().map(|s| s.space().n_out());
    let coincident = match m.get("coincident") {
        Some(c) => {
            let flags = expect_flow(c, "the coincident flags")?;
            let flags = flags
                .iter()
                .map(|f| read_flag(f, "a coincident flag"))
                .collect::<Result<Vec<bool>>>()?;
            if dims.is_some_and(|d| d != flags.len()) {
                return Err(error_at(
                    c.pos(),
                    format!(
                        "{} coincident flags for a band schedule of {} dimensions",
                        flags.len(),
                        dims.unwrap_or(0)
                    ),
                ));
            }
            flags
        }
        None => vec![false; dims.unwrap_or(0)],
    };
    if let Some(bad) = schedule
        .maps()
        .find(|s| s.space().n_out() != coincident.len())
    {
        return Err(error_at(
            v.pos(),
            format!(
                "the band schedule maps {} to {} dimensions, not {}",
                bad.space()
                    .domain_tuple()
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
                bad.space().n_out(),
                coincident.len()
            ),
        ));
    }
    Ok(Band {
        schedule,
        permutable,
        coincident,
        child,
    })
}

/// Reads the filter children of a sequence or set node.
fn read_children(v: &Value, kind: &str) -> Result<Vec<Node>> {
    let items = expect_items(v, &format!("the children of a {kind} node"))?;
    items
        .iter()
        .map(|item| {
            let node = read_node(item)?;
            if !matches!(node, Node::Filter { .. }) {
                return Err(error_at(
                    item.pos(),
                    format!("a child of a {kind} node must be a filter"),
                ));
            }
            Ok(node)
        })
        .collect()
}

fn read_array(v: &Value) -> Result<Array> {
    let m = expect_mapping(v, "an array")?;
    m.check_keys("an array", &["name", "type", "extents", "local"])?;
    let local = match m.get("local") {
        Some(l) => read_flag(expect_scalar(l, "the local flag")?, "the local flag")?,
        None => false,
    };
    Ok(Array {
        name: expect_scalar(m.require("name", "an array")?, "the array's name")?
            .text
            .clone(),
        element_type: expect_scalar(m.require("type", "an array")?, "the element type")?
            .text
            .clone(),
        extents: strings(expect_flow(
            m.require("extents", "an array")?,
            "the extents",
        )?),
        local,
    })
}

fn read_access(v: &Value) -> Result<Access> {
    let m = expect_mapping(v, "an access")?;
    m.check_keys("an access", &["read", "write", "array"])?;
    let (kind, relation) = match (m.get("read"), m.get("write")) {
        (Some(r), None) => (AccessKind::Read, r),
        (None, Some(w)) => (AccessKind::Write, w),
        _ => {
            return Err(error_at(
                m.pos,
                "an access has exactly one of 'read' and 'write'",
            ))
        }
    };
    let relation = read_map(relation, "an access relation")?;
    let array = match m.get("array") {
        Some(a) => expect_scalar(a, "the accessed array's name")?.text.clone(),
        None => match relation.space().range_tuple().and_then(|t| t.name()) {
            Some(name) => name.to_string(),
            None => {
                return Err(error_at(
                    m.pos,
                    "the access relation has no named range: add 'array: name'",
                ))
            }
        },
    };
    Ok(Access {
        kind,
        array,
        relation,
    })
}

fn read_statement(v: &Value) -> Result<Statement> {
    let what = "a statement";
    let m = expect_mapping(v, what)?;
    m.check_keys(what, &["name", "iterators", "domain", "body", "accesses"])?;
    let name = expect_scalar(m.require("name", what)?, "the statement's name")?;
    let iterators = expect_flow(m.require("iterators", what)?, "the iterators")?;
    let domain = read_set(m.require("domain", what)?, "an iteration domain")?;
    let body = expect_scalar(m.require("body", what)?, "the statement's body")?;
    let accesses = expect_items(m.require("accesses", what)?, "the accesses")?
        .iter()
        .map(read_access)
        .collect::<Result<Vec<Access>>>()?;
    Ok(Statement {
        name: name.text.clone(),
        domain,
        iterators: strings(iterators),
        accesses,
        body: body.text.clone(),
    })
}

/// Reads the parameter list, refusing duplicates.
fn read_params(v: &Value) -> Result<Vec<String>> {
    let items = expect_flow(v, "the parameters")?;
    for (k, p) in items.iter().enumerate() {
        if items[..k].iter().any(|q| q.text == p.text) {
            return Err(error_at(p.pos, format!("duplicate parameter {}", p.text)));
        }
    }
    Ok(strings(items))
}

/// Reads the context and checks that it is a parameter set over `params`.
fn read_context(v: &Value, params: &[String]) -> Result<Set> {
    let context = read_set(v, "the context (a parameter set)")?;
    if !context.space().is_params() {
        return Err(error_at(
            v.pos(),
            "the context must be a parameter set [..] -> { : .. }",
        ));
    }
    if context.space().param_names() != params {
        return Err(error_at(
            v.pos(),
            format!(
                "the context's parameters [{}] are not the scop's [{}]",
                context.space().param_names().join(", "),
                params.join(", ")
            ),
        ));
    }
    Ok(context)
}

fn read_scop(m: &Mapping) -> Result<Scop> {
    let what = "the scop";
    m.check_keys(
        what,
        &["params", "context", "arrays", "statements", "schedule"],
    )?;
    let params = read_params(m.require("params", what)?)?;
    let context = read_context(m.require("context", what)?, &params)?;
    let arrays = expect_items(m.require("arrays", what)?, "the arrays")?
        .iter()
        .map(read_array)
        .collect::<Result<Vec<Array>>>()?;
    let statements = expect_items(m.require("statements", what)?, "the statements")?
        .iter()
        .map(read_statement)
        .collect::<Result<Vec<Statement>>>()?;
    let root = read_node(m.require("schedule", what)?)?;
    Ok(Scop {
        params,
        context,
        arrays,
        statements,
        schedule: ScheduleTree { root },
    })
}

/// Reads a scop from its text form and checks it with [`Scop::validate`].
///
/// Malformed text is an [`Error::Parse`] at the offending line and column; a well-formed
/// text describing an invalid scop is the error of [`Scop::validate`].
pub fn parse(text: &str) -> Result<Scop> {
    let mapping = Reader::new(text)?.read_document()?;
    let scop = read_scop(&mapping)?;
    scop.validate()?;
    Ok(scop)
}

/// Reads a schedule tree from its text form (as printed by its `Display`).
pub fn parse_schedule_tree(text: &str) -> Result<ScheduleTree> {
    let mut reader = Reader::new(text)?;
    let root = match reader.peek() {
        Some(line) if line.key_at(line.start).is_none() => {
            let line = line.clone();
            reader.next += 1;
            let value = inline_value(&line, line.start)?;
            if let Some(rest) = reader.peek() {
                return Err(error_at(
                    rest.pos(rest.start),
                    "unexpected content after the tree",
                ));
            }
            read_node(&value)?
        }
        _ => read_node_mapping(&reader.read_document()?)?,
    };
    Ok(ScheduleTree { root })
}

impl FromStr for Scop {
    type Err = Error;

    fn from_str(text: &str) -> Result<Scop> {
        parse(text)
    }
}

impl FromStr for ScheduleTree {
    type Err = Error;

    fn from_str(text: &str) -> Result<ScheduleTree> {
        parse_schedule_tree(text)
    }
}
