//! The SVG renderer: a [`Plot`] of dots, shaded cells, arrows and labels on an integer
//! grid, printed as one self-contained `<svg>` element.
//!
//! Every coordinate is an integer number of pixels computed from the grid coordinates
//! with integer arithmetic, so that the text is the same on every machine (golden files).
//! The vertical axis points up, as in textbook iteration-space diagrams. Points of several
//! statements at the same grid place are shifted apart by a few pixels (their *slot*).
//! Shaded cells of different tiles are separated by a border line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The colour of flow, anti and output dependences, in that order.
pub const KIND_COLORS: [&str; 3] = ["#d62728", "#1f77b4", "#2ca02c"];
/// The fill colours of statements' dots, by statement index (cycled).
pub const STATEMENT_COLORS: [&str; 6] = [
    "#333333", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
];
/// The fill colours of tiles, by tile number (cycled).
pub const TILE_COLORS: [&str; 6] = [
    "#fde0c5", "#c6e2f5", "#d5f0c8", "#f3d1ec", "#fff2b3", "#d9d9f3",
];

/// A dot at a grid place.
#[derive(Clone, Debug)]
pub struct Dot {
    /// Grid coordinates.
    pub at: (i64, i64),
    /// Which statement of the picture (the offset at a shared place).
    pub slot: usize,
    /// Index into [`STATEMENT_COLORS`] (cycled): the statement's place in its scop.
    pub color: usize,
    /// A label written next to the dot (an execution number).
    pub label: Option<String>,
}

/// An arrow between two grid places.
#[derive(Clone, Debug)]
pub struct Arrow {
    /// Tail: grid coordinates and slot.
    pub from: ((i64, i64), usize),
    /// Head: grid coordinates and slot.
    pub to: ((i64, i64), usize),
    /// Index into [`KIND_COLORS`].
    pub kind: usize,
}

/// A shaded grid cell (a point of a tile).
#[derive(Clone, Debug)]
pub struct Cell {
    /// Grid coordinates.
    pub at: (i64, i64),
    /// Index into [`TILE_COLORS`] (cycled).
    pub shade: usize,
}

/// What a picture holds.
#[derive(Clone, Debug, Default)]
pub struct Plot {
    /// The title, above the grid.
    pub title: String,
    /// The horizontal axis' name.
    pub x_label: String,
    /// The vertical axis' name.
    pub y_label: String,
    /// Shaded cells, drawn first.
    pub cells: Vec<Cell>,
    /// Big labels over the cells (tile numbers).
    pub cell_labels: Vec<((i64, i64), String)>,
    /// Arrows, drawn under the dots.
    pub arrows: Vec<Arrow>,
    /// Dots.
    pub dots: Vec<Dot>,
    /// The number of statement slots.
    pub slots: usize,
    /// Legend lines: a colour and its meaning.
    pub legend: Vec<(String, String)>,
    /// A line of text under the picture.
    pub note: String,
}

/// Margins and sizes, in pixels.
const LEFT: i64 = 56;
const TOP: i64 = 36;
const BOTTOM: i64 = 48;
const LEGEND: i64 = 170;
const MAX_GRID: i64 = 640;

impl Plot {
    /// The bounding box of everything placed on the grid; `(0, 0)..(0, 0)` when empty.
    fn bounds(&self) -> (i64, i64, i64, i64) {
        let places = self
            .dots
            .iter()
            .map(|d| d.at)
            .chain(self.cells.iter().map(|c| c.at))
            .chain(self.arrows.iter().flat_map(|a| [a.from.0, a.to.0]));
        let mut bounds: Option<(i64, i64, i64, i64)> = None;
        for (x, y) in places {
            bounds = Some(match bounds {
                None => (x, x, y, y),
                Some((x0, x1, y0, y1)) => (x0.min(x), x1.max(x), y0.min(y), y1.max(y)),
            });
        }
        bounds.unwrap_or((0, 0, 0, 0))
    }

