//! The `.map` text the decompiler writes, and a reader for it (used to measure what was written,
//! and for the editors' own sources beside the corpus maps).
//!
//! Dialects: Valve 220 (`[ ux uy uz offset ] [ vx vy vz offset ] rotation sx sy`, Quake 2 and
//! GoldSrc editors), brush primitives (`brushDef { … ( ( xx xy xo ) ( yx yy yo ) ) … }`, Quake 3
//! family editors) and the standard Quake form (`xoff yoff rotation sx sy`, read only).
//! Every face line may end with `contents flags value` (Quake 2 and Quake 3 families).
//!
//! Call of Duty Radiant (`iwmap 4`): a file header `iwmap 4` and layer lines (`"name" flags …`)
//! before the first entity; a face is `( p ) ( p ) ( p ) material width height xoffset yoffset
//! rotation 0 lightmap_material lwidth lheight lxoffset lyoffset lrotation 0`, the widths being
//! world units per texture repeat. The form is read off the CoD4Radiant sources of the corpus's
//! Call of Duty 4 maps as published beside them (bsp_tool's `tests/mapsrc/CoD4Radiant`).

use std::fmt::Write as _;

use super::geom::Plane;
use crate::error::{Error, Result};

/// How a side's texture is projected.
#[derive(Debug, Clone, PartialEq)]
pub enum TexProjection {
    /// Valve 220: `s = dot(p, u) / scale[0] + u[3]`, `t = dot(p, v) / scale[1] + v[3]`.
    Valve { u: [f64; 4], v: [f64; 4], rotation: f64, scale: [f64; 2] },
    /// Brush primitives: `s = m[0]·(x, y, 1)`, `t = m[1]·(x, y, 1)` with `(x, y)` the point on
    /// the plane's base texture axes ([`base_axes`]), in texture widths.
    BrushPrimitive { m: [[f64; 3]; 2] },
    /// The standard Quake form: offsets, rotation and scale on the plane's nearest axis.
    Standard { offset: [f64; 2], rotation: f64, scale: [f64; 2] },
}

/// One brush side as written: three points, texture and its projection, optional flags.
#[derive(Debug, Clone, PartialEq)]
pub struct MapSide {
    pub points: [[f64; 3]; 3],
    pub texture: String,
    pub projection: TexProjection,
    /// `contents flags value`, where the dialect writes them.
    pub flags: Option<[i64; 3]>,
}

impl MapSide {
    pub fn plane(&self) -> Option<Plane> {
        Plane::from_points(self.points)
    }
}

/// A Quake 3 `patchDef2`: control points as stored in the map, row-major (`width` per row).
#[derive(Debug, Clone, PartialEq)]
pub struct MapPatch {
    pub texture: String,
    pub width: usize,
    pub height: usize,
    /// `x y z s t` per control point.
    pub points: Vec<[f64; 5]>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MapPrimitive {
    Brush(Vec<MapSide>),
    Patch(MapPatch),
}

/// An entity: its pairs in order, then its brushes and patches.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MapEntity {
    pub pairs: Vec<(String, String)>,
    pub primitives: Vec<MapPrimitive>,
}

impl MapEntity {
    pub fn brushes(&self) -> impl Iterator<Item = &Vec<MapSide>> {
        self.primitives.iter().filter_map(|p| match p {
            MapPrimitive::Brush(b) => Some(b),
            MapPrimitive::Patch(_) => None,
        })
    }
}

/// The dialect a map is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Valve 220 faces with `contents flags value` (Quake 2 editors, ericw-tools qbsp).
    Quake2Valve,
    /// Brush primitives (`brushDef`) and `patchDef2` (Radiant-family Quake 3 editors).
    Quake3BrushDef,
    /// Call of Duty Radiant (`iwmap 4`); sides carry [`TexProjection::Standard`] read as
    /// `scale` = world units per texture repeat, then offsets and rotation.
    CodRadiant,
}

/// The lightmap part every Call of Duty Radiant face line ends with (the editor's default).
const COD_LIGHTMAP_TAIL: &str = " 0 lightmap_gray 16384 16384 0 0 0 0";

/// Brush primitives' base texture axes for a plane normal (the construction Radiant and q3map2
/// use: the normal's azimuth and elevation give a horizontal `x` axis and a `y` axis below it).
pub fn base_axes(normal: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let n = normal.map(|c| if c.abs() < 1e-6 { 0.0 } else { c });
    let rot_y = -n[2].atan2((n[0] * n[0] + n[1] * n[1]).sqrt());
    let rot_z = n[1].atan2(n[0]);
    let x = [-rot_z.sin(), rot_z.cos(), 0.0];
    let y = [-rot_y.sin() * rot_z.cos(), -rot_y.sin() * rot_z.sin(), -rot_y.cos()];
    (x, y)
}

/// A number as `.map` text: integers without a fraction, others in Rust's shortest exact form
/// (reads back to the same `f64`).
pub(crate) fn num(out: &mut String, v: f64) {
    let v = if v == 0.0 { 0.0 } else { v };
    if whole(v) {
        out.push_str(itoa::Buffer::new().format(v as i64));
    } else {
        push_float(out, v);
    }
}

