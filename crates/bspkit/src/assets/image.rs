//! Decoded images and the texture record every loader returns: 8-bit RGBA pixels, optional
//! linear float pixels for HDR sources, and how the texture's alpha is meant to be used.
//!
//! PNG encoding and decoding use the `png` crate.

use crate::error::{Error, ErrorKind, Result};

/// An 8-bit RGBA image: rows top to bottom, 4 bytes per pixel (R, G, B, A), straight alpha.
#[derive(Clone, PartialEq, Eq)]
pub struct ImageRgba {
    pub width: u32,
    pub height: u32,
    /// `width × height × 4` bytes.
    pub pixels: Vec<u8>,
}

impl std::fmt::Debug for ImageRgba {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ImageRgba({}x{})", self.width, self.height)
    }
}

/// A linear floating-point RGBA image from an HDR source (4 `f32` per pixel, rows top to bottom).
#[derive(Clone, PartialEq)]
pub struct ImageF32 {
    pub width: u32,
    pub height: u32,
    /// `width × height × 4` values.
    pub pixels: Vec<f32>,
}

impl std::fmt::Debug for ImageF32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ImageF32({}x{})", self.width, self.height)
    }
}

/// Byte count of `w × h` pixels of `bpp` bytes, or an error if it does not fit memory sizes.
pub(crate) fn image_bytes(w: u32, h: u32, bpp: u64) -> Result<usize> {
    let n = (w as u64).checked_mul(h as u64).and_then(|p| p.checked_mul(bpp));
    n.and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::new(ErrorKind::LimitExceeded { what: "image size", requested: u64::MAX, limit: usize::MAX as u64 }))
}

/// PNG bytes of 8-bit `color` pixels (rows top to bottom), with the `png` crate's fast mode
/// (`Compression::Fast`: its `fdeflate` compressor and an adaptive filter per row). The
/// default (`Balanced`, zlib level 6) took ten times as long as the whole geometry export for
/// files only ~10 % smaller; every PNG the crate writes goes through here.
pub fn encode_png(width: u32, height: u32, color: png::ColorType, data: &[u8]) -> Result<Vec<u8>> {
    let err = |e: png::EncodingError| Error::malformed(format!("PNG encoding failed: {e}"));
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(data).map_err(err)?;
        w.finish().map_err(err)?;
    }
    Ok(out)
}

impl ImageRgba {
    /// An image from its pixels; the length must be `width × height × 4`.
    pub fn new(width: u32, height: u32, pixels: Vec<u8>) -> Result<Self> {
        if image_bytes(width, height, 4)? != pixels.len() {
            return Err(Error::malformed(format!(
                "{}x{} RGBA image needs {} bytes, got {}",
                width,
                height,
                width as u64 * height as u64 * 4,
                pixels.len()
            )));
        }
        Ok(ImageRgba { width, height, pixels })
    }

