//! `bspkit::texture` end to end on synthetic maps and game directories written in code by
//! bspkit's own builders (maps, WAD2/WAD3, `.pak`, `.pk3`, VPK, VTF, `.wal`, TGA, PNG): every
//! family's lookup path, alpha modes, search order, and that failures are reported (with file,
//! entry and offset) rather than fatal.

use std::path::Path;

use crate::common;

use bspkit::assets::vtf::{Format, VtfBuilder};
use bspkit::assets::{pak, tga, vpk, wad, wal};
use bspkit::build::BspBuilder;
use bspkit::lumps::miptex::{encode, encode_lump};
use bspkit::lumps::pakfile::{PakBuilder, PakCompression};
use bspkit::texture::{AlphaMode, ImageRgba, MissingKind, TextureOptions, TextureSource};
use bspkit::{branches, Bsp};

fn tmp(name: &str) -> common::Scratch {
    common::scratch(&format!("texsrc-{name}"))
}

/// A palette whose colour i is (i, 255 - i, i / 2).
fn palette_lmp() -> Vec<u8> {
    (0..=255u8).flat_map(|i| [i, 255 - i, i / 2]).collect()
}

fn entities(text: &str) -> Vec<u8> {
    let mut v = text.as_bytes().to_vec();
    v.push(0);
    v
}

#[test]
fn quake1_embedded_wad2_and_palette_from_pak() {
    let dir = tmp("q1");
    let px: Vec<u8> = (0..64u8).map(|i| i * 4 + 3).collect();
    let mut fence = px.clone();
    fence[0] = 255;
    let lump = encode_lump(&[
        Some(encode("wall", 8, 8, &px, None)),
        Some(encode("{fence", 8, 8, &fence, None)),
        // Named only: pixels from the WAD.
        Some(encode("fromwad", 16, 16, &[], None)[..40].to_vec()),
        None,
    ]);
    // Offsets of a name-only texture are zero.
    let mut lump = lump;
    let third = i32::from_le_bytes(lump[12..16].try_into().unwrap()) as usize;
    lump[third + 24..third + 40].fill(0);
    let map = BspBuilder::new(&branches::quake1::QUAKE1)
        .lump(branches::quake1::LUMP_ENTITIES, entities("{\n\"classname\" \"worldspawn\"\n\"wad\" \"gfx/base.wad\"\n}\n"))
        .lump(branches::quake1::LUMP_TEXTURES, lump)
        .build();
    let game = dir.join("id1");
    std::fs::create_dir_all(&game).unwrap();
    std::fs::write(game.join("pak0.pak"), pak::build(&[("gfx/palette.lmp", &palette_lmp())])).unwrap();
    let wad_px: Vec<u8> = (0..=255u8).collect();
    std::fs::write(
        game.join("BASE.WAD"),
        wad::build(wad::WadVersion::Wad2, &[("FROMWAD", wad::TYPE_MIPTEX_WAD2, encode("FROMWAD", 16, 16, &wad_px, None))]),
    )
    .unwrap();
    let map_path = dir.join("m.bsp");
    std::fs::write(&map_path, &map).unwrap();
    let bsp = Bsp::open(&map_path).unwrap();

    // Without a palette given: the Quake palette that ships with bspkit (LibreQuake's)
    // decodes the embedded textures; the WAD is not found without a game directory.
    let none = TextureSource::new(&bsp, &TextureOptions::default());
    assert!(none.warnings().is_empty(), "{:?}", none.warnings());
    let all: Vec<_> = none.textures().collect();
    assert_eq!(all.len(), 3);
    let lq = bspkit::assets::palette::LIBREQUAKE_LMP;
    let shipped = |i: u8| [lq[i as usize * 3], lq[i as usize * 3 + 1], lq[i as usize * 3 + 2], 255];
    let wall = all[0].as_ref().unwrap();
    assert_eq!(wall.image().pixel(1, 0), Some(shipped(px[1])));
    assert_eq!(wall.image().pixel(7, 7), Some(shipped(px[63])));
    assert_eq!(all[1].as_ref().unwrap().image().pixel(0, 0), Some([0, 0, 0, 0]));
    let m = all[2].as_ref().unwrap_err();
    assert_eq!(m.kind, MissingKind::NotFound, "{m:?}");

    let src = TextureSource::new(&bsp, &TextureOptions { game_dirs: vec![game.clone()], ..TextureOptions::default() });
    assert!(src.warnings().is_empty(), "{:?}", src.warnings());
    let all: Vec<_> = src.textures().map(|r| r.unwrap()).collect();
    assert_eq!(all.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["wall", "{fence", "fromwad"]);
    let pal = palette_lmp();
    let rgb = |i: u8| [pal[i as usize * 3], pal[i as usize * 3 + 1], pal[i as usize * 3 + 2], 255];
    assert_eq!(all[0].image().pixel(1, 0), Some(rgb(px[1])));
    assert_eq!(all[0].alpha, AlphaMode::Opaque);
    assert_eq!(all[1].alpha, AlphaMode::Mask { cutoff: 0.5 });
    assert_eq!(all[1].image().pixel(0, 0), Some([0, 0, 0, 0]));
    assert_eq!(all[2].image().pixel(5, 1), Some(rgb(21)));
    assert!(all[2].source.to_ascii_lowercase().contains("base.wad"), "{}", all[2].source);
    // resolve() by name, case-insensitively.
    assert_eq!(src.resolve("WALL").unwrap().image(), all[0].image());
    assert_eq!(src.resolve("nothere").unwrap_err().kind, MissingKind::NotFound);
    assert_eq!(src.names().unwrap(), ["wall", "{fence", "fromwad"]);
}