/// `v.fract() == 0.0 && v.abs() < 1e15`, without the call to `trunc` (0.75 % of a 10 MB Quake
/// 3 decompile in callgrind): below 10¹⁵ (< 2⁵³) the integer part `v as i64` is exact and
/// converts back exactly, so it equals `v` just when `v` has no fraction; NaN fails the bound.
fn whole(v: f64) -> bool {
    v.abs() < 1e15 && (v as i64) as f64 == v
}

/// [`num`] with the text of fractions kept by their bits: a map's texture matrices repeat a few
/// values (1/128 on most sides; 6,642 distinct among 70,067 fractions of a 10 MB Quake 3 map),
/// and `Display`'s shortest digits were most of the writing (8 % of that decompile in
/// callgrind). A direct-mapped table: a value meets only its own slot, so a hit is its own text.
pub(crate) struct NumText {
    /// `(bits, text)`; an empty text is an empty slot. Held as text, so that a hit is copied
    /// without checking it again as UTF-8 (that check was 1.4 % of a 10 MB Quake 3 decompile
    /// in callgrind); a slot's string is allocated once, when first used.
    slots: Vec<(u64, String)>,
}

/// Longest text kept (a longer one is formatted every time).
const NUM_TEXT_MAX: usize = 30;
/// Slots of [`NumText`], a power of two.
const NUM_TEXT_SLOTS: usize = 1024;

impl NumText {
    pub(crate) fn new() -> Self {
        NumText { slots: vec![(0, String::new()); NUM_TEXT_SLOTS] }
    }
    /// Append `v` exactly as [`num`] does.
    pub(crate) fn push(&mut self, out: &mut String, v: f64) {
        let v = if v == 0.0 { 0.0 } else { v };
        if whole(v) {
            out.push_str(itoa::Buffer::new().format(v as i64));
            return;
        }
        let bits = v.to_bits();
        // Fibonacci hashing: the top bits of the product pick the slot.
        let slot = &mut self.slots[(bits.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - NUM_TEXT_SLOTS.trailing_zeros())) as usize];
        if !slot.1.is_empty() && slot.0 == bits {
            out.push_str(&slot.1);
            return;
        }
        let start = out.len();
        push_float(out, v);
        let text = &out[start..];
        if text.len() <= NUM_TEXT_MAX {
            slot.0 = bits;
            slot.1.clear();
            slot.1.push_str(text);
        }
    }
}

/// Append `v` as `format!("{v}")` writes it, with no string of its own. (zmij, whose shortest
/// digits are faster, was tried: on a tie between two shortest forms it rounds to even where
/// `Display` rounds away from zero, e.g. the `f32` −8.9967803955078125 came out …812 for
/// `Display`'s …813, which would change the output.)
pub(crate) fn push_float<F: std::fmt::Display>(out: &mut String, v: F) {
    let _ = write!(out, "{v}");
}

/// `values` as text, one space between them, each written by `push` (a `.vmf` vector).
pub(crate) fn joined<T: Copy>(values: &[T], push: fn(&mut String, T)) -> String {
    let mut s = String::with_capacity(12 * values.len());
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        push(&mut s, *v);
    }
    s
}

/// `t` as a number, as `t.parse::<f64>()` reads it. A plain decimal of at most 15 digits
/// (`-12.5`, `1024`) is read directly: its digits as an integer are exact in an `f64`, and so
/// is the power of ten dividing them (up to 10²²), and one division rounds correctly, so the
/// result is the correctly rounded value `parse` gives. Anything else goes to `parse`.
pub(crate) fn parse_f64(t: &str) -> Option<f64> {
    parse_plain(t.as_bytes()).or_else(|| t.parse().ok())
}

/// The fast path of [`parse_f64`]: a plain decimal of at most 15 digits, `None` for anything
/// else (which `parse` then reads).
fn parse_plain(b: &[u8]) -> Option<f64> {
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut m: u64 = 0;
    let mut n = 0usize;
    let mut frac: Option<usize> = None;
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + u64::from(c - b'0');
                n += 1;
                if n > 15 {
                    return None;
                }
                if let Some(f) = frac.as_mut() {
                    *f += 1;
                }
            }
            b'.' if frac.is_none() => frac = Some(0),
            _ => return None,
        }
    }
    if n == 0 {
        return None;
    }
    let v = m as f64 / POW10[frac.unwrap_or(0)];
    Some(if neg { -v } else { v })
}

/// Powers of ten exact in an `f64`, for [`parse_plain`].
const POW10: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// `s` in double quotes; the `.vmf` writer quotes its pairs the same way.
pub(crate) fn quoted(out: &mut String, s: &str) {
    // Map files have no escapes: a quote inside a value cannot be written, so it is replaced.
    out.push('"');
    if s.contains('"') {
        out.extend(s.chars().map(|c| if c == '"' { '\'' } else { c }));
    } else {
        out.push_str(s);
    }
    out.push('"');
}

fn texture_token(s: &str) -> String {
    let mut out = String::new();
    push_texture_token(&mut out, s);
    out
}