    /// Every pixel the same colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Self {
        let n = width as usize * height as usize;
        ImageRgba { width, height, pixels: rgba.iter().copied().cycle().take(n * 4).collect() }
    }

    /// The visible placeholder for a texture that is missing: 8×8-pixel magenta and black
    /// checks (the convention of the engines themselves).
    pub fn checker(width: u32, height: u32) -> Self {
        let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
        for y in 0..height {
            for x in 0..width {
                let on = ((x / 8) + (y / 8)) % 2 == 0;
                pixels.extend_from_slice(if on { &[255, 0, 255, 255] } else { &[0, 0, 0, 255] });
            }
        }
        ImageRgba { width, height, pixels }
    }

    /// The PNG of the 64×64 [`ImageRgba::checker`], encoded once per process: an export shows
    /// it for every texture it cannot find.
    pub fn checker_png() -> Result<Vec<u8>> {
        static PNG: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        if let Some(p) = PNG.get() {
            return Ok(p.clone());
        }
        let p = ImageRgba::checker(64, 64).encode_png()?;
        Ok(PNG.get_or_init(|| p).clone())
    }

    /// The RGBA bytes of pixel `(x, y)`.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        crate::bytes::array(&self.pixels, (y as usize * self.width as usize + x as usize) * 4)
    }

    /// Does any pixel have alpha below 255?
    pub fn has_alpha(&self) -> bool {
        self.pixels.chunks_exact(4).any(|p| p[3] != 255)
    }

    /// PNG bytes (8-bit RGBA), fast compression ([`encode_png`]).
    pub fn encode_png(&self) -> Result<Vec<u8>> {
        encode_png(self.width, self.height, png::ColorType::Rgba, &self.pixels)
    }

    /// Decode a PNG of any colour type and depth to 8-bit RGBA (16-bit samples keep their
    /// high byte). The decoder is limited to `max_bytes` of output.
    pub fn decode_png(bytes: &[u8], max_bytes: u64) -> Result<Self> {
        let err = |e: png::DecodingError| Error::malformed(format!("PNG: {e}"));
        let limits = png::Limits { bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX) };
        let mut dec = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
        dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = dec.read_info().map_err(err)?;
        // The limit is on the RGBA8 image this returns (as for JPEG and TGA), not on the
        // decoder's own buffer: an RGB or grey PNG grows by a third or more when expanded.
        let (width, height) = (reader.info().width, reader.info().height);
        let rgba = image_bytes(width, height, 4)? as u64;
        let size = reader.output_buffer_size().ok_or_else(|| Error::malformed("PNG: image too large"))?;
        if rgba.max(size as u64) > max_bytes {
            let requested = rgba.max(size as u64);
            return Err(Error::new(ErrorKind::LimitExceeded { what: "decoded PNG size", requested, limit: max_bytes }));
        }
        let mut buf = vec![0; size];
        let info = reader.next_frame(&mut buf).map_err(err)?;
        buf.truncate(info.buffer_size());
        let (w, h) = (info.width, info.height);
        let pixels = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
            png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::Indexed => return Err(Error::malformed("PNG: palette not expanded")),
        };
        ImageRgba::new(w, h, pixels)
    }
}

impl ImageF32 {
    /// An image from its values; the length must be `width × height × 4`.
    pub fn new(width: u32, height: u32, pixels: Vec<f32>) -> Result<Self> {
        if image_bytes(width, height, 4)? != pixels.len() {
            return Err(Error::malformed(format!(
                "{width}x{height} float image needs {} values, got {}",
                width as u64 * height as u64 * 4,
                pixels.len()
            )));
        }
        Ok(ImageF32 { width, height, pixels })
    }

    /// 8-bit RGBA for display: each value clamped to 0..1 and scaled to 0..255 (no tone curve).
    pub fn to_rgba8(&self) -> ImageRgba {
        let pixels = self.pixels.iter().map(|&v| unit_to_u8(v)).collect();
        ImageRgba { width: self.width, height: self.height, pixels }
    }
}

/// `v` clamped to 0..1, times 255, rounded (NaN gives 0).
pub(crate) fn unit_to_u8(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
    }
}

/// How a texture's alpha channel is meant to be used (the glTF `alphaMode`).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "mode")]
pub enum AlphaMode {
    /// Alpha is ignored.
    #[default]
    Opaque,
    /// Alpha-tested: pixels with alpha below `cutoff` (0..1) are not drawn.
    Mask { cutoff: f32 },
    /// Alpha-blended (translucent).
    Blend,
}

impl AlphaMode {
    /// `"opaque"`, `"mask"` or `"blend"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            AlphaMode::Opaque => "opaque",
            AlphaMode::Mask { .. } => "mask",
            AlphaMode::Blend => "blend",
        }
    }
}

/// One image of a texture: the texture itself, or one face of a cube map, one frame of an
/// animated texture or one slice of a volume texture.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Empty for the only image of a texture; else e.g. `"rt"` (cube face), `"frame1"`, `"z3"`.
    pub label: String,
    pub rgba: ImageRgba,
    /// The same image as linear floats, when the source is HDR.
    pub hdr: Option<ImageF32>,
}