#[test]
fn goldsrc_embedded_palette_and_wad3() {
    let dir = tmp("gs");
    let pal: Vec<[u8; 3]> = (0..256).map(|i| [i as u8, 0, 255 - i as u8]).collect();
    let px: Vec<u8> = (0..64).collect();
    let lump = encode_lump(&[Some(encode("own", 8, 8, &px, Some(&pal))), Some(encode("c1a0_wx", 8, 8, &px, Some(&pal))[..40].to_vec())]);
    let mut lump = lump;
    let second = i32::from_le_bytes(lump[8..12].try_into().unwrap()) as usize;
    lump[second + 24..second + 40].fill(0);
    let map = BspBuilder::new(&branches::goldsrc::GOLDSRC)
        .lump(
            branches::quake1::LUMP_ENTITIES,
            entities("{\n\"classname\" \"worldspawn\"\n\"wad\" \"\\sierra\\half-life\\valve\\halflife.wad;\\x\\gone.wad\"\n}\n"),
        )
        .lump(branches::quake1::LUMP_TEXTURES, lump)
        .build();
    let wads = dir.join("wads");
    std::fs::create_dir_all(&wads).unwrap();
    let wpal: Vec<[u8; 3]> = (0..256).map(|i| [0, i as u8, 7]).collect();
    std::fs::write(
        wads.join("halflife.wad"),
        wad::build(wad::WadVersion::Wad3, &[("C1A0_WX", wad::TYPE_MIPTEX_WAD3, encode("C1A0_WX", 8, 8, &px, Some(&wpal)))]),
    )
    .unwrap();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { wads: vec![wads.clone()], ..TextureOptions::default() });
    // gone.wad is named by the map but not found: a warning.
    assert_eq!(src.warnings().len(), 1, "{:?}", src.warnings());
    assert!(src.warnings()[0].name.contains("gone.wad"));
    let all: Vec<_> = src.textures().map(|r| r.unwrap()).collect();
    assert_eq!(all[0].image().pixel(3, 0), Some([3, 0, 252, 255]));
    assert_eq!(all[1].image().pixel(3, 0), Some([0, 3, 7, 255]));
    // A corrupt WAD given by hand is a warning too.
    std::fs::write(wads.join("bad.wad"), b"WAD3\xff\xff\xff\x7f\0\0\0\0").unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { wads: vec![wads.clone()], ..TextureOptions::default() });
    assert!(src.warnings().iter().any(|w| w.file.as_deref().is_some_and(|f| f.ends_with("bad.wad"))), "{:?}", src.warnings());
}