/// [`texture_token`] appended to `out` (no string of its own per side).
fn push_texture_token(out: &mut String, s: &str) {
    // ASCII without whitespace, quotes or parentheses (almost every name) is written as it is,
    // tested byte by byte; anything else is tested by character below (the ASCII characters
    // `char::is_whitespace` takes are 0x09–0x0D and the space).
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ' | b'"' | b'(' | b')')) {
        out.push_str(s);
    } else if s.is_empty() {
        out.push_str("NULL");
    } else if s.contains(|c: char| c.is_whitespace() || c == '"' || c == '(' || c == ')') {
        out.extend(s.chars().map(|c| if c.is_whitespace() || c == '"' || c == '(' || c == ')' { '_' } else { c }));
    } else {
        out.push_str(s);
    }
}

/// Write `entities` as `.map` text in `dialect`, after `header` comment lines.
pub fn write_map(entities: &[MapEntity], dialect: Dialect, header: &[String]) -> String {
    // About the text's size up front: grown by doubling from 256 bytes an entity, the buffer
    // was reallocated and copied several times over (writing was 12 % of a Quake 2 decompile in
    // perf). A face line is about 100 bytes, a patch point about 40.
    let guess: usize = entities
        .iter()
        .map(|e| {
            64 + e.pairs.iter().map(|(k, v)| k.len() + v.len() + 6).sum::<usize>()
                + e.primitives
                    .iter()
                    .map(|p| match p {
                        MapPrimitive::Brush(sides) => 32 + sides.len() * 112,
                        MapPrimitive::Patch(p) => 96 + p.points.len() * 40,
                    })
                    .sum::<usize>()
        })
        .sum();
    let mut out = String::with_capacity(guess + 256);
    let mut nums = NumText::new();
    if dialect == Dialect::CodRadiant {
        // The editor reads the version line first; comments may follow it.
        out.push_str("iwmap 4\n");
    }
    for h in header {
        let _ = writeln!(out, "// {h}");
    }
    for (ei, e) in entities.iter().enumerate() {
        let mut itoa_buf = itoa::Buffer::new();
        out.push_str("// entity ");
        out.push_str(itoa_buf.format(ei));
        out.push_str("\n{\n");
        for (k, v) in &e.pairs {
            quoted(&mut out, k);
            out.push(' ');
            quoted(&mut out, v);
            out.push('\n');
        }
        for (bi, prim) in e.primitives.iter().enumerate() {
            out.push_str("// brush ");
            out.push_str(itoa_buf.format(bi));
            out.push_str("\n{\n");
            match prim {
                MapPrimitive::Brush(sides) => {
                    if dialect == Dialect::Quake3BrushDef {
                        out.push_str("brushDef\n{\n");
                    }
                    for s in sides {
                        for p in &s.points {
                            out.push_str("( ");
                            for c in p {
                                nums.push(&mut out, *c);
                                out.push(' ');
                            }
                            out.push_str(") ");
                        }
                        match &s.projection {
                            TexProjection::BrushPrimitive { m } => {
                                out.push_str("( ");
                                for row in m {
                                    out.push_str("( ");
                                    for c in row {
                                        nums.push(&mut out, *c);
                                        out.push(' ');
                                    }
                                    out.push_str(") ");
                                }
                                out.push_str(") ");
                                push_texture_token(&mut out, &s.texture);
                            }
                            TexProjection::Valve { u, v, rotation, scale } => {
                                push_texture_token(&mut out, &s.texture);
                                for axis in [u, v] {
                                    out.push_str(" [ ");
                                    for c in axis {
                                        nums.push(&mut out, *c);
                                        out.push(' ');
                                    }
                                    out.push(']');
                                }
                                for c in [*rotation, scale[0], scale[1]] {
                                    out.push(' ');
                                    nums.push(&mut out, c);
                                }
                            }
                            TexProjection::Standard { offset, rotation, scale } if dialect == Dialect::CodRadiant => {
                                push_texture_token(&mut out, &s.texture);
                                for c in [scale[0], scale[1], offset[0], offset[1], *rotation] {
                                    out.push(' ');
                                    nums.push(&mut out, c);
                                }
                                out.push_str(COD_LIGHTMAP_TAIL);
                            }
                            TexProjection::Standard { offset, rotation, scale } => {
                                push_texture_token(&mut out, &s.texture);
                                for c in [offset[0], offset[1], *rotation, scale[0], scale[1]] {
                                    out.push(' ');
                                    nums.push(&mut out, c);
                                }
                            }
                        }
                        if let (Some(f), false) = (s.flags, dialect == Dialect::CodRadiant) {
                            let mut b = itoa::Buffer::new();
                            for v in f {
                                out.push(' ');
                                out.push_str(b.format(v));
                            }
                        }
                        out.push('\n');
                    }
                    if dialect == Dialect::Quake3BrushDef {
                        out.push_str("}\n");
                    }
                }
                MapPrimitive::Patch(p) => {
                    let _ = writeln!(out, "patchDef2\n{{\n{}\n( {} {} 0 0 0 )\n(", texture_token(&p.texture), p.width, p.height);
                    // patchDef2 lists columns: `width` lists of `height` points each.
                    for col in 0..p.width {
                        out.push_str("( ");
                        for row in 0..p.height {
                            out.push_str("( ");
                            if let Some(pt) = p.points.get(row * p.width + col) {
                                for c in pt {
                                    nums.push(&mut out, *c);
                                    out.push(' ');
                                }
                            }
                            out.push_str(") ");
                        }
                        out.push_str(")\n");
                    }
                    out.push_str(")\n}\n");
                }
            }
            out.push_str("}\n");
        }
        out.push_str("}\n");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Reader

struct Lexer<'a> {
    s: &'a [u8],
    /// `s` as text where all of it is UTF-8: tokens are then sliced from it, not checked one by
    /// one (perf: `from_utf8` per token, 3 % of a Quake 2 decompile). Tokens start and end at
    /// ASCII bytes or the end, so the slices fall on character boundaries.
    text: Option<&'a str>,
    at: usize,
    line: usize,
    /// A Call of Duty Radiant file (`iwmap` header): its face lines are read in that form.
    cod: bool,
    /// The token [`Lexer::peek`] read last: the position it starts from, the position and line
    /// after it, and the token. The reader peeks before most tokens it then takes, which
    /// tokenised them twice.
    peeked: Option<(usize, usize, usize, Option<&'a str>)>,
}

impl<'a> Lexer<'a> {
    fn err(&self, what: &str) -> Error {
        Error::malformed(format!("map text line {}: {what}", self.line))
    }
    /// Skip whitespace and `//` comments.
    fn skip(&mut self) {
        loop {
            while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
                if self.s[self.at] == b'\n' {
                    self.line += 1;
                }
                self.at += 1;
            }
            if self.s[self.at..].starts_with(b"//") {
                while self.at < self.s.len() && self.s[self.at] != b'\n' {
                    self.at += 1;
                }
                continue;
            }
            break;
        }
    }
    /// The text of bytes `start..end`: `None` where they are not UTF-8.
    fn slice(&self, start: usize, end: usize) -> Option<&'a str> {
        match self.text {
            Some(t) => t.get(start..end),
            None => std::str::from_utf8(&self.s[start..end]).ok(),
        }
    }
    /// The next token: a quoted string (without quotes), a single bracket, or a bare word.
    fn next(&mut self) -> Option<&'a str> {
        if let Some((from, to, line, t)) = self.peeked {
            if from == self.at {
                self.at = to;
                self.line = line;
                return t;
            }
        }
        self.skip();
        let start = self.at;
        let c = *self.s.get(self.at)?;
        if c == b'"' {
            let end = memchr::memchr(b'"', &self.s[start + 1..]).map(|p| start + 1 + p).unwrap_or(self.s.len());
            self.at = (end + 1).min(self.s.len());
            return self.slice(start + 1, end);
        }
        if matches!(c, b'{' | b'}' | b'(' | b')' | b'[' | b']') {
            self.at += 1;
            return self.slice(start, start + 1);
        }
        while self.at < self.s.len()
            && !self.s[self.at].is_ascii_whitespace()
            && !matches!(self.s[self.at], b'{' | b'}' | b'(' | b')' | b'"')
        {
            self.at += 1;
        }
        self.slice(start, self.at)
    }
    /// A texture name: everything up to the next whitespace, brackets included (GoldSrc's
    /// transparent textures start with `{`; the compilers read names this way).
    fn word(&mut self) -> Option<&'a str> {
        self.skip();
        let start = self.at;
        while self.at < self.s.len() && !self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        (self.at > start).then(|| self.slice(start, self.at)).flatten()
    }
    fn peek(&mut self) -> Option<&'a str> {
        let (at, line) = (self.at, self.line);
        let t = self.next();
        self.peeked = Some((at, self.at, self.line, t));
        self.at = at;
        self.line = line;
        t
    }
    /// Inlined, so that the bracket test folds away at each call (`t` is a literal there):
    /// a call per bracket, with the test at run time, was 3 % of a 10 MB Quake 3 decompile in
    /// callgrind. Anything but a bracket in place goes to [`Lexer::expect_token`].
    #[inline]
    fn expect(&mut self, t: &str) -> Result<()> {
        // A bracket is a token of one byte: matched in place, without lexing it as a token
        // (brackets are half the tokens of a map; the read-back was a fifth of a 10 MB Quake 3
        // decompile in callgrind).
        if let [b @ (b'{' | b'}' | b'(' | b')' | b'[' | b']')] = t.as_bytes() {
            self.skip();
            if self.s.get(self.at) == Some(b) {
                self.at += 1;
                return Ok(());
            }
        }
        self.expect_token(t)
    }
    #[inline(never)]
    fn expect_token(&mut self, t: &str) -> Result<()> {
        match self.next() {
            Some(x) if x == t => Ok(()),
            x => Err(self.err(&format!("expected {t:?}, found {x:?}"))),
        }
    }
    /// The bare word at the cursor (after whitespace) read as [`parse_plain`] reads it, and the
    /// position after it; `None` (nothing consumed but whitespace) where it is not a plain
    /// decimal. One pass over the bytes, scanning and reading together (finding the word's
    /// end first and then reading it was most of the read-back's number reading, 10 % of a
    /// 10 MB Quake 3 decompile in callgrind).
    fn plain_number(&mut self) -> Option<f64> {
        self.skip();
        let s = self.s;
        let mut i = self.at;
        let neg = s.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        // Digits, then a point and digits: tight loops (wrapping: more than 15 digits are
        // refused below, whatever `m` became).
        let mut m = 0u64;
        let digits = |i: &mut usize, m: &mut u64| {
            let from = *i;
            while let Some(&c @ b'0'..=b'9') = s.get(*i) {
                *m = m.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
                *i += 1;
            }
            *i - from
        };
        let whole = digits(&mut i, &mut m);
        let mut frac = 0;
        if s.get(i) == Some(&b'.') {
            i += 1;
            frac = digits(&mut i, &mut m);
        }
        let n = whole + frac;
        // The word ends where `next` ends a bare word; anything else in it is not plain.
        let ends = match s.get(i) {
            None => true,
            Some(&c) => c.is_ascii_whitespace() || matches!(c, b'{' | b'}' | b'(' | b')' | b'"'),
        };
        // Up to 19 digits `m` is exact (below 2⁶⁴); more go to `next` and `parse_f64`.
        if n == 0 || n > 19 || !ends {
            return None;
        }
        let v = if n <= 15 || m <= 1 << 53 {
            // `m` and the power of ten are exact `f64`s: one division rounds correctly, to
            // the value `parse` gives (as in `parse_plain`, whose 15 digits are below 2⁵³).
            // A whole number (most of a map's) is `m` itself, without the division by 1.
            let v = if frac == 0 { m as f64 } else { m as f64 / POW10[frac] };
            if neg {
                -v
            } else {
                v
            }
        } else {
            // A 16–19 digit decimal (the shortest text of most fractions the writer puts
            // out): `parse` on the word itself, the word `next` would lex and `parse_f64`
            // would hand to `parse` (scanning it three times was 4 % of a 10 MB Quake 3
            // decompile in callgrind).
            self.slice(self.at, i)?.parse().ok()?
        };
        self.at = i;
        Some(v)
    }
    #[inline]
    fn number(&mut self) -> Result<f64> {
        // A bare word that is a plain decimal is read in place from its bytes; anything else
        // (quoted, long, an exponent, not a number) is lexed and parsed as before.
        if let Some(v) = self.plain_number() {
            return Ok(v);
        }
        self.lexed_number()
    }
    #[inline(never)]
    fn lexed_number(&mut self) -> Result<f64> {
        let t = self.next().ok_or_else(|| self.err("expected a number, found the end"))?;
        parse_f64(t).ok_or_else(|| self.err(&format!("expected a number, found {t:?}")))
    }
    fn numbers<const N: usize>(&mut self) -> Result<[f64; N]> {
        let mut a = [0.0; N];
        for v in &mut a {
            *v = self.number()?;
        }
        Ok(a)
    }
    fn point(&mut self) -> Result<[f64; 3]> {
        self.expect("(")?;
        let p = self.numbers::<3>()?;
        self.expect(")")?;
        Ok(p)
    }
}

