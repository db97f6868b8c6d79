//! SVG text for the figures: a few shapes and text, with the text's width
//! known beforehand so that the layout can keep labels apart.

use std::fmt::Write;

use super::Rgb;

/// Advance widths of DejaVu Sans (the "sans-serif" of [`super::rasterise`])
/// for the printable ASCII characters, in thousandths of an em, read from
/// the font's `hmtx` table.
const ADVANCE: [u16; 95] = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];

/// How far text reaches above its baseline, in ems (accents and
/// parentheses included).
pub(crate) const ASCENT: f64 = 0.82;
/// How far text reaches below its baseline, in ems.
pub(crate) const DESCENT: f64 = 0.24;

/// The width of `text` set in DejaVu Sans at `size` pixels. Characters
/// outside ASCII and the Greek letters the figures use count as the widest
/// symbols (0.838 em), so the estimate errs on the wide side.
pub fn text_width(text: &str, size: f64) -> f64 {
    let thousandths: u32 = text
        .chars()
        .map(|c| match c {
            ' '..='~' => u32::from(ADVANCE[c as usize - 32]),
            'μ' | 'ρ' | '–' => 636,
            'λ' => 592,
            '·' | '’' => 318,
            _ => 838,
        })
        .sum();
    f64::from(thousandths) * size / 1000.0
}

/// How a line is drawn.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stroke {
    pub(crate) colour: Rgb,
    pub(crate) width: f64,
    /// (dash, gap, offset) in pixels; solid when `None`.
    pub(crate) dash: Option<(f64, f64, f64)>,
    pub(crate) opacity: f64,
}

impl Stroke {
    pub(crate) fn solid(colour: Rgb, width: f64) -> Stroke {
        Stroke {
            colour,
            width,
            dash: None,
            opacity: 1.0,
        }
    }
}

/// Where a text's anchor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

/// A picture being written.
pub(crate) struct Svg {
    out: String,
}

/// A number as SVG writes it: two decimals at most, none needless.
fn n(v: f64) -> String {
    let text = format!("{v:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

pub(crate) fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn stroke_attributes(s: &Stroke) -> String {
    let mut a = format!(
        r#"fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round""#,
        hex(s.colour),
        n(s.width)
    );
    if let Some((dash, gap, offset)) = s.dash {
        let _ = write!(
            a,
            r#" stroke-dasharray="{} {}" stroke-dashoffset="{}""#,
            n(dash),
            n(gap),
            n(offset)
        );
    }
    if s.opacity < 1.0 {
        let _ = write!(a, r#" stroke-opacity="{}""#, n(s.opacity));
    }
    a
}

impl Svg {
    /// A white picture `width` × `height` pixels.
    pub(crate) fn new(width: f64, height: f64) -> Svg {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
            w = n(width),
            h = n(height)
        );
        let _ = writeln!(
            out,
            r#"<rect x="0" y="0" width="{}" height="{}" fill="white"/>"#,
            n(width),
            n(height)
        );
        Svg { out }
    }

    pub(crate) fn line(&mut self, a: (f64, f64), b: (f64, f64), stroke: &Stroke) {
        let _ = writeln!(
            self.out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {}/>"#,
            n(a.0),
            n(a.1),
            n(b.0),
            n(b.1),
            stroke_attributes(stroke)
        );
    }

    pub(crate) fn polyline(&mut self, points: &[(f64, f64)], stroke: &Stroke) {
        if points.len() < 2 {
            return;
        }
        let _ = writeln!(
            self.out,
            r#"<polyline points="{}" {}/>"#,
            points_text(points),
            stroke_attributes(stroke)
        );
    }

    pub(crate) fn polygon(&mut self, points: &[(f64, f64)], fill: Rgb, opacity: f64) {
        let _ = writeln!(
            self.out,
            r#"<polygon points="{}" fill="{}" fill-opacity="{}" stroke="none"/>"#,
            points_text(points),
            hex(fill),
            n(opacity)
        );
    }

    pub(crate) fn circle(&mut self, centre: (f64, f64), r: f64, fill: Rgb) {
        let _ = writeln!(
            self.out,
            r#"<circle cx="{}" cy="{}" r="{}" fill="{}"/>"#,
            n(centre.0),
            n(centre.1),
            n(r),
            hex(fill)
        );
    }

    /// A circle's outline.
    pub(crate) fn ring(&mut self, centre: (f64, f64), r: f64, stroke: &Stroke) {
        let _ = writeln!(
            self.out,
            r#"<circle cx="{}" cy="{}" r="{}" {}/>"#,
            n(centre.0),
            n(centre.1),
            n(r),
            stroke_attributes(stroke)
        );
    }

    /// A rectangle, filled (colour and opacity) and/or outlined.
    pub(crate) fn rect(
        &mut self,
        (x, y, w, h): (f64, f64, f64, f64),
        fill: Option<(Rgb, f64)>,
        stroke: Option<&Stroke>,
    ) {
        let fill = fill.map_or_else(
            || r#"fill="none""#.to_string(),
            |(c, o)| format!(r#"fill="{}" fill-opacity="{}""#, hex(c), n(o)),
        );
        let stroke = stroke.map_or_else(String::new, |s| {
            stroke_attributes(s).replacen(r#"fill="none" "#, "", 1)
        });
        let _ = writeln!(
            self.out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" {fill} {stroke}/>"#,
            n(x),
            n(y),
            n(w),
            n(h)
        );
    }

    /// Text with its baseline at `y`; turned a quarter anticlockwise about
    /// its anchor when `vertical`.
    pub(crate) fn text(
        &mut self,
        (x, y): (f64, f64),
        text: &str,
        size: f64,
        anchor: Anchor,
        colour: Rgb,
        vertical: bool,
    ) {
        let anchor = match anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        };
        let turn = if vertical {
            format!(r#" transform="rotate(-90 {} {})""#, n(x), n(y))
        } else {
            String::new()
        };
        let _ = writeln!(
            self.out,
            r#"<text x="{}" y="{}" font-family="sans-serif" font-size="{}" text-anchor="{anchor}" fill="{}"{turn}>{}</text>"#,
            n(x),
            n(y),
            n(size),
            hex(colour),
            escape(text)
        );
    }

    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

fn points_text(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|&(x, y)| format!("{},{}", n(x), n(y)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with the characters HTML and SVG give a meaning escaped (in
/// element text and in quoted attributes).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_font() {
        // Digits are 0.636 em in DejaVu Sans.
        assert!((text_width("1000", 10.0) - 25.44).abs() < 1e-9);
        assert!(text_width("mmm", 12.0) > text_width("iii", 12.0) * 3.0);
        assert!(text_width("μ = 45", 12.0) > 0.0);
    }

    #[test]
    fn numbers_and_text_are_written_plainly() {
        assert_eq!(n(3.0), "3");
        assert_eq!(n(2.5), "2.5");
        assert_eq!(n(-0.001), "0");
        assert_eq!(escape("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
    }
}
