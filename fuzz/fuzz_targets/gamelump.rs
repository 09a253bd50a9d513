//! Source game lump (lump 35): the directory with its three offset conventions, every child's
//! bytes (LZMA children decompressed under a small cap), static props (`sprp`, every version
//! layout), detail props (`dprp`) and detail lighting (`dplt`/`dplh`), in both byte orders.
//! The licensee directory forms (Dark Messiah's, Vindictus's 20-byte entries) and Vindictus's
//! static props (a scale list before the props) are fed the same bytes.
//!
//! Input: byte 0 selects the byte order (bit 0), whether the lump came from a `.lmp` file
//! (bit 1) and a version for the direct child parsers (bits 2..7); bytes 1..5 are the lump's
//! file offset (little-endian u32); the rest is the lump.
#![no_main]

use std::borrow::Cow;

use bspkit::lumps::detailprops::{parse_lighting, DetailProps};
use bspkit::lumps::gamelump::{parse_directory_in, DirForm, GameLumps, LumpPlace, OffsetBase};
use bspkit::lumps::staticprops::{PropGame, StaticProps};
use bspkit::Endian;
use libfuzzer_sys::fuzz_target;

const CAP: u64 = 1 << 20;

fn props(sp: &StaticProps) {
    if let Ok(list) = sp.props() {
        assert_eq!(list.len(), sp.count);
    }
}

fn detail(dp: &DetailProps) {
    let n = match dp.endian {
        Endian::Little => dp.sprites::<zerocopy::LittleEndian>().len() + dp.props::<zerocopy::LittleEndian>().len(),
        Endian::Big => dp.sprites::<zerocopy::BigEndian>().len() + dp.props::<zerocopy::BigEndian>().len(),
    };
    assert_eq!(n, dp.sprite_count() + dp.prop_count());
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let Some((ofs, lump)) = rest.split_first_chunk::<4>() else { return };
    let endian = if sel & 1 != 0 { Endian::Big } else { Endian::Little };
    let place = LumpPlace { file_offset: u32::from_le_bytes(*ofs) as u64, from_lmp: sel & 2 != 0 };
    let version = (sel >> 2) as u16;

    if let Ok(gl) = GameLumps::from_bytes(lump, place, endian, CAP) {
        for e in gl.entries() {
            assert!(e.start + e.stored_len <= lump.len());
            if let Ok(b) = gl.bytes_of(e) {
                assert!(b.len() as u64 <= CAP.max(e.stored_len as u64));
                let _ = parse_lighting(&b, endian);
            }
        }
        if let Ok(Some(sp)) = gl.static_props() {
            props(&sp);
        }
        if let Ok(Some(dp)) = gl.detail_props() {
            detail(&dp);
        }
        let _ = gl.detail_lighting_count(false);
        let _ = gl.detail_lighting_count(true);
        for base in [OffsetBase::Absolute, OffsetBase::Relative, OffsetBase::LmpFile] {
            if let Ok(moved) = gl.relocated(place.file_offset + 1024, base) {
                assert_eq!(moved.len(), lump.len());
            }
        }
    }

    // The child parsers fed directly, at a version picked by the selector byte.
    if let Ok(sp) = StaticProps::parse(Cow::Borrowed(lump), version, endian) {
        props(&sp);
    }
    if let Ok(dp) = DetailProps::parse(Cow::Borrowed(lump), version, endian) {
        detail(&dp);
    }
    if let Ok(sp) = StaticProps::parse_in(Cow::Borrowed(lump), version, endian, PropGame::Vindictus) {
        props(&sp);
    }
    for form in [DirForm::DarkMessiah, DirForm::Vindictus] {
        if let Ok(dir) = parse_directory_in(lump, place, endian, form) {
            for e in &dir.entries {
                assert!(e.start + e.stored_len <= lump.len());
            }
        }
    }
});