/// Read `.map` text (any of the dialects above; comments skipped).
pub fn read_map(text: &[u8]) -> Result<Vec<MapEntity>> {
    read_lexed(Lexer { s: text, text: std::str::from_utf8(text).ok(), at: 0, line: 1, cod: false, peeked: None })
}

/// [`read_map`] of text known to be UTF-8 (the writer's own): not checked again (2.6 MB of
/// text for a 10 MB Quake 3 map, 0.2 % of its decompile in callgrind).
pub fn read_map_str(text: &str) -> Result<Vec<MapEntity>> {
    read_lexed(Lexer { s: text.as_bytes(), text: Some(text), at: 0, line: 1, cod: false, peeked: None })
}

fn read_lexed(mut lx: Lexer) -> Result<Vec<MapEntity>> {
    let mut out = Vec::new();
    if lx.peek() == Some("iwmap") {
        lx.next();
        lx.number()?;
        lx.cod = true;
        // Layer lines (a quoted name, `flags`, optional words) up to the first entity.
        while lx.peek().is_some_and(|t| t != "{") {
            lx.next();
        }
    }
    while let Some(t) = lx.next() {
        if t != "{" {
            return Err(lx.err(&format!("expected an entity, found {t:?}")));
        }
        let mut e = MapEntity::default();
        loop {
            match lx.next() {
                Some("}") => break,
                Some("{") => e.primitives.push(read_primitive(&mut lx)?),
                Some(k) => {
                    let v = lx.next().ok_or_else(|| lx.err("a key without a value"))?;
                    e.pairs.push((k.to_string(), v.to_string()));
                }
                None => return Err(lx.err("the text ends inside an entity")),
            }
        }
        out.push(e);
    }
    Ok(out)
}

