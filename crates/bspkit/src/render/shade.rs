//! What a pixel's colour is made of: a texture (a box-filtered mip chain sampled nearest with
//! wrap), a lightmap (bilinear from the atlas pages), or the fallbacks — a flat tint from the
//! material name when the texture is missing, directional shading when there is no light.

use crate::assets::ImageRgba;

/// A texture's mip chain: level 0 is the image, each next level half the size (box filter),
/// down to 1 × 1.
pub struct Mips {
    levels: Vec<Level>,
}

struct Level {
    w: u32,
    h: u32,
    px: Vec<[u8; 4]>,
}

impl Mips {
    pub fn new(img: &ImageRgba) -> Option<Mips> {
        let (w, h) = (img.width, img.height);
        if w == 0 || h == 0 || img.pixels.len() < w as usize * h as usize * 4 {
            return None;
        }
        // Index loops with the four texels and channels written out: a texture's chain is built
        // for every render, and the chunk, array and closure adaptors this replaced were calls
        // per texel in unoptimised (test) builds. The same integer arithmetic.
        let n = w as usize * h as usize;
        let mut px: Vec<[u8; 4]> = Vec::with_capacity(n);
        let bytes = &img.pixels[..n * 4];
        let mut i = 0;
        while i < bytes.len() {
            px.push([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
            i += 4;
        }
        let mut levels = vec![Level { w, h, px }];
        while let Some(l) = levels.last().filter(|l| l.w > 1 || l.h > 1) {
            let (nw, nh) = ((l.w / 2).max(1), (l.h / 2).max(1));
            let mut px = Vec::with_capacity(nw as usize * nh as usize);
            let lw = l.w as usize;
            for y in 0..nh {
                let (y0, y1) = ((y * 2).min(l.h - 1) as usize, (y * 2 + 1).min(l.h - 1) as usize);
                for x in 0..nw {
                    let (x0, x1) = ((x * 2).min(l.w - 1) as usize, (x * 2 + 1).min(l.w - 1) as usize);
                    let (a, b, c, d) = (&l.px[y0 * lw + x0], &l.px[y0 * lw + x1], &l.px[y1 * lw + x0], &l.px[y1 * lw + x1]);
                    let mut out = [0u8; 4];
                    let mut k = 0;
                    while k < 4 {
                        let sum = a[k] as u32 + b[k] as u32 + c[k] as u32 + d[k] as u32;
                        out[k] = ((sum + 2) / 4) as u8;
                        k += 1;
                    }
                    px.push(out);
                }
            }
            levels.push(Level { w: nw, h: nh, px });
        }
        Some(Mips { levels })
    }

    pub fn width(&self) -> u32 {
        self.levels[0].w
    }
    pub fn height(&self) -> u32 {
        self.levels[0].h
    }

    /// The level for a footprint of `texels_per_pixel` level-0 texels per pixel.
    pub fn level_for(&self, texels_per_pixel: f32) -> usize {
        if texels_per_pixel.is_nan() || texels_per_pixel <= 1.0 || !texels_per_pixel.is_finite() {
            return 0;
        }
        (texels_per_pixel.log2().floor() as usize).min(self.levels.len() - 1)
    }

    /// The texel at UV (`u`, `v`) (texture widths, wrapping) of `level`.
    pub fn sample(&self, level: usize, u: f32, v: f32) -> [u8; 4] {
        let l = &self.levels[level.min(self.levels.len() - 1)];
        let wrap = |t: f32, n: u32| -> usize {
            let x = (t * n as f32).floor();
            if !x.is_finite() {
                return 0;
            }
            (x as i64).rem_euclid(n as i64) as usize
        };
        l.px[wrap(v, l.h) * l.w as usize + wrap(u, l.w)]
    }
}

pub use crate::lightmap::LightPage;

/// A flat colour for a material without a texture: a hue from the name's FNV-1a hash, soft
/// saturation, so neighbouring materials are told apart and the same name always looks the same.
pub fn tint(name: &str) -> [u8; 3] {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.to_ascii_lowercase().bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    let hue = (h % 360) as f32;
    let value = 0.62 + ((h >> 16) % 24) as f32 / 100.0;
    hsv(hue, 0.38, value)
}

fn hsv(hue: f32, s: f32, v: f32) -> [u8; 3] {
    let c = v * s;
    let hp = hue / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|t| ((t + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

/// Direction of the light used when a map has no baked lighting (normalised in [`directional`]).
pub const SUN: [f32; 3] = [0.35, 0.25, 0.9];

/// Light multiplier for a surface with unit normal `n` and no baked light: an ambient share
/// plus a Lambert term from [`SUN`].
pub fn directional(n: [f32; 3]) -> f32 {
    let l = super::camera::normalize(SUN);
    let d = n[0] * l[0] + n[1] * l[1] + n[2] * l[2];
    if !d.is_finite() {
        return 0.7;
    }
    0.5 + 0.5 * d.max(0.0) + 0.1 * (-d).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mips_average_and_wrap() {
        let img = ImageRgba::new(2, 2, vec![0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255]).unwrap();
        let m = Mips::new(&img).unwrap();
        assert_eq!(m.sample(1, 0.3, 0.7), [128, 128, 128, 255]);
        assert_eq!(m.sample(0, 0.25, 0.25), [0, 0, 0, 255]);
        assert_eq!(m.sample(0, 1.75, -0.75), [255, 255, 255, 255]);
        assert_eq!(m.sample(0, -0.25, -0.25), [0, 0, 0, 255]);
        let _ = m.sample(1, 1e30, -1e30);
        assert_eq!(m.sample(0, f32::NAN, f32::INFINITY), m.sample(0, 0.0, 0.0));
        assert_eq!(m.level_for(0.5), 0);
        assert_eq!(m.level_for(3.0), 1);
        assert_eq!(m.level_for(1e9), 1);
    }

    /// A xorshift stream for the old-against-new comparisons.
    fn stream(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// The chain as built before the index loops (chunks, array `map`, a pair list per texel):
    /// the same levels, texel for texel, on random images of odd, even and 1-wide sizes.
    #[test]
    fn mips_are_the_adaptor_chain_mips() {
        fn old(img: &ImageRgba) -> Vec<(u32, u32, Vec<[u8; 4]>)> {
            let (w, h) = (img.width, img.height);
            let px: Vec<[u8; 4]> = img.pixels.chunks_exact(4).take(w as usize * h as usize).map(|c| [c[0], c[1], c[2], c[3]]).collect();
            let mut levels = vec![(w, h, px)];
            while let Some(l) = levels.last().filter(|l| l.0 > 1 || l.1 > 1) {
                let (nw, nh) = ((l.0 / 2).max(1), (l.1 / 2).max(1));
                let mut px = Vec::new();
                for y in 0..nh {
                    for x in 0..nw {
                        let mut sum = [0u32; 4];
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            let p = l.2[((y * 2 + dy).min(l.1 - 1) * l.0 + (x * 2 + dx).min(l.0 - 1)) as usize];
                            for k in 0..4 {
                                sum[k] += p[k] as u32;
                            }
                        }
                        px.push(sum.map(|s| ((s + 2) / 4) as u8));
                    }
                }
                levels.push((nw, nh, px));
            }
            levels
        }
        let mut next = stream(0x2545_f491_4f6c_dd1d);
        for (w, h) in [(1, 1), (1, 7), (9, 1), (2, 2), (3, 5), (16, 16), (17, 33), (64, 10)] {
            // Extra bytes past w × h × 4 are ignored by both.
            let pixels: Vec<u8> = (0..w * h * 4 + 8).map(|_| next() as u8).collect();
            let img = ImageRgba { width: w, height: h, pixels };
            let new = Mips::new(&img).unwrap();
            let want = old(&img);
            assert_eq!(new.levels.len(), want.len(), "{w}×{h}");
            for (l, (ow, oh, opx)) in new.levels.iter().zip(&want) {
                assert_eq!((l.w, l.h, &l.px), (*ow, *oh, opx), "{w}×{h}");
            }
        }
    }

    /// The bilinear read as written before (a closure per texel and `from_fn` per channel):
    /// the same bits at random, edge, outside and non-finite UVs on random pages.
    #[test]
    fn page_samples_are_the_closure_form() {
        fn old(p: &LightPage, u: f32, v: f32) -> [f32; 3] {
            let (w, h) = (p.w as usize, p.h as usize);
            if w == 0 || h == 0 || p.rgb.len() < w * h * 3 {
                return [0.0; 3];
            }
            let fx = (u * p.w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
            let fy = (v * p.h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
            let (fx, fy) = if fx.is_finite() && fy.is_finite() { (fx, fy) } else { (0.0, 0.0) };
            let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
            let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
            let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
            let at = |x: usize, y: usize, k: usize| p.rgb[(y * w + x) * 3 + k] as f32;
            std::array::from_fn(|k| {
                let top = at(x0, y0, k) * (1.0 - tx) + at(x1, y0, k) * tx;
                let bottom = at(x0, y1, k) * (1.0 - tx) + at(x1, y1, k) * tx;
                top * (1.0 - ty) + bottom * ty
            })
        }
        let mut next = stream(0x9e37_79b9_7f4a_7c15);
        let special = [0.0, 1.0, -0.25, 1.5, 0.5, f32::NAN, f32::INFINITY, -1e30];
        for (w, h, short) in [(1, 1, 0), (2, 1, 0), (1, 3, 0), (5, 4, 0), (33, 17, 0), (4, 4, 1), (0, 3, 0)] {
            let rgb: Vec<u8> = (0..(w * h * 3) as usize - short).map(|_| next() as u8).collect();
            let page = LightPage { w, h, rgb: rgb.into() };
            let mut uvs: Vec<(f32, f32)> =
                (0..500).map(|_| ((next() % 20_000) as f32 / 10_000.0 - 0.5, (next() % 20_000) as f32 / 10_000.0 - 0.5)).collect();
            uvs.extend(special.iter().flat_map(|&u| special.iter().map(move |&v| (u, v))));
            for (u, v) in uvs {
                let (a, b) = (page.sample(u, v), old(&page, u, v));
                assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{w}×{h} at ({u}, {v})");
            }
        }
    }

    #[test]
    fn tints_are_stable_and_differ() {
        assert_eq!(tint("wall1"), tint("WALL1"));
        assert_ne!(tint("wall1"), tint("floor3"));
    }

    #[test]
    fn light_pages_interpolate_between_centres() {
        let p = LightPage { w: 2, h: 1, rgb: vec![0, 0, 0, 200, 100, 50].into() };
        assert_eq!(p.sample(0.25, 0.5), [0.0; 3]);
        assert_eq!(p.sample(0.5, 0.5), [100.0, 50.0, 25.0]);
        assert_eq!(p.sample(5.0, 0.5), [200.0, 100.0, 50.0]);
    }
}