/// Hexen II's palette is not Quake's: with none given, its embedded textures stay undecoded,
/// said once in the warnings and per texture (kind NoPalette, with file, entry and offset); a
/// `--palette` decodes them. Quake 2 without `pics/colormap.pcx` gets the same one warning.
#[test]
fn hexen2_and_quake2_need_their_own_palette() {
    use branches::quake1 as q;
    let dir = tmp("h2");
    let room = q::room::box_room(&q::HEXEN2);
    let room = Bsp::from_bytes(&room).unwrap();
    let px: Vec<u8> = (0..64).collect();
    let mut b = BspBuilder::new(&q::HEXEN2);
    for e in room.lumps() {
        let bytes = room.lump(e.index).unwrap();
        b = b.lump(
            e.index,
            match e.index {
                // Four 80-byte models: 320 bytes, which only Hexen II's layout reads cleanly.
                q::LUMP_MODELS => bytes.repeat(4),
                q::LUMP_TEXTURES => encode_lump(&[Some(encode("wall", 8, 8, &px, None))]),
                _ => bytes.to_vec(),
            },
        );
    }
    let map = b.build();
    let path = dir.join("h2.bsp");
    std::fs::write(&path, &map).unwrap();
    let bsp = Bsp::open(&path).unwrap();
    assert_eq!(bsp.branch().id, "hexen2", "{:?}", bsp.detection().why);
    let src = TextureSource::new(&bsp, &TextureOptions::default());
    assert_eq!(src.warnings().len(), 1, "{:?}", src.warnings());
    assert_eq!(src.warnings()[0].kind, MissingKind::NoPalette);
    assert!(src.warnings()[0].reason.contains("Hexen II"), "{:?}", src.warnings());
    let all: Vec<_> = src.textures().collect();
    assert_eq!(all.len(), 1);
    let m = all[0].as_ref().unwrap_err();
    assert_eq!(m.kind, MissingKind::NoPalette);
    assert!(m.file.as_deref().is_some_and(|f| f.ends_with("h2.bsp")) && m.offset.is_some() && m.entry.is_some(), "{m:?}");
    let pal = dir.join("palette.lmp");
    std::fs::write(&pal, palette_lmp()).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { palette: Some(pal.clone()), ..TextureOptions::default() });
    assert!(src.warnings().is_empty(), "{:?}", src.warnings());
    let t = src.textures().next().unwrap().unwrap();
    assert_eq!(t.image().pixel(2, 0), Some([2, 253, 1, 255]));

    // An explicit palette wins over the shipped one on a Quake 1 map too.
    let q1 = BspBuilder::new(&q::QUAKE1).lump(q::LUMP_TEXTURES, encode_lump(&[Some(encode("wall", 8, 8, &px, None))])).build();
    let q1 = Bsp::from_bytes(&q1).unwrap();
    let src = TextureSource::new(&q1, &TextureOptions { palette: Some(pal), ..TextureOptions::default() });
    assert_eq!(src.textures().next().unwrap().unwrap().image().pixel(2, 0), Some([2, 253, 1, 255]));

    let map = BspBuilder::new(&branches::quake2::QUAKE2).lump(branches::quake2::LUMP_TEXINFO, q2_texinfo("e1u1/floor1_1", 0)).build();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions::default());
    assert_eq!(src.warnings().len(), 1, "{:?}", src.warnings());
    assert_eq!(src.warnings()[0].kind, MissingKind::NoPalette);
    assert!(src.warnings()[0].reason.contains("Quake 2"), "{:?}", src.warnings());
}

fn q2_texinfo(name: &str, flags: i32) -> Vec<u8> {
    let mut r = vec![0u8; 76];
    r[32..36].copy_from_slice(&flags.to_le_bytes());
    r[40..40 + name.len()].copy_from_slice(name.as_bytes());
    r[72..76].copy_from_slice(&(-1i32).to_le_bytes());
    r
}

#[test]
fn quake2_wal_with_pcx_palette_and_flags() {
    let dir = tmp("q2");
    let mut ti = q2_texinfo("e1u1/floor1_1", 0);
    ti.extend(q2_texinfo("e1u1/glass", 0x10));
    ti.extend(q2_texinfo("e1u1/floor1_1", 0));
    ti.extend(q2_texinfo("e1u1/png_only", 0));
    let map = BspBuilder::new(&branches::quake2::QUAKE2).lump(branches::quake2::LUMP_TEXINFO, ti).build();
    let mut pcx = vec![0x0A];
    pcx.resize(128, 0);
    pcx.push(0x0C);
    pcx.extend(palette_lmp());
    let px: Vec<u8> = (0..64).collect();
    let game = dir.join("baseq2");
    std::fs::create_dir_all(game.join("textures/e1u1")).unwrap();
    std::fs::write(
        game.join("pak0.pak"),
        pak::build(&[
            ("pics/colormap.pcx", &pcx),
            ("textures/e1u1/floor1_1.wal", &wal::build("e1u1/floor1_1", 8, 8, &px)),
            ("textures/e1u1/glass.wal", &wal::build("g", 8, 8, &px)),
        ]),
    )
    .unwrap();
    let png = ImageRgba::filled(2, 2, [1, 2, 3, 4]).encode_png().unwrap();
    std::fs::write(game.join("textures/e1u1/PNG_ONLY.png"), png).unwrap();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { game_dirs: vec![game], ..TextureOptions::default() });
    let all: Vec<_> = src.textures().map(|r| r.unwrap()).collect();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].image().pixel(2, 0), Some([2, 253, 1, 255]));
    assert_eq!(all[1].alpha, AlphaMode::Blend);
    assert_eq!(all[2].image().pixel(0, 0), Some([1, 2, 3, 4]));
}

