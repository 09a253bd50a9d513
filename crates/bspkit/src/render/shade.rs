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
        let px: Vec<[u8; 4]> = img.pixels.chunks_exact(4).take(w as usize * h as usize).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        let mut levels = vec![Level { w, h, px }];
        while let Some(l) = levels.last().filter(|l| l.w > 1 || l.h > 1) {
            let (nw, nh) = ((l.w / 2).max(1), (l.h / 2).max(1));
            let mut px = Vec::with_capacity(nw as usize * nh as usize);
            for y in 0..nh {
                for x in 0..nw {
                    let mut sum = [0u32; 4];
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let sx = (x * 2 + dx).min(l.w - 1);
                        let sy = (y * 2 + dy).min(l.h - 1);
                        let p = l.px[(sy * l.w + sx) as usize];
                        for k in 0..4 {
                            sum[k] += p[k] as u32;
                        }
                    }
                    px.push(sum.map(|s| ((s + 2) / 4) as u8));
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
