//! Source material files (`.vmt`, KeyValues text): the shader name and its top-level
//! parameters, as far as textures need them (`$basetexture`, `$translucent`, `$alphatest`,
//! `$alphatestreference`, `$additive`), and `patch` materials (`include` + `replace`/`insert`),
//! which VBSP writes into the pakfile for cube-mapped materials.
//!
//! The tokenizer takes quoted and bare strings, braces, `//` comments and `[$CONDITION]`
//! suffixes (skipped). Nesting is limited, and nothing is allocated per token beyond the
//! strings kept.

use crate::assets::image::AlphaMode;
use crate::error::{Error, Result};

/// Deepest block nesting accepted.
const MAX_DEPTH: usize = 64;

/// A parsed material.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vmt {
    /// The shader (`LightmappedGeneric`, `patch`, …), as written.
    pub shader: String,
    /// Top-level parameters, keys lower-cased, in file order.
    pub params: Vec<(String, String)>,
    /// Second-level blocks (`replace`, `insert`, `Proxies` …): lower-cased name and parameters.
    pub blocks: Vec<(String, Vec<(String, String)>)>,
}

enum Tok<'a> {
    Str(&'a str),
    Open,
    Close,
}

fn tokens(text: &str) -> impl Iterator<Item = Tok<'_>> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' => {
                i += 1;
                return Some(Tok::Open);
            }
            b'}' => {
                i += 1;
                return Some(Tok::Close);
            }
            b'[' => {
                // A platform condition after a key or value: skipped.
                while i < b.len() && b[i] != b']' {
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                i = start;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += 1;
                }
                let s = &text[start..i];
                i += 1;
                return Some(Tok::Str(s));
            }
            _ => {
                let start = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'{' | b'}' | b'"') {
                    i += 1;
                }
                // Slicing at ASCII boundaries keeps the text valid UTF-8.
                return Some(Tok::Str(&text[start..i]));
            }
        }
    })
}