fn q3_shader(name: &str) -> Vec<u8> {
    let mut r = vec![0u8; 72];
    r[..name.len()].copy_from_slice(name.as_bytes());
    r
}

#[test]
fn quake3_shader_scripts_in_pk3_and_loose_images() {
    let dir = tmp("q3");
    let mut sh = q3_shader("textures/base/grate");
    sh.extend(q3_shader("textures/base/plain"));
    sh.extend(q3_shader("noshader"));
    sh.extend(q3_shader("textures/base/absent"));
    let map = BspBuilder::new(&branches::quake3::QUAKE3).lump(branches::quake3::LUMP_SHADERS, sh).build();
    let game = dir.join("baseq3");
    std::fs::create_dir_all(game.join("textures/base")).unwrap();
    let grate = ImageRgba::new(2, 1, vec![10, 20, 30, 0, 40, 50, 60, 255]).unwrap();
    let mut pk3 = PakBuilder::new();
    pk3.insert(
        "scripts/base.shader",
        b"textures/base/grate\n{\n  {\n    map textures/base/grate_img.tga\n    alphaFunc GE128\n  }\n}\n".to_vec(),
    )
    .unwrap();
    pk3.insert("textures/base/grate_img.tga", tga::encode(&grate, true)).unwrap();
    std::fs::write(game.join("pak0.pk3"), pk3.build(PakCompression::Stored).unwrap()).unwrap();
    std::fs::write(game.join("textures/base/plain.tga"), tga::encode(&ImageRgba::filled(1, 1, [9, 9, 9, 255]), false)).unwrap();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { game_dirs: vec![game], ..TextureOptions::default() });
    let all: Vec<_> = src.textures().collect();
    assert_eq!(all.len(), 3);
    let g = all[0].as_ref().unwrap();
    assert_eq!((g.image(), g.alpha), (&grate, AlphaMode::Mask { cutoff: 0.5 }));
    assert!(g.source.ends_with("pak0.pk3:textures/base/grate_img.tga"), "{}", g.source);
    assert_eq!(all[1].as_ref().unwrap().image().pixel(0, 0), Some([9, 9, 9, 255]));
    assert_eq!(all[2].as_ref().unwrap_err().kind, MissingKind::NotFound);
}

fn source_map(materials: &[&str], pak: Option<Vec<u8>>) -> Vec<u8> {
    use branches::source::*;
    let (mut td, mut table, mut data) = (Vec::new(), Vec::new(), Vec::new());
    for (i, m) in materials.iter().enumerate() {
        let mut r = vec![0u8; 32];
        r[12..16].copy_from_slice(&(i as i32).to_le_bytes());
        td.extend(r);
        table.extend((data.len() as i32).to_le_bytes());
        data.extend(m.as_bytes());
        data.push(0);
    }
    let mut b = BspBuilder::new(&SOURCE).lump(LUMP_TEXDATA, td).lump(LUMP_TEXDATA_STRING_TABLE, table).lump(LUMP_TEXDATA_STRING_DATA, data);
    if let Some(p) = pak {
        b = b.lump(LUMP_PAKFILE, p);
    }
    b.build()
}

fn vtf_bgra(w: u16, h: u16, px: &[u8]) -> Vec<u8> {
    let b = VtfBuilder::new(Format::BGRA8888, w, h);
    b.build(&px.chunks(4).flat_map(|p| [p[2], p[1], p[0], p[3]]).collect::<Vec<_>>())
}

