//! VTF / VTFX textures: header, resources, the image-data size check, and decoding of every
//! image (capped) in every format, including the DXT block rewrite and HDR conversions.
#![no_main]

use bspkit::assets::vtf::Vtf;
use libfuzzer_sys::fuzz_target;

const CAP: u64 = 1 << 22;

fuzz_target!(|data: &[u8]| {
    let Ok(vtf) = Vtf::parse(data, CAP) else { return };
    let h = &vtf.header;
    let mut n = 0;
    for frame in 0..h.frames.max(1) as u32 {
        for face in 0..vtf.faces() {
            for mip in 0..h.mip_count as u32 {
                n += 1;
                if n > 64 {
                    return;
                }
                if let Ok((img, hdr)) = vtf.decode(frame, face, 0, mip) {
                    assert_eq!(img.pixels.len(), img.width as usize * img.height as usize * 4);
                    if let Some(f) = hdr {
                        assert_eq!(f.pixels.len(), img.pixels.len());
                    }
                }
            }
        }
    }
});
