//! Quake 3 family textures: the shader names of the map (`textures/base_wall/concrete`),
//! resolved as the engine does: a shader script (`scripts/*.shader`) naming an image, else an
//! image file of the shader's name (`.tga`, `.png`, `.jpg`; the extension written in a script
//! is tried first), loose or inside the game directories' `.pk3` archives.
//!
//! From a shader script the image of the first stage that draws one (`map`, `clampMap`, the
//! first `animMap` frame; not `$lightmap` / `$whiteimage`) is used, else `qer_editorimage`.
//! That stage's `alphaFunc` makes the texture masked; a blending `blendFunc` (`blend`, `add`,
//! `filter`, `GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA`, …) makes it blended.

use std::collections::HashMap;

use crate::assets::image_file::decode_image_file;
use crate::assets::{AlphaMode, Assets, Missing, MissingKind, Texture};
use crate::branches::ops::MapTextures;
use crate::branches::quake3::lumps::with_record_set;
use crate::branches::quake3::records::{Layout, ShaderRecord};
use crate::branches::quake3::view::View;
use crate::bsp::Bsp;

/// Largest shader script read (the budget of the search path also applies).
const MAX_SCRIPT: u64 = 8 << 20;

/// What a shader script says about one shader.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderInfo {
    /// The image to show (as written, without guessing the extension).
    pub image: Option<String>,
    pub alpha: AlphaMode,
    /// The script file defining it.
    pub script: String,
}

/// Every shader defined in the scripts on the search path, by lower-cased name (the first
/// definition wins, as in the engine).
#[derive(Debug, Clone, Default)]
pub struct ShaderIndex {
    pub shaders: HashMap<String, ShaderInfo>,
    /// Scripts that could not be read.
    pub warnings: Vec<Missing>,
}

/// The shader names of the map, once each, in lump order (`noshader` left out).
pub fn names(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    with_record_set!(bsp.branch(), names_with(bsp))
}

fn names_with<L: Layout>(bsp: &Bsp) -> Result<Vec<String>, Missing> {
    let view = View::<L>::new(bsp).map_err(|e| Missing::from_error("(shaders)", &e))?;
    let shaders = view.shaders().map_err(|e| Missing::from_error("(shaders)", &e))?;
    let mut out: Vec<String> = Vec::new();
    for s in shaders.iter().map(ShaderRecord::q3) {
        let n = s.name().into_owned();
        if !n.is_empty() && !n.eq_ignore_ascii_case("noshader") && !out.iter().any(|o| o.eq_ignore_ascii_case(&n)) {
            out.push(n);
        }
    }
    Ok(out)
}

fn tokens(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'{' | b'}' => {
                out.push(&text[i..i + 1]);
                i += 1;
            }
            b'"' => {
                let s = i + 1;
                i = s;
                while i < b.len() && b[i] != b'"' {
                    i += 1;
                }
                out.push(&text[s..i.min(b.len())]);
                i += 1;
            }
            _ => {
                let s = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'{' && b[i] != b'}' {
                    i += 1;
                }
                out.push(&text[s..i]);
            }
        }
    }
    out
}