#[test]
fn source_pakfile_patch_vpk_and_alpha() {
    let dir = tmp("src");
    let mut pakb = PakBuilder::new();
    // A patch material (as VBSP writes for cube-mapped surfaces) including a material in a VPK.
    pakb.insert(
        "materials/maps/x/metal/roof_0_0_0.vmt",
        b"patch { include \"materials/metal/roof.vmt\" replace { \"$envmap\" \"maps/x/c0_0_0\" } }".to_vec(),
    )
    .unwrap();
    pakb.insert("materials/maps/x/c0_0_0.vtf", {
        let mut c = VtfBuilder::new(Format::I8, 1, 1);
        c.flags = bspkit::assets::vtf::FLAG_ENVMAP;
        c.build(&[1, 2, 3, 4, 5, 6])
    })
    .unwrap();
    pakb.insert("materials/glass/window.vmt", b"LightmappedGeneric { $basetexture glass/window $translucent 1 }".to_vec()).unwrap();
    pakb.insert("materials/glass/window.vtf", vtf_bgra(1, 1, &[1, 2, 3, 128])).unwrap();
    let pak_bytes = pakb.build(PakCompression::Lzma).unwrap();
    let map = source_map(&["maps/x/metal/roof_0_0_0", "GLASS/WINDOW", "water/murky", "TOOLS/TOOLSNODRAW", "fence/chain"], Some(pak_bytes));
    let game = dir.join("hl2");
    std::fs::create_dir_all(game.join("materials/fence")).unwrap();
    let (vdir, varch) = vpk::build(
        2,
        &[
            ("materials/metal/roof.vmt", b"\"LightmappedGeneric\"\n{\n\t\"$basetexture\" \"Metal\\Roof\"\n}\n"),
            ("materials/metal/roof.vtf", &vtf_bgra(2, 1, &[10, 20, 30, 255, 40, 50, 60, 255])),
            ("materials/water/murky.vmt", b"Water { $normalmap water/n }"),
        ],
        16,
        true,
    );
    std::fs::write(game.join("hl2_misc_dir.vpk"), vdir).unwrap();
    std::fs::write(game.join("hl2_misc_000.vpk"), varch).unwrap();
    std::fs::write(
        game.join("materials/fence/chain.vmt"),
        b"VertexLitGeneric { $basetexture fence/chain $alphatest 1 $alphatestreference 0.25 }",
    )
    .unwrap();
    std::fs::write(game.join("materials/fence/chain.vtf"), vtf_bgra(1, 1, &[0, 0, 0, 0])).unwrap();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { game_dirs: vec![game], ..TextureOptions::default() });
    assert!(src.warnings().is_empty(), "{:?}", src.warnings());
    let all: Vec<_> = src.textures().collect();
    let names: Vec<String> = all.iter().map(|r| r.as_ref().map(|t| t.name.clone()).unwrap_or_else(|m| m.name.clone())).collect();
    assert_eq!(
        names,
        [
            "materials/maps/x/c0_0_0.vtf",
            "materials/glass/window.vtf",
            "maps/x/metal/roof_0_0_0",
            "GLASS/WINDOW",
            "water/murky",
            "TOOLS/TOOLSNODRAW",
            "fence/chain"
        ]
    );
    let cube = all[0].as_ref().unwrap();
    assert_eq!(cube.layers().len(), 6);
    assert_eq!(cube.layers()[5].label, "dn");
    let roof = all[2].as_ref().unwrap();
    assert_eq!(roof.image().pixel(1, 0), Some([40, 50, 60, 255]));
    assert!(roof.source.contains("hl2_misc_dir.vpk:materials/metal/roof.vtf"), "{}", roof.source);
    let glass = all[3].as_ref().unwrap();
    assert_eq!((glass.alpha, glass.image().pixel(0, 0)), (AlphaMode::Blend, Some([1, 2, 3, 128])));
    assert_eq!(all[4].as_ref().unwrap_err().kind, MissingKind::Unsupported);
    assert_eq!(all[5].as_ref().unwrap_err().kind, MissingKind::NotFound);
    assert_eq!(all[6].as_ref().unwrap().alpha, AlphaMode::Mask { cutoff: 0.25 });
    // The budget: a tiny one stops reading and says so.
    let tiny = TextureOptions { budget: bspkit::texture::Budget { max_bytes: 20, ..Default::default() }, ..TextureOptions::default() };
    let src = TextureSource::new(&bsp, &tiny);
    let r: Vec<_> = src.textures().collect();
    assert!(r.iter().any(|x| x.as_ref().is_err_and(|m| m.kind == MissingKind::Budget)), "{r:?}");
}