fn read_primitive(lx: &mut Lexer) -> Result<MapPrimitive> {
    match lx.peek() {
        Some("brushDef") => {
            lx.next();
            lx.expect("{")?;
            // Room for a box and its bevels without regrowing.
            let mut sides = Vec::with_capacity(8);
            while lx.peek() != Some("}") {
                let points = [lx.point()?, lx.point()?, lx.point()?];
                lx.expect("(")?;
                let mut m = [[0.0; 3]; 2];
                for row in &mut m {
                    lx.expect("(")?;
                    *row = lx.numbers::<3>()?;
                    lx.expect(")")?;
                }
                lx.expect(")")?;
                let texture = lx.word().ok_or_else(|| lx.err("a side without a texture"))?.to_string();
                let flags = read_flags(lx)?;
                sides.push(MapSide { points, texture, projection: TexProjection::BrushPrimitive { m }, flags });
            }
            lx.expect("}")?;
            lx.expect("}")?;
            Ok(MapPrimitive::Brush(sides))
        }
        Some("patchDef2") => {
            lx.next();
            lx.expect("{")?;
            let texture = lx.word().ok_or_else(|| lx.err("a patch without a texture"))?.to_string();
            lx.expect("(")?;
            let info = lx.numbers::<5>()?;
            lx.expect(")")?;
            let (width, height) = (info[0] as usize, info[1] as usize);
            if width == 0 || height == 0 || width > 1024 || height > 1024 {
                return Err(lx.err("a patch size out of range"));
            }
            let mut points = vec![[0.0; 5]; width * height];
            lx.expect("(")?;
            for col in 0..width {
                lx.expect("(")?;
                for row in 0..height {
                    lx.expect("(")?;
                    points[row * width + col] = lx.numbers::<5>()?;
                    lx.expect(")")?;
                }
                lx.expect(")")?;
            }
            lx.expect(")")?;
            lx.expect("}")?;
            lx.expect("}")?;
            Ok(MapPrimitive::Patch(MapPatch { texture, width, height, points }))
        }
        _ => {
            let mut sides = Vec::with_capacity(8);
            while lx.peek() != Some("}") {
                let points = [lx.point()?, lx.point()?, lx.point()?];
                let texture = lx.word().ok_or_else(|| lx.err("a side without a texture"))?.to_string();
                let projection = if lx.peek() == Some("[") {
                    let mut axes = [[0.0; 4]; 2];
                    for a in &mut axes {
                        lx.expect("[")?;
                        *a = lx.numbers::<4>()?;
                        lx.expect("]")?;
                    }
                    let [rotation, sx, sy] = lx.numbers::<3>()?;
                    TexProjection::Valve { u: axes[0], v: axes[1], rotation, scale: [sx, sy] }
                } else if lx.cod {
                    let [sx, sy, ox, oy, rotation] = lx.numbers::<5>()?;
                    // The lightmap part: `0 name w h x y rotation 0`, not measured.
                    lx.number()?;
                    lx.word().ok_or_else(|| lx.err("a side without a lightmap material"))?;
                    lx.numbers::<6>()?;
                    sides.push(MapSide {
                        points,
                        texture,
                        projection: TexProjection::Standard { offset: [ox, oy], rotation, scale: [sx, sy] },
                        flags: None,
                    });
                    continue;
                } else {
                    let [ox, oy, rotation, sx, sy] = lx.numbers::<5>()?;
                    TexProjection::Standard { offset: [ox, oy], rotation, scale: [sx, sy] }
                };
                let flags = read_flags(lx)?;
                sides.push(MapSide { points, texture, projection, flags });
            }
            lx.expect("}")?;
            Ok(MapPrimitive::Brush(sides))
        }
    }
}

