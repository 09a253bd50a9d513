//! Issue 22, Quake 64 (`quake64`, `" 46Q"`; quakespasm `bspfile.h` / `gl_model.c`): BSP29
//! records behind its own version word, 44-byte `miptex64_t` textures with a `shift`, 16-bit
//! RGB lighting addressed in bytes. No real Quake 64 map was found, so maps are BSP29 maps
//! re-laid in those forms (`build::quake64_from_bsp29`) and checked against the originals:
//! the same geometry and texture pixels, UVs divided by 2 × shift, the same light levels to
//! within the 5/5/6-bit quantisation. The branch keeps its dagger.

use crate::common;

use bspkit::branches::quake1::{lighting, lumps as quake1, texture};
use bspkit::lumps::lighting::LightOptions;
use bspkit::lumps::miptex;
use bspkit::{Bsp, OpenOptions};

/// Every luxel of every face's style 0: `(grey original, RGB from the Quake 64 map)`.
fn luxels(a: &Bsp, b: &Bsp) -> Vec<(u8, [u8; 3])> {
    let (la, lb) = (lighting::collect(a, &LightOptions::default()).unwrap(), lighting::collect(b, &LightOptions::default()).unwrap());
    assert_eq!(la.faces.len(), lb.faces.len());
    let mut out = Vec::new();
    for (fa, fb) in la.faces.iter().zip(&lb.faces) {
        assert_eq!((fa.index, fa.width, fa.height), (fb.index, fb.width, fb.height));
        let (sa, sb) = (la.slots[fa.slot_range()][0].offset, lb.slots[fb.slot_range()][0].offset);
        for k in 0..(fa.width * fa.height) as usize {
            let q = &lb.data[sb + 3 * k..sb + 3 * k + 3];
            out.push((la.data[sa + k], [q[0], q[1], q[2]]));
        }
    }
    out
}

fn check_against(original: &[u8], q64: &[u8], shift: u32) {
    let (a, b) = (Bsp::from_bytes(original).unwrap(), Bsp::from_bytes(q64).unwrap());
    assert_eq!(b.branch().id, "quake64");
    assert!(b.detection().why.join("; ").contains("magic \" 46Q\""), "{:?}", b.detection().why);
    assert!(bspkit::check::check(&b).is_empty(), "{:?}", bspkit::check::check(&b));
    assert_eq!(bspkit::write::rewrite(&b).unwrap(), q64);

    // Textures: the 44-byte form, the same pixels.
    let (ta, tb) = (miptex::of(&a).unwrap().unwrap(), miptex::of(&b).unwrap().unwrap());
    assert_eq!(ta.len(), tb.len());
    for i in 0..ta.len() {
        let (Some(x), Some(y)) = (ta.get(i).unwrap(), tb.get(i).unwrap()) else { continue };
        assert_eq!((y.shift(), y.name(), y.width(), y.mip(0)), (Some(shift), x.name(), x.width(), x.mip(0)));
        let pal = bspkit::assets::Palette::quake_default();
        let (dx, dy) = (texture::decode_entry(&a, i, Some(&pal)), texture::decode_entry(&b, i, Some(&pal)));
        if let Ok(dx) = dx {
            let dy = dy.unwrap();
            assert_eq!((dy.width(), &dx.image().pixels), (x.width(), &dy.image().pixels), "texture {i}");
        }
    }

    // Geometry the same; UVs divided by 2 × shift.
    let (ma, mb) = (bspkit::mesh::build(&a, &Default::default()).unwrap(), bspkit::mesh::build(&b, &Default::default()).unwrap());
    assert!(ma.triangle_count() > 0);
    assert_eq!(ma.triangle_count(), mb.triangle_count());
    let k = if shift > 0 { 2.0 * shift as f32 } else { 1.0 };
    for (x, y) in ma.models.iter().zip(&mb.models) {
        assert_eq!(x.vertices.positions, y.vertices.positions);
        assert_eq!(x.indices, y.indices);
        for (u, v) in x.vertices.uv0.iter().zip(&y.vertices.uv0) {
            assert!((u[0] / k - v[0]).abs() < 1e-4 && (u[1] / k - v[1]).abs() < 1e-4, "{u:?} / {k} vs {v:?}");
        }
    }

    // Light: each 16-bit luxel decodes to the grey level within its quantisation.
    let lux = luxels(&a, &b);
    // Unlit maps (an empty lighting lump) have no luxels to compare.
    assert_eq!(lux.is_empty(), a.lump(quake1::LUMP_LIGHTING).unwrap().is_empty());
    for (g, [r, gr, bl]) in lux {
        assert!(r <= g && gr <= g && bl <= g && g - r < 8 && g - gr < 8 && g - bl < 4, "{g} -> {r} {gr} {bl}");
    }
}

#[test]
fn builder_room_as_quake64_reads_like_the_original() {
    let room = bspkit::branches::quake1::room::box_room(&quake1::QUAKE1);
    for shift in [0, 1, 2] {
        check_against(&room, &bspkit::build::quake64_from_bsp29(&room, shift).unwrap(), shift);
    }
    let q = bspkit::build::quake64_room();
    assert_eq!(&q[..4], b" 46Q");
    // `--branch quake1` reads Quake 64's bytes as BSP29: the textures' headers then misread.
    let forced = Bsp::from_bytes_with(&q, &OpenOptions { branch: Some("quake1".into()), ..Default::default() }).unwrap();
    assert_eq!(forced.branch().id, "quake1");
    // Green's two low bits: a grey 0b1111_1111 keeps full green (quakespasm's shift by 5 would give 0xe6).
    assert_eq!(bspkit::build::quake64::pack_luxel(255), [0xff, 0xff]);
}

/// Truncations and lying textures give typed errors or problems, never a panic.
#[test]
fn damaged_quake64_maps_fail_cleanly() {
    let q = bspkit::build::quake64_room();
    for cut in (0..q.len()).step_by(5) {
        if let Ok(bsp) = Bsp::from_bytes(&q[..cut]) {
            let _ = bspkit::check::check(&bsp);
            let _ = bspkit::mesh::build(&bsp, &Default::default());
        }
    }
    let t = u32::from_le_bytes(q[4 + 16..4 + 20].try_into().unwrap()) as usize;
    for at in (t..(t + 200).min(q.len() - 4)).step_by(4) {
        let mut bad = q.clone();
        bad[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        if let Ok(bsp) = Bsp::from_bytes(&bad) {
            let _ = bspkit::check::check(&bsp);
            let _ = bspkit::mesh::build(&bsp, &Default::default());
            let _ = miptex::of(&bsp).map(|l| l.map(|l| l.iter().count()));
        }
    }
}

/// The corpus's real BSP29 maps re-laid as Quake 64 read like the originals.
#[test]
fn corpus_quake_maps_as_quake64_read_like_the_originals() {
    let Some(dir) = common::corpus("corpus_quake_maps_as_quake64_read_like_the_originals") else { return };
    let mut n = 0;
    for name in ["quake1/bsp_tool__q1_mp_lobby.bsp", "quake1/ericw__q1_cube.bsp", "quake1/ericw__q1_decompiler_test.bsp"] {
        let data = std::fs::read(dir.join(name)).unwrap();
        check_against(&data, &bspkit::build::quake64_from_bsp29(&data, 1).unwrap(), 1);
        n += 1;
    }
    assert_eq!(n, 3);
}