impl Vmt {
    /// Parse a material's text (invalid UTF-8 is replaced).
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let text = String::from_utf8_lossy(bytes);
        let mut toks = tokens(&text);
        let shader = match toks.next() {
            Some(Tok::Str(s)) => s.to_string(),
            _ => return Err(Error::malformed("material does not start with a shader name")),
        };
        if !matches!(toks.next(), Some(Tok::Open)) {
            return Err(Error::malformed(format!("material {shader}: no '{{' after the shader name")));
        }
        let mut vmt = Vmt { shader, ..Vmt::default() };
        let mut depth = 1usize;
        let mut key: Option<String> = None;
        for t in toks {
            match t {
                Tok::Open => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(Error::malformed(format!("material blocks nested deeper than {MAX_DEPTH}")));
                    }
                    if depth == 2 {
                        vmt.blocks.push((key.take().unwrap_or_default().to_ascii_lowercase(), Vec::new()));
                    }
                    key = None;
                }
                Tok::Close => {
                    depth -= 1;
                    key = None;
                    if depth == 0 {
                        return Ok(vmt);
                    }
                }
                Tok::Str(s) => match key.take() {
                    None => key = Some(s.to_string()),
                    Some(k) => {
                        let pair = (k.to_ascii_lowercase(), s.to_string());
                        match depth {
                            1 => vmt.params.push(pair),
                            2 => {
                                if let Some(b) = vmt.blocks.last_mut() {
                                    b.1.push(pair);
                                }
                            }
                            _ => {}
                        }
                    }
                },
            }
        }
        // Unterminated: keep what was read, as the engine does.
        Ok(vmt)
    }

    /// A top-level parameter (case-insensitive; the last occurrence wins).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
    }

    fn flag(&self, key: &str) -> bool {
        self.get(key).is_some_and(|v| v.trim().parse::<f32>().is_ok_and(|x| x != 0.0))
    }

    /// Is this a `patch` material (its `include` names the base material)?
    pub fn is_patch(&self) -> bool {
        self.shader.eq_ignore_ascii_case("patch")
    }

    /// Apply a patch's `replace` and `insert` blocks to the material it includes: the result
    /// has the base's shader and the merged parameters.
    pub fn apply_patch(&self, base: &Vmt) -> Vmt {
        let mut out = base.clone();
        for (name, pairs) in &self.blocks {
            if name == "replace" || name == "insert" {
                for (k, v) in pairs {
                    out.params.retain(|(ok, _)| ok != k);
                    out.params.push((k.clone(), v.clone()));
                }
            }
        }
        out
    }

    /// The alpha mode the material asks for: `$translucent` / `$additive` → blend,
    /// `$alphatest` → mask with `$alphatestreference` (default 0.5) as the cutoff.
    pub fn alpha_mode(&self) -> AlphaMode {
        if self.flag("$translucent") || self.flag("$additive") {
            AlphaMode::Blend
        } else if self.flag("$alphatest") {
            let cutoff = self.get("$alphatestreference").and_then(|v| v.trim().parse::<f32>().ok()).filter(|c| (0.0..=1.0).contains(c));
            AlphaMode::Mask { cutoff: cutoff.unwrap_or(0.5) }
        } else {
            AlphaMode::Opaque
        }
    }

    /// The VTF path of `$basetexture` below the game directory (`materials/<name>.vtf`).
    pub fn base_texture_path(&self) -> Option<String> {
        let t = self.get("$basetexture")?.trim().replace('\\', "/");
        let t = t.trim_start_matches('/');
        if t.is_empty() {
            return None;
        }
        let t = t.strip_suffix(".vtf").unwrap_or(t);
        Some(format!("materials/{t}.vtf"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_materials_and_patches() {
        let base = Vmt::parse(
            br#"// a comment
"LightmappedGeneric"
{
    "$basetexture" "Concrete\ConcreteFloor005a"
    $surfaceprop concrete
    "$alphatest" "1" [$X360]
    "$alphatestreference" ".7"
    "Proxies" { "AnimatedTexture" { "animatedtexturevar" "$basetexture" } }
}"#,
        )
        .unwrap();
        assert_eq!(base.shader, "LightmappedGeneric");
        assert_eq!(base.get("$SURFACEPROP"), Some("concrete"));
        assert_eq!(base.base_texture_path().unwrap(), "materials/Concrete/ConcreteFloor005a.vtf");
        assert_eq!(base.alpha_mode(), AlphaMode::Mask { cutoff: 0.7 });
        assert_eq!(base.blocks[0].0, "proxies");

        let patch =
            Vmt::parse(b"patch { include \"materials/CONCRETE/CONCRETEFLOOR005A.vmt\" replace { $envmap maps/x/c0 $translucent 1 } }")
                .unwrap();
        assert!(patch.is_patch());
        assert_eq!(patch.get("include"), Some("materials/CONCRETE/CONCRETEFLOOR005A.vmt"));
        let merged = patch.apply_patch(&base);
        assert_eq!(merged.shader, "LightmappedGeneric");
        assert_eq!(merged.get("$envmap"), Some("maps/x/c0"));
        assert_eq!(merged.alpha_mode(), AlphaMode::Blend);
    }

    #[test]
    fn hostile_text() {
        assert!(Vmt::parse(b"").is_err());
        assert!(Vmt::parse(b"{").is_err());
        assert!(Vmt::parse(b"x y").is_err());
        let deep = format!("x {}", "{ a ".repeat(100));
        assert!(Vmt::parse(deep.as_bytes()).is_err());
        let v = Vmt::parse(b"x { \"$basetexture\" \"\xff\xfe\" \"unterminated").unwrap();
        assert_eq!(v.params.len(), 1);
        assert!(Vmt::parse(b"x { \"$basetexture\" \"\" }").unwrap().base_texture_path().is_none());
    }
}