/// Optional `contents flags value` after a face (up to the next `(` or `}`).
fn read_flags(lx: &mut Lexer) -> Result<Option<[i64; 3]>> {
    // The first three values and how many there were (no vector per side).
    let (mut v, mut n) = ([0i64; 3], 0usize);
    loop {
        // A plain number is read in place (the value `parse_f64` gives its word); anything
        // else is peeked at and lexed as before.
        let x = match lx.plain_number() {
            Some(x) => x,
            None => {
                let Some(t) = lx.peek() else { break };
                if t == "(" || t == "}" {
                    break;
                }
                lx.next();
                parse_f64(t).ok_or_else(|| lx.err(&format!("expected a number, found {t:?}")))?
            }
        };
        if let Some(slot) = v.get_mut(n) {
            *slot = x as i64;
        }
        n += 1;
    }
    Ok(match n {
        0 => None,
        1 => Some([v[0], 0, 0]),
        2 => Some([v[0], v[1], 0]),
        _ => Some(v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GoldSrc's transparent textures start with `{`: the name is the whole word.
    #[test]
    fn texture_names_may_start_with_a_brace() {
        let text = "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) {fence [ 1 0 0 0 ] [ 0 -1 0 0 ] 0 1 1\n}\n}\n";
        let e = read_map(text.as_bytes()).unwrap();
        let b = e[0].brushes().next().unwrap();
        assert_eq!((b.len(), b[0].texture.as_str()), (1, "{fence"));
    }

    #[test]
    fn round_trip_both_dialects() {
        let side = |projection| MapSide {
            points: [[0.0, 0.0, 64.0], [0.0, 64.0, 64.0], [64.5, 0.0, 64.0]],
            texture: "e1u1/floor1_3".into(),
            projection,
            flags: Some([1, 0, 0]),
        };
        let patch = MapPatch {
            texture: "gothic/pipe".into(),
            width: 3,
            height: 3,
            points: (0..9).map(|i| [i as f64, 0.5, 2.0, 0.25, 1.0]).collect(),
        };
        for (dialect, proj) in [
            (
                Dialect::Quake2Valve,
                TexProjection::Valve { u: [1.0, 0.0, 0.0, 0.1], v: [0.0, -1.0, 0.0, 3.0], rotation: 0.0, scale: [0.5, 2.0] },
            ),
            (Dialect::Quake3BrushDef, TexProjection::BrushPrimitive { m: [[0.0078125, 0.0, 0.5], [0.0, 0.0078125, -0.25]] }),
            (Dialect::CodRadiant, TexProjection::Standard { offset: [0.0, -512.0], rotation: 0.0, scale: [64.0, 128.0] }),
        ] {
            let cod = dialect == Dialect::CodRadiant;
            let mut brush = vec![side(proj.clone()); 4];
            for s in brush.iter_mut().filter(|_| cod) {
                s.flags = None;
            }
            let mut primitives = vec![MapPrimitive::Brush(brush)];
            if !cod {
                primitives.push(MapPrimitive::Patch(patch.clone()));
            }
            let e = MapEntity { pairs: vec![("classname".into(), "worldspawn".into()), ("message".into(), "a b".into())], primitives };
            let text = write_map(std::slice::from_ref(&e), dialect, &["test".into()]);
            assert_eq!(read_map(text.as_bytes()).unwrap(), vec![e], "{text}");
        }
    }

    /// The head of a CoD4Radiant file as the editor writes it (the form of the sources published
    /// beside the corpus maps; numbers made up).
    #[test]
    fn reads_cod_radiant() {
        let text = "iwmap 4\n\"000_Global\" flags  active\n\"The Map\" flags \n// entity 0\n{\n\"classname\" \"worldspawn\"\n// brush 0\n{\n \
            ( 1 2 0 ) ( -1 2 0 ) ( -1 1 0 ) ch_floor 64 64 0 -512 0 0 lightmap_gray 16384 16384 0 0 0 0\n}\n}\n{\n\"classname\" \"info_player_start\"\n}\n";
        let e = read_map(text.as_bytes()).unwrap();
        assert_eq!(e.len(), 2);
        let b = e[0].brushes().next().unwrap();
        assert_eq!(b[0].texture, "ch_floor");
        assert_eq!(b[0].projection, TexProjection::Standard { offset: [0.0, -512.0], rotation: 0.0, scale: [64.0, 64.0] });
    }

    #[test]
    fn base_axes_of_floor_and_wall() {
        let (x, y) = base_axes([0.0, 0.0, 1.0]);
        assert_eq!(x.map(|c| c.round()), [0.0, 1.0, 0.0]);
        assert_eq!(y.map(|c| c.round()), [1.0, 0.0, 0.0]);
        let (x, y) = base_axes([1.0, 0.0, 0.0]);
        assert_eq!(x.map(|c| c.round()), [0.0, 1.0, 0.0]);
        assert_eq!(y.map(|c| c.round()), [0.0, 0.0, -1.0]);
    }

    /// The fast paths write and read numbers exactly as `Display` and `parse` do.
    #[test]
    fn number_text_is_std() {
        let mut next = super::super::geom::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut values: Vec<f64> = vec![0.0, -0.0, 0.1, 1.0 / 3.0, 1e-5, 9.99e-6, 1e15, 1e16, 123456.789, -8.996_780_395_507_813, 5e-324];
        for _ in 0..100_000 {
            let r = next();
            values.push(f64::from_bits(r));
            // Map-like: multiples of powers of two and of a thousandth, whole numbers, f32 values.
            values.push((r % 2_000_000) as f64 / (1u64 << (r >> 59)) as f64 - 1000.0);
            values.push((r % 10_000_000) as f64 / 1000.0 - 5000.0);
            values.push((r % 100_000_000) as f64 - 5e7);
            values.push(f32::from_bits(r as u32) as f64);
        }
        let mut a = String::new();
        // Each value twice through one table: written first, then from its slot (and slots
        // shared by other values on the way).
        let (mut table, mut b) = (NumText::new(), String::new());
        for v in values {
            a.clear();
            num(&mut a, v);
            for _ in 0..2 {
                b.clear();
                table.push(&mut b, v);
                assert_eq!(b, a, "{:#x}", v.to_bits());
            }
            let w = if v == 0.0 { 0.0 } else { v };
            let old = if w.fract() == 0.0 && w.abs() < 1e15 { format!("{}", w as i64) } else { format!("{w}") };
            assert_eq!(a, old, "{:#x}", v.to_bits());
            if v.is_finite() {
                let t = format!("{v}");
                assert_eq!(parse_f64(&t).map(f64::to_bits), t.parse::<f64>().ok().map(f64::to_bits), "{t}");
                assert_eq!(parse_f64(&a).map(f64::to_bits), a.parse::<f64>().ok().map(f64::to_bits), "{a}");
                // The reader's number, in place or lexed, is `parse`'s too.
                let text = format!("{a} ");
                assert_eq!(lexer(&text).number().ok().map(f64::to_bits), a.parse::<f64>().ok().map(f64::to_bits), "{a}");
            }
        }
        // The reader tests' words, and two only this comparison needs.
        for t in WORDS.into_iter().chain(["inf", "0.00000000000000000000001"]) {
            assert_eq!(parse_f64(t).map(f64::to_bits), t.parse::<f64>().ok().map(f64::to_bits), "{t:?}");
        }
    }

    fn lexer(text: &str) -> Lexer<'_> {
        Lexer { s: text.as_bytes(), text: Some(text), at: 0, line: 1, cod: false, peeked: None }
    }

    /// The words the number tests use, and what may follow them.
    const WORDS: [&str; 35] = [
        "",
        "-",
        ".",
        "-.",
        "1.",
        ".5",
        "-.5",
        "-0",
        "-0.0",
        "007",
        "1e3",
        "+1",
        "1.2.3",
        "123456789012345",
        "1234567890123456",
        "0.0000000000000000000001",
        "nan",
        "-12.5x",
        "-8.996780395507813",
        "12-3",
        "[",
        "]",
        "\"7\"",
        "0.0078125",
        "123456789012345678901234",
        "-99999999999999999999.5",
        "5.25.",
        "--5",
        // 16–19 digits, up to 2⁵³ and past it (read by `parse`), and 20 (left to the lexer).
        "9007199254740992",
        "9007199254740993",
        "224.00001525878906",
        "-0.7500001192092896",
        "1234567890123456789",
        "-.1234567890123456789",
        "12345678901234567890",
    ];
    const AFTER: [&str; 10] = ["", " ", "\n", "(", ")", "{", "}", "\"", "[", "x"];

    /// A plain decimal of at most 19 digits: the words [`Lexer::plain_number`] reads.
    fn plain_word(t: &str) -> bool {
        let d = t.strip_prefix('-').unwrap_or(t);
        let digits = d.bytes().filter(u8::is_ascii_digit).count();
        (1..=19).contains(&digits) && d.bytes().all(|c| c.is_ascii_digit() || c == b'.') && d.bytes().filter(|&c| c == b'.').count() <= 1
    }

    /// The one-pass reader takes the word `next` would lex and gives `parse`'s value of it
    /// where it is a plain decimal of at most 19 digits, or leaves it (past the whitespace) to
    /// the lexer.
    #[test]
    fn plain_number_reads_the_lexed_word() {
        for w in WORDS {
            for after in AFTER {
                let text = format!(" \n {w}{after} 5");
                let mut lx = lexer(&text);
                let got = lx.plain_number().map(|v| (v.to_bits(), lx.at, lx.line));
                let mut old = lexer(&text);
                old.skip();
                let skipped = (old.at, old.line);
                let want = match old.s.get(old.at) {
                    Some(b'"' | b'{' | b'}' | b'(' | b')' | b'[' | b']') | None => None,
                    Some(_) => {
                        old.next().filter(|t| plain_word(t)).and_then(|t| t.parse::<f64>().ok()).map(|v| (v.to_bits(), old.at, old.line))
                    }
                };
                assert_eq!(got, want, "{text:?}");
                if got.is_none() {
                    assert_eq!((lx.at, lx.line), skipped, "{text:?}");
                }
            }
        }
    }

    /// `read_flags` as it was: every token peeked, lexed and parsed, into a vector.
    fn read_flags_lexed(lx: &mut Lexer) -> Result<Option<[i64; 3]>> {
        let mut v = Vec::new();
        while let Some(t) = lx.peek() {
            if t == "(" || t == "}" {
                break;
            }
            lx.next();
            v.push(parse_f64(t).ok_or_else(|| lx.err(&format!("expected a number, found {t:?}")))? as i64);
        }
        Ok(match v.as_slice() {
            [] => None,
            [c, f, val, ..] => Some([*c, *f, *val]),
            [c, rest @ ..] => Some([*c, rest.first().copied().unwrap_or(0), 0]),
        })
    }

    /// The flags read with numbers in place are those the lexed reading gave: values, errors
    /// (their text too) and where the reader stops.
    #[test]
    fn flags_read_in_place_as_lexed() {
        let mut texts = vec![String::new(), "}".into(), "( 1 2 3 )".into(), "1 2 3 4 5 (".into(), "\n1\n\"2\" 3.9 }".into()];
        for a in WORDS {
            for b in ["", " 2", " -3 4", " 5 6 7 8"] {
                for end in ["", " (", "}", " } x", "\n( 0"] {
                    texts.push(format!(" {a}{b}{end}"));
                }
            }
        }
        for text in texts {
            let (mut lx, mut old) = (lexer(&text), lexer(&text));
            let got = read_flags(&mut lx).map_err(|e| e.to_string());
            let want = read_flags_lexed(&mut old).map_err(|e| e.to_string());
            assert_eq!(got, want, "{text:?}");
            if want.is_ok() {
                assert_eq!((lx.next(), lx.line), (old.next(), old.line), "{text:?}");
            }
        }
    }

    #[test]
    fn garbage_is_an_error() {
        for t in ["{ \"a\" ", "{ { ( 1 2 ) } }", "x", "{ { patchDef2 { t ( 99999 1 0 0 0 ) } } }"] {
            assert!(read_map(t.as_bytes()).is_err(), "{t}");
        }
    }
}