    /// The picture as an `<svg>` element.
    pub fn render(&self) -> String {
        let (x0, x1, y0, y1) = self.bounds();
        let span = (x1 - x0 + 1).max(y1 - y0 + 1);
        let cell = (MAX_GRID / span).clamp(10, 40);
        let grid_w = (x1 - x0 + 1) * cell;
        let grid_h = (y1 - y0 + 1) * cell;
        let width = LEFT + grid_w + 16 + LEGEND;
        let height = TOP + grid_h + BOTTOM + if self.note.is_empty() { 0 } else { 18 };
        let radius = (cell / 6).clamp(2, 5);
        let slots = self.slots.max(1) as i64;
        let shift = (cell / 2 - radius).min(4 * radius) / slots.max(2);
        // The centre of a grid place, in pixels, for a slot.
        let px = |(x, y): (i64, i64), slot: usize| -> (i64, i64) {
            let offset = (2 * slot as i64 - (slots - 1)) * shift / 2;
            (
                LEFT + (x - x0) * cell + cell / 2 + offset,
                TOP + (y1 - y) * cell + cell / 2 - offset,
            )
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">"
        );
        let _ = writeln!(s, "<title>{}</title>", escape(&self.title));
        s.push_str("<defs>\n");
        for (k, color) in KIND_COLORS.iter().enumerate() {
            let _ = writeln!(
                s,
                "<marker id=\"head{k}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
                 markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\">\
                 <path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{color}\"/></marker>"
            );
        }
        s.push_str("</defs>\n");
        s.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        let _ = writeln!(
            s,
            "<text x=\"{LEFT}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>",
            escape(&self.title)
        );
        // Grid lines and tick labels.
        let step = tick_step(span);
        s.push_str("<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n");
        for x in x0..=x1 {
            let cx = LEFT + (x - x0) * cell + cell / 2;
            let _ = writeln!(
                s,
                "<line x1=\"{cx}\" y1=\"{TOP}\" x2=\"{cx}\" y2=\"{}\"/>",
                TOP + grid_h
            );
        }
        for y in y0..=y1 {
            let cy = TOP + (y1 - y) * cell + cell / 2;
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{cy}\" x2=\"{}\" y2=\"{cy}\"/>",
                LEFT + grid_w
            );
        }
        s.push_str("</g>\n");
        let _ = writeln!(
            s,
            "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{grid_w}\" height=\"{grid_h}\" fill=\"none\" stroke=\"#999999\"/>"
        );
        s.push_str("<g fill=\"#555555\" text-anchor=\"middle\">\n");
        for x in (x0..=x1).filter(|x| x.rem_euclid(step) == 0) {
            let cx = LEFT + (x - x0) * cell + cell / 2;
            let _ = writeln!(s, "<text x=\"{cx}\" y=\"{}\">{x}</text>", TOP + grid_h + 14);
        }
        for y in (y0..=y1).filter(|y| y.rem_euclid(step) == 0) {
            let cy = TOP + (y1 - y) * cell + cell / 2 + 4;
            let _ = writeln!(s, "<text x=\"{}\" y=\"{cy}\">{y}</text>", LEFT - 12);
        }
        s.push_str("</g>\n");
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">{} →</text>",
            LEFT + grid_w / 2,
            TOP + grid_h + 32,
            escape(&self.x_label)
        );
        let (lx, ly) = (16, TOP + grid_h / 2);
        let _ = writeln!(
            s,
            "<text x=\"{lx}\" y=\"{ly}\" text-anchor=\"middle\" font-size=\"13\" \
             transform=\"rotate(-90 {lx} {ly})\">{} →</text>",
            escape(&self.y_label)
        );
        // Cells.
        if !self.cells.is_empty() {
            s.push_str("<g stroke=\"none\">\n");
            for c in &self.cells {
                let x = LEFT + (c.at.0 - x0) * cell;
                let y = TOP + (y1 - c.at.1) * cell;
                let color = TILE_COLORS[c.shade % TILE_COLORS.len()];
                let _ = writeln!(
                    s,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"{color}\"/>"
                );
            }
            s.push_str("</g>\n");
            // Tile borders: the cell edges between different tiles (or none).
            let shade: BTreeMap<(i64, i64), usize> =
                self.cells.iter().map(|c| (c.at, c.shade)).collect();
            s.push_str("<g stroke=\"#7a3b00\" stroke-width=\"1.5\">\n");
            for (&(x, y), &n) in &shade {
                let left = LEFT + (x - x0) * cell;
                let top = TOP + (y1 - y) * cell;
                let (right, bottom) = (left + cell, top + cell);
                let sides = [
                    ((x - 1, y), (left, top, left, bottom)),
                    ((x + 1, y), (right, top, right, bottom)),
                    ((x, y + 1), (left, top, right, top)),
                    ((x, y - 1), (left, bottom, right, bottom)),
                ];
                for (next, (ax, ay, bx, by)) in sides {
                    if shade.get(&next) != Some(&n) {
                        let _ =
                            writeln!(s, "<line x1=\"{ax}\" y1=\"{ay}\" x2=\"{bx}\" y2=\"{by}\"/>");
                    }
                }
            }
            s.push_str("</g>\n");
        }
        // Arrows.
        if !self.arrows.is_empty() {
            s.push_str("<g stroke-width=\"1.5\" fill=\"none\">\n");
            for a in &self.arrows {
                let (ax, ay) = px(a.from.0, a.from.1);
                let (bx, by) = px(a.to.0, a.to.1);
                let (dx, dy) = (bx - ax, by - ay);
                let len = isqrt(dx * dx + dy * dy);
                if len <= 2 * radius {
                    continue;
                }
                // Kinds are shifted sideways by 2 pixels each, so that a flow and an
                // anti dependence between the same points are both seen.
                let side = 2 * (a.kind as i64 % 3 - 1);
                let (ox, oy) = (-dy * side / len, dx * side / len);
                let (sx, sy) = (ax + dx * radius / len + ox, ay + dy * radius / len + oy);
                let (ex, ey) = (
                    bx - dx * (radius + 1) / len + ox,
                    by - dy * (radius + 1) / len + oy,
                );
                let color = KIND_COLORS[a.kind % KIND_COLORS.len()];
                let _ = writeln!(
                    s,
                    "<line x1=\"{sx}\" y1=\"{sy}\" x2=\"{ex}\" y2=\"{ey}\" stroke=\"{color}\" \
                     marker-end=\"url(#head{})\"/>",
                    a.kind % KIND_COLORS.len()
                );
            }
            s.push_str("</g>\n");
        }
        // Dots and their labels.
        if !self.dots.is_empty() {
            s.push_str("<g>\n");
            for d in &self.dots {
                let (cx, cy) = px(d.at, d.slot);
                let color = STATEMENT_COLORS[d.color % STATEMENT_COLORS.len()];
                let _ = writeln!(
                    s,
                    "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{radius}\" fill=\"{color}\"/>"
                );
                if let Some(label) = &d.label {
                    // Odd slots (shifted up and right) label above right, even ones
                    // below left, so that the labels of statements sharing a place do
                    // not overlap.
                    let (lx, ly, anchor) = if d.slot % 2 == 1 {
                        (cx + radius, cy - radius, "start")
                    } else {
                        (cx - radius, cy + radius + 7, "end")
                    };
                    let _ = writeln!(
                        s,
                        "<text x=\"{lx}\" y=\"{ly}\" text-anchor=\"{anchor}\" font-size=\"{}\" fill=\"#000000\">{}</text>",
                        (cell / 3).clamp(7, 11),
                        escape(label)
                    );
                }
            }
            s.push_str("</g>\n");
        }
        if !self.cell_labels.is_empty() {
            s.push_str(
                "<g font-weight=\"bold\" text-anchor=\"middle\" fill=\"#7a3b00\" \
                 stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">\n",
            );
            for (at, label) in &self.cell_labels {
                let cx = LEFT + (at.0 - x0) * cell + cell / 2;
                let cy = TOP + (y1 - at.1) * cell + cell / 2 + 5;
                let _ = writeln!(
                    s,
                    "<text x=\"{cx}\" y=\"{cy}\" font-size=\"{}\">{}</text>",
                    (cell / 2).clamp(10, 18),
                    escape(label)
                );
            }
            s.push_str("</g>\n");
        }
        // Legend.
        let lx = LEFT + grid_w + 16;
        for (k, (color, text)) in self.legend.iter().enumerate() {
            let y = TOP + 8 + 18 * k as i64;
            let _ = writeln!(
                s,
                "<rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\
                 <text x=\"{}\" y=\"{}\">{}</text>",
                y - 10,
                escape(color),
                lx + 18,
                y,
                escape(text)
            );
        }
        if !self.note.is_empty() {
            let _ = writeln!(
                s,
                "<text x=\"{LEFT}\" y=\"{}\" fill=\"#555555\">{}</text>",
                height - 8,
                escape(&self.note)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// The distance between tick labels: every value on small grids, fewer on large ones.
fn tick_step(span: i64) -> i64 {
    match span {
        0..=20 => 1,
        21..=50 => 5,
        51..=200 => 10,
        _ => 50,
    }
}

/// The integer square root (floor).
fn isqrt(n: i64) -> i64 {
    if n <= 0 {
        return 0;
    }
    let mut x = n;
    let mut y = (x + 1) / 2;
    while y < x {
        x = y;
        y = (x + n / x) / 2;
    }
    x
}

/// Text escaped for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_roots() {
        for n in 0..2000 {
            let r = isqrt(n);
            assert!(r * r <= n && (r + 1) * (r + 1) > n, "{n}");
        }
    }

    #[test]
    fn escaping() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
