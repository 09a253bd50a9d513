//! Image files found in game folders and archives: PNG, JPEG (`jpeg-decoder`) and TGA, told
//! apart by their first bytes. Kept apart from [`crate::assets::image`] (the image types) so the
//! TGA reader can use those types without an import cycle.

use crate::assets::image::{image_bytes, ImageRgba};
use crate::error::{Error, ErrorKind, Result};

/// Decode a baseline or progressive JPEG to RGBA (`jpeg-decoder`), refusing output larger
/// than `max_bytes` before decoding the pixels.
pub fn decode_jpeg(bytes: &[u8], max_bytes: u64) -> Result<ImageRgba> {
    let err = |e: jpeg_decoder::Error| Error::malformed(format!("JPEG: {e}"));
    let mut dec = jpeg_decoder::Decoder::new(bytes);
    dec.set_max_decoding_buffer_size(usize::try_from(max_bytes).unwrap_or(usize::MAX));
    dec.read_info().map_err(err)?;
    let info = dec.info().ok_or_else(|| Error::malformed("JPEG: no frame header"))?;
    let (w, h) = (info.width as u32, info.height as u32);
    let out = image_bytes(w, h, 4)? as u64;
    if out > max_bytes {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "decoded JPEG size", requested: out, limit: max_bytes }));
    }
    let px = dec.decode().map_err(err)?;
    let pixels: Vec<u8> = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => px.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        jpeg_decoder::PixelFormat::L16 => px.chunks_exact(2).flat_map(|g| [g[0], g[0], g[0], 255]).collect(),
        jpeg_decoder::PixelFormat::RGB24 => px.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        jpeg_decoder::PixelFormat::CMYK32 => px
            .chunks_exact(4)
            .flat_map(|p| {
                let k = 255 - p[3] as u32;
                let c = |v: u8| ((255 - v as u32) * k / 255) as u8;
                [c(p[0]), c(p[1]), c(p[2]), 255]
            })
            .collect(),
    };
    ImageRgba::new(w, h, pixels)
}

/// Decode a PNG, JPEG or TGA file, chosen by its first bytes (TGA has no magic: anything
/// that is not PNG or JPEG is read as TGA).
pub fn decode_image_file(bytes: &[u8], max_bytes: u64) -> Result<ImageRgba> {
    if bytes.starts_with(b"\x89PNG") {
        ImageRgba::decode_png(bytes, max_bytes)
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        decode_jpeg(bytes, max_bytes)
    } else {
        crate::assets::tga::decode(bytes, max_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_and_broken_jpeg() {
        let img = ImageRgba::filled(2, 2, [1, 2, 3, 4]);
        assert_eq!(decode_image_file(&img.encode_png().unwrap(), 1 << 20).unwrap(), img);
        assert_eq!(decode_image_file(&crate::assets::tga::encode(&img, true), 1 << 20).unwrap(), img);
        for bad in [&[0xFF, 0xD8][..], &[0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0xFF, 0xFF, 0xFF, 0xFF, 1, 1, 0x11, 0], b"\xff\xd8garbage"] {
            assert!(decode_jpeg(bad, 1 << 20).is_err());
            assert!(decode_image_file(bad, 1 << 20).is_err());
        }
    }
}