/// A texture resolved and decoded: its name as the map refers to it, where it came from, its
/// alpha mode and at least one image.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// The name the map uses (miptex name, Quake 2/3 texture or shader path, Source material
    /// name) or, for textures the map carries without naming them, the archive entry path.
    pub name: String,
    /// Where the pixels came from, e.g. `embedded miptex 3`, `pakfile materials/x.vtf`,
    /// `/games/hl/valve/halflife.wad:c1a0_labflrc`.
    pub source: String,
    pub alpha: AlphaMode,
    layers: Vec<Layer>,
}

impl Texture {
    /// A texture with one image.
    pub fn new(name: impl Into<String>, source: impl Into<String>, alpha: AlphaMode, rgba: ImageRgba, hdr: Option<ImageF32>) -> Self {
        Texture { name: name.into(), source: source.into(), alpha, layers: vec![Layer { label: String::new(), rgba, hdr }] }
    }

    /// A texture with several images (the first is the one shown); `None` if `layers` is empty.
    pub fn with_layers(name: impl Into<String>, source: impl Into<String>, alpha: AlphaMode, layers: Vec<Layer>) -> Option<Self> {
        if layers.is_empty() {
            return None;
        }
        Some(Texture { name: name.into(), source: source.into(), alpha, layers })
    }

    /// The image to use for the surface (the first layer).
    pub fn image(&self) -> &ImageRgba {
        &self.layers[0].rgba
    }

    /// The first layer's float pixels, for HDR sources.
    pub fn hdr(&self) -> Option<&ImageF32> {
        self.layers[0].hdr.as_ref()
    }

    /// Every image (cube faces, frames, slices); never empty.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The images, taken out of the texture (no copy of the pixels); never empty.
    pub fn into_layers(self) -> Vec<Layer> {
        self.layers
    }

    pub fn width(&self) -> u32 {
        self.image().width
    }
    pub fn height(&self) -> u32 {
        self.image().height
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip() {
        let img = ImageRgba::new(3, 2, (0..24).map(|i| (i * 10) as u8).collect()).unwrap();
        let png = img.encode_png().unwrap();
        assert_eq!(ImageRgba::decode_png(&png, 1 << 20).unwrap(), img);
        assert!(ImageRgba::decode_png(&png, 10).is_err());
        assert!(ImageRgba::decode_png(&png[..png.len() / 2], 1 << 20).is_err());
        assert!(ImageRgba::new(2, 2, vec![0; 15]).is_err());
    }

    /// The output limit is on the RGBA image returned: an RGB PNG whose own buffer (3 bytes
    /// a pixel) fits is still refused when its RGBA form does not, naming the RGBA size.
    #[test]
    fn png_limit_counts_the_rgba_output() {
        let rgb: Vec<u8> = (0..64 * 64 * 3).map(|i| i as u8).collect();
        let png = encode_png(64, 64, png::ColorType::Rgb, &rgb).unwrap();
        assert_eq!(ImageRgba::decode_png(&png, 64 * 64 * 4).unwrap().width, 64);
        let e = ImageRgba::decode_png(&png, 64 * 64 * 3).unwrap_err();
        assert_eq!(e.kind, ErrorKind::LimitExceeded { what: "decoded PNG size", requested: 64 * 64 * 4, limit: 64 * 64 * 3 });
    }

    #[test]
    fn checker_and_alpha() {
        let c = ImageRgba::checker(16, 16);
        assert_eq!(c.pixel(0, 0), Some([255, 0, 255, 255]));
        assert_eq!(c.pixel(8, 0), Some([0, 0, 0, 255]));
        assert!(!c.has_alpha());
        assert!(ImageRgba::filled(1, 1, [0, 0, 0, 0]).has_alpha());
        assert_eq!(unit_to_u8(2.0), 255);
        assert_eq!(unit_to_u8(-1.0), 0);
        assert_eq!(unit_to_u8(f32::NAN), 0);
        assert_eq!(unit_to_u8(0.5), 128);
        // The cached placeholder PNG is the 64×64 checker, the same on every call.
        let png = ImageRgba::checker_png().unwrap();
        assert_eq!(ImageRgba::decode_png(&png, 1 << 20).unwrap(), ImageRgba::checker(64, 64));
        assert_eq!(ImageRgba::checker_png().unwrap(), png);
    }
}