#[test]
fn respawn_and_cod_names_are_unsupported() {
    let mut strings = b"world/dev/a\0world/dev/b\0world/dev/a\0".to_vec();
    strings.push(0);
    let map = BspBuilder::new(&branches::respawn::TITANFALL).lump(branches::respawn::LUMP_TEXTURE_DATA_STRING_DATA, strings).build();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions::default());
    let all: Vec<_> = src.textures().collect();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|r| r.as_ref().is_err_and(|m| m.kind == MissingKind::Unsupported)));
}

#[test]
fn hostile_game_files_are_reported_not_fatal() {
    let dir = tmp("hostile");
    let game = dir.join("game");
    std::fs::create_dir_all(game.join("materials/a")).unwrap();
    std::fs::write(game.join("broken_dir.vpk"), [0x34, 0x12, 0xAA, 0x55, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]).unwrap();
    std::fs::write(game.join("materials/a/b.vmt"), b"LightmappedGeneric { $basetexture a/b }").unwrap();
    let vtf = VtfBuilder::new(Format::DXT1, 64, 64).build(&[0; 8]);
    std::fs::write(game.join("materials/a/b.vtf"), vtf).unwrap();
    let map = source_map(&["a/b"], None);
    let bsp = Bsp::from_bytes(&map).unwrap();
    let src = TextureSource::new(&bsp, &TextureOptions { game_dirs: vec![game.clone()], ..TextureOptions::default() });
    assert_eq!(src.warnings().len(), 1);
    let m = src.resolve("a/b").unwrap_err();
    assert_eq!(m.kind, MissingKind::Undecodable);
    assert!(m.file.as_deref().is_some_and(|f| Path::new(f).ends_with("materials/a/b.vtf")), "{m:?}");
    assert!(m.offset.is_some(), "{m:?}");
}

/// Issue 23, "lookups per name": a worldspawn `wad` key naming thousands of WADs (repeats and
/// different paths to one file name included) is searched once per distinct file name over
/// directories listed once, at most `Budget::max_lookups` names; the rest is one `budget`
/// warning. The WAD that is there is found (case ignored) and opened once.
#[test]
fn wad_key_with_thousands_of_names_is_bounded() {
    use bspkit::assets::Budget;
    let dir = tmp("manywads");
    let wads = dir.join("wads");
    std::fs::create_dir_all(&wads).unwrap();
    for i in 0..300 {
        std::fs::write(wads.join(format!("other{i}.txt")), b"").unwrap();
    }
    let px: Vec<u8> = (0..64).collect();
    std::fs::write(
        wads.join("Real.WAD"),
        wad::build(wad::WadVersion::Wad3, &[("INWAD", wad::TYPE_MIPTEX_WAD3, encode("INWAD", 8, 8, &px, Some(&[[1, 2, 3]; 256])))]),
    )
    .unwrap();
    let mut key = String::from("\\a\\real.wad;\\b\\REAL.wad;");
    for i in 0..5000 {
        key.push_str(&format!("\\x\\missing{i}.wad;"));
    }
    let mut lump = encode_lump(&[Some(encode("inwad", 8, 8, &px, None)[..40].to_vec())]);
    // A name-only entry: no mip offsets, the pixels come from a WAD.
    let first = i32::from_le_bytes(lump[4..8].try_into().unwrap()) as usize;
    lump[first + 24..first + 40].fill(0);
    let map = BspBuilder::new(&branches::goldsrc::GOLDSRC)
        .lump(branches::quake1::LUMP_ENTITIES, entities(&format!("{{\n\"classname\" \"worldspawn\"\n\"wad\" \"{key}\"\n}}\n")))
        .lump(branches::quake1::LUMP_TEXTURES, lump)
        .build();
    let bsp = Bsp::from_bytes(&map).unwrap();
    let budget = Budget { max_lookups: 1000, ..Budget::default() };
    let src = TextureSource::new(&bsp, &TextureOptions { wads: vec![wads.clone()], budget, ..TextureOptions::default() });
    let w = src.warnings();
    // 999 missing names searched (the first name found the WAD; its repeat was not searched
    // again), then one warning for the 4,001 names past the budget.
    assert_eq!(w.iter().filter(|m| m.kind == MissingKind::NotFound).count(), 999, "{:?}", &w[..3]);
    let over: Vec<_> = w.iter().filter(|m| m.kind == MissingKind::Budget).collect();
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(over[0].name.contains("4001 more names"), "{}", over[0]);
    let t = src.textures().next().unwrap().unwrap();
    assert_eq!(t.image().pixel(0, 0), Some([1, 2, 3, 255]));
    assert!(t.source.contains("Real.WAD"), "{}", t.source);
}