/// Parse one script's shaders into `index` (existing names are kept).
pub fn parse_script(text: &str, script: &str, index: &mut HashMap<String, ShaderInfo>) {
    let toks = tokens(text);
    let mut i = 0;
    while i < toks.len() {
        let name = toks[i];
        if name == "{" || name == "}" || toks.get(i + 1) != Some(&"{") {
            i += 1;
            continue;
        }
        i += 2;
        let mut depth = 1;
        let mut editor = None;
        let (mut image, mut alpha) = (None::<String>, AlphaMode::Opaque);
        let (mut stage_image, mut stage_alpha) = (None::<String>, AlphaMode::Opaque);
        while i < toks.len() && depth > 0 {
            let t = toks[i];
            match t {
                "{" => {
                    depth += 1;
                    stage_image = None;
                    stage_alpha = AlphaMode::Opaque;
                }
                "}" => {
                    if depth == 2 && image.is_none() && stage_image.is_some() {
                        image = stage_image.take();
                        alpha = stage_alpha;
                    }
                    depth -= 1;
                }
                _ if depth == 1 && t.eq_ignore_ascii_case("qer_editorimage") => editor = toks.get(i + 1).map(|s| s.to_string()),
                _ if depth == 2 => {
                    let lower = t.to_ascii_lowercase();
                    // A keyword's arguments: the next few tokens before a brace.
                    let args: Vec<&str> = toks[i + 1..].iter().take(4).take_while(|t| !matches!(**t, "{" | "}")).copied().collect();
                    match lower.as_str() {
                        "map" | "clampmap" => {
                            if let Some(m) = args.first().filter(|m| !m.starts_with('$')) {
                                stage_image = Some(m.to_string());
                            }
                        }
                        "animmap" => {
                            if let Some(m) = args.get(1) {
                                stage_image = Some(m.to_string());
                            }
                        }
                        "alphafunc" => {
                            stage_alpha = AlphaMode::Mask {
                                cutoff: if args.first().is_some_and(|a| a.eq_ignore_ascii_case("GT0")) { 0.01 } else { 0.5 },
                            }
                        }
                        "blendfunc" => {
                            let a: Vec<String> = args.iter().take(2).map(|s| s.to_ascii_lowercase()).collect();
                            let blends = matches!(a.first().map(String::as_str), Some("blend" | "add" | "filter"))
                                || (a.len() == 2 && !(a[0] == "gl_one" && a[1] == "gl_zero"));
                            if blends && stage_alpha == AlphaMode::Opaque {
                                stage_alpha = AlphaMode::Blend;
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
            i += 1;
        }
        index.entry(name.to_ascii_lowercase()).or_insert(ShaderInfo { image: image.or(editor), alpha, script: script.to_string() });
    }
}

/// Read every `scripts/*.shader` on the search path.
pub fn shader_index(assets: &Assets) -> ShaderIndex {
    let mut ix = ShaderIndex::default();
    for path in assets.fs.list("scripts", ".shader") {
        match assets.fs.read(&path) {
            Ok(Some(a)) if a.data.len() as u64 <= MAX_SCRIPT => {
                parse_script(&String::from_utf8_lossy(&a.data), &a.origin(), &mut ix.shaders)
            }
            Ok(Some(a)) => ix.warnings.push(
                Missing::new(path, MissingKind::Undecodable, format!("shader script larger than {MAX_SCRIPT} bytes")).in_file(a.origin()),
            ),
            Ok(None) => {}
            Err(e) => ix.warnings.push(Missing::from_error(path, &e)),
        }
    }
    ix
}

/// Resolve shader `name` to an image on the search path.
pub fn load(name: &str, assets: &Assets, shaders: &ShaderIndex) -> Result<Texture, Missing> {
    let info = shaders.shaders.get(&name.to_ascii_lowercase());
    let mut candidates: Vec<String> = Vec::new();
    let mut add = |base: &str| {
        let (stem, ext) = match base.rsplit_once('.') {
            Some((s, e)) if !e.contains('/') => (s, Some(e)),
            _ => (base, None),
        };
        if let Some(e) = ext {
            candidates.push(format!("{stem}.{e}"));
        }
        for e in ["tga", "png", "jpg"] {
            let c = format!("{stem}.{e}");
            if !candidates.contains(&c) {
                candidates.push(c);
            }
        }
    };
    if let Some(img) = info.and_then(|i| i.image.as_deref()) {
        add(img);
    }
    add(name);
    let alpha = info.map_or(AlphaMode::Opaque, |i| i.alpha);
    let max = assets.fs.budget().max_file.saturating_mul(8);
    for c in &candidates {
        match assets.fs.read(c) {
            Ok(Some(a)) => {
                return assets
                    .fs
                    .decode_within(max, |m| decode_image_file(&a.data, m))
                    .map(|img| Texture::new(name, a.origin(), alpha, img, None))
                    .map_err(|e| Missing::from_error(name, &e.in_file(&a.file)).in_file(a.origin()));
            }
            Ok(None) => {}
            Err(e) => return Err(Missing::from_error(name, &e)),
        }
    }
    let how = match info {
        Some(i) => {
            format!("shader in {} names {}; none of {} found", i.script, i.image.as_deref().unwrap_or("no image"), candidates.join(", "))
        }
        None => format!("no shader script defines it and none of {} was found", candidates.join(", ")),
    };
    Err(Missing::new(name, MissingKind::NotFound, how))
}

/// The Quake 3 texture lookup ([`crate::branches::ops::FamilyOps::textures`]): the shader
/// scripts on the search path, read once.
pub struct ShaderLookup {
    shaders: ShaderIndex,
}

impl ShaderLookup {
    pub fn new(assets: &Assets, warnings: &mut Vec<Missing>) -> Self {
        let shaders = shader_index(assets);
        warnings.extend(shaders.warnings.iter().cloned());
        ShaderLookup { shaders }
    }
}

impl MapTextures for ShaderLookup {
    fn resolve(&self, name: &str, assets: &Assets) -> Result<Texture, Missing> {
        load(name, assets, &self.shaders)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shader_scripts() {
        let mut ix = HashMap::new();
        parse_script(
            r#"// comment
textures/base/grate
{
    qer_editorimage textures/base/grate_ed.tga
    surfaceparm alphashadow
    {
        map $lightmap
    }
    /* block
       comment */
    {
        map textures/base/grate.tga
        alphaFunc GE128
        blendFunc GL_DST_COLOR GL_ZERO
    }
}
textures/base/glass { qer_editorimage textures/base/glass_ed { map textures/base/glass.jpg blendfunc add } }
textures/base/sky { qer_editorimage textures/base/sky_ed.tga { animMap 1 textures/sky/a.tga textures/sky/b.tga } }
textures/base/editor_only { qer_editorimage "textures/base/ed.tga" }
textures/base/grate { { map other.tga } }
"#,
            "scripts/base.shader",
            &mut ix,
        );
        let g = &ix["textures/base/grate"];
        assert_eq!(g.image.as_deref(), Some("textures/base/grate.tga"));
        assert_eq!(g.alpha, AlphaMode::Mask { cutoff: 0.5 });
        assert_eq!(ix["textures/base/glass"].alpha, AlphaMode::Blend);
        assert_eq!(ix["textures/base/glass"].image.as_deref(), Some("textures/base/glass.jpg"));
        assert_eq!(ix["textures/base/sky"].image.as_deref(), Some("textures/sky/a.tga"));
        assert_eq!(ix["textures/base/editor_only"].image.as_deref(), Some("textures/base/ed.tga"));
        // Broken text does not loop or panic.
        for t in ["{", "}", "a {", "a { {", "\"", "/*", "a { map"] {
            parse_script(t, "x", &mut ix);
        }
    }
}
