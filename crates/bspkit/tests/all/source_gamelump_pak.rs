//! Source game lumps, static props, pakfiles and external `.lmp` lumps: every Source corpus map
//! (`source/`, `source_x360/`), plus builder-made maps and archives for hostile input.

use crate::common;

use std::path::{Path, PathBuf};

use bspkit::build::BspBuilder;
use bspkit::lumps::gamelump::{self, GameLumps, OffsetBase, FLAG_COMPRESSED, ID_DETAIL_PROPS, ID_STATIC_PROPS};
use bspkit::lumps::pakfile::{self, PakBuilder, PakCompression, Pakfile, DEFAULT_MAX_ENTRY};
use bspkit::lumps::staticprops::PropLayout;
use bspkit::{Bsp, Endian, ErrorKind, OpenOptions};

/// Static prop facts per corpus map that no ground-truth file gives: (file, sprp version, props).
/// Checked by hand against the maps' source .vmf files in the bsp_tool repository: test2.vmf has
/// 18 prop_static, one of them with the missing model "models/not_a_real_file", and the 17 in the
/// map match the others in model, origin, angles, skin and solid; shack.vmf has 3 prop_static and
/// the map keeps 2 of them (also matching field by field). The other maps' `sprp` lumps are three
/// zero counts (12 bytes, as vbspinfo's row says).
const PROPS: &[(&str, u16, usize)] = &[
    ("bsp_tool__momentum_mp_lobby.bsp", 12, 0),
    ("bsp_tool__tf2_mp_lobby.bsp", 10, 0),
    ("bsp_tool__tf2_test2.bsp", 10, 17),
    ("bsp_tool__tf2_test_displacement_decompile.bsp", 10, 0),
    ("bsp_tool__tf2_test_physcollide.bsp", 10, 0),
    ("bspsrc__csgo_tooltextures.bsp", 11, 0),
    ("bspsrc__gmod_tooltextures.bsp", 10, 0),
    ("bspsrc__l4d2_tooltextures.bsp", 9, 0),
    ("dotatesting__test.bsp", 9, 0),
    ("srctools__rot_main.bsp", 11, 0),
    ("bsp_tool__shack.360.bsp", 6, 2),
];

/// Single props as their .vmf gives them (see `PROPS`): (file, index, model, origin, angles, skin, solid).
#[allow(clippy::type_complexity)]
const PROP_FIELDS: &[(&str, usize, &str, [f32; 3], [f32; 3], i32, u8)] = &[
    ("bsp_tool__tf2_test2.bsp", 1, "models/props_2fort/oildrum.mdl", [234.301, 236.01, -159.75], [0.0, 130.283, 0.0], 3, 6),
    ("bsp_tool__tf2_test2.bsp", 9, "models/props_trainyard/handrail216.mdl", [-260.0, -368.0, -128.0], [0.0, 0.0, 0.0], 3, 0),
    (
        "bsp_tool__tf2_test2.bsp",
        14,
        "models/props_2fort/miningcrate001.mdl",
        [-90.8537, -693.886, -178.677],
        [11.2138, 52.6704, -8.43582],
        0,
        6,
    ),
    ("bsp_tool__shack.360.bsp", 0, "models/props_foliage/shrub_01a.mdl", [-152.0, 296.0, -4.0], [0.0, 271.0, 0.0], 0, 0),
    (
        "bsp_tool__shack.360.bsp",
        1,
        "models/props_wasteland/lights_industrialcluster01a.mdl",
        [160.0, -480.0, 368.0],
        [0.0, 225.0, 0.0],
        0,
        6,
    ),
];

fn source_maps(corpus: &Path) -> Vec<PathBuf> {
    let mut maps: Vec<PathBuf> =
        common::maps_in(corpus, "source").into_iter().chain(common::maps_in(corpus, "source_x360")).map(|m| m.path).collect();
    maps.sort();
    maps
}

/// The "max" column of a vbspinfo row (`name  [variable]  used/max  (…)`), which for the
/// game-lump rows is the child's byte length.
fn info_row_max(info: &str, row: &str) -> Option<u64> {
    let line = info.lines().find(|l| l.trim_start().starts_with(row))?;
    let field = line.split_whitespace().find(|w| w.contains('/') && w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    field.split('/').nth(1)?.parse().ok()
}

#[test]
fn corpus_game_lumps_and_static_props() {
    let Some(corpus) = common::corpus("corpus_game_lumps_and_static_props") else { return };
    let maps = source_maps(&corpus);
    assert!(maps.len() >= 11, "expected the Source corpus maps, found {}", maps.len());
    for path in &maps {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bsp = Bsp::open(path).unwrap_or_else(|e| panic!("{e}"));
        let gl = GameLumps::of(&bsp).unwrap_or_else(|e| panic!("{name}: {e}"));
        let x360 = bsp.endian() == Endian::Big;
        // A12: PC maps absolute, the X360 Orange Box map relative.
        assert_eq!(gl.dir.base, if x360 { OffsetBase::Relative } else { OffsetBase::Absolute }, "{name}");
        let sprp = gl.find(b"sprp").unwrap_or_else(|| panic!("{name}: no sprp"));
        let dprp = gl.find(b"dprp").unwrap_or_else(|| panic!("{name}: no dprp"));
        assert_eq!(sprp.compressed, x360, "{name}: A13 compressed sprp on X360 only");
        if x360 {
            assert!(gl.entries().last().unwrap().is_dummy(), "{name}: A13 dummy entry");
        }
        // vbspinfo's game-lump rows carry the child's (uncompressed) byte length.
        let sprp_bytes = gl.bytes_of(sprp).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sprp_bytes.len() as u32, sprp.length, "{name}: filelen is the uncompressed size");
        if let Some(info) = common::info_txt(path) {
            assert_eq!(info_row_max(&info, "static props"), Some(sprp_bytes.len() as u64), "{name}: static props row");
            assert_eq!(info_row_max(&info, "detail props"), Some(gl.bytes_of(dprp).unwrap().len() as u64), "{name}: detail props row");
        }
        let sp = gl.static_props().unwrap().unwrap();
        let &(_, version, count) =
            PROPS.iter().find(|p| p.0 == name).unwrap_or_else(|| panic!("{name}: add it to PROPS with its sprp version and count"));
        assert_eq!((sp.version, sp.count), (version, count), "{name}");
        let props = sp.props().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(props.len(), count);
        if count > 0 {
            assert_eq!(sp.element_size, sp.layout.size(), "{name}: element size consistent with layout");
            assert_ne!(sp.layout, PropLayout::Unknown);
            for p in &props {
                assert!(p.model_name.is_some(), "{name}: model index {} outside the dictionary", p.model);
                assert!((p.first_leaf as usize + p.leaf_count as usize) <= sp.leaves.len(), "{name}: leaf range outside the leaf list");
                assert!(p.origin.iter().all(|v| v.is_finite() && v.abs() < 65536.0), "{name}: origin {:?}", p.origin);
            }
        }
        for &(_, i, model, origin, angles, skin, solid) in PROP_FIELDS.iter().filter(|f| f.0 == name) {
            let p = &props[i];
            assert_eq!((p.model_name.as_deref(), p.skin, p.solid), (Some(model), skin, solid), "{name} prop {i}");
            for k in 0..3 {
                assert!((p.origin[k] - origin[k]).abs() < 1e-3 && (p.angles[k] - angles[k]).abs() < 1e-3, "{name} prop {i}: {p:?}");
            }
        }
        // dprp: model dictionary, sprites and props fill the child exactly.
        let dp = gl.detail_props().unwrap().unwrap();
        let dprp_len = gl.bytes_of(dprp).unwrap().len();
        assert_eq!(dp.trailing, 0, "{name}");
        assert_eq!(12 + 128 * dp.model_names.len() + 32 * dp.sprite_count() + 52 * dp.prop_count(), dprp_len, "{name}");
        eprintln!(
            "{name}: sprp v{} {:?} {} props, {} models; dprp v{} {} props",
            sp.version,
            sp.layout,
            sp.count,
            sp.model_names.len(),
            dp.version,
            dp.prop_count()
        );
    }
}

/// The entry count from the Zip end record, read with plain byte offsets (not the library).
fn eocd_entries(zip: &[u8]) -> Option<usize> {
    let pos = zip.windows(4).rposition(|w| w == b"PK\x05\x06")?;
    Some(u16::from_le_bytes([zip[pos + 10], zip[pos + 11]]) as usize)
}

#[test]
fn corpus_pakfiles() {
    let Some(corpus) = common::corpus("corpus_pakfiles") else { return };
    for path in source_maps(&corpus) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bsp = Bsp::open(&path).unwrap();
        let lump = bsp.lump(pakfile::LUMP_PAKFILE).unwrap();
        let expected = eocd_entries(lump).unwrap_or_else(|| panic!("{name}: no end record"));
        let signatures = lump.windows(4).filter(|w| *w == b"PK\x01\x02").count();
        assert_eq!(expected, signatures, "{name}: end record and central-directory signatures disagree");
        let pak = Pakfile::parse(lump).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(pak.entries.len(), expected, "{name}");
        for e in &pak.entries {
            let data = pak.read(e, DEFAULT_MAX_ENTRY).unwrap_or_else(|err| panic!("{name}: {err}"));
            assert_eq!(data.len() as u64, e.size);
        }
        // Where a standard Zip reader accepts the archive, it must list the same entries.
        if let Ok(mut z) = zip::ZipArchive::new(std::io::Cursor::new(lump)) {
            assert_eq!(z.len(), pak.entries.len(), "{name}");
            for (i, e) in pak.entries.iter().enumerate() {
                let f = z.by_index_raw(i).unwrap();
                assert_eq!((f.name(), f.size(), f.compressed_size()), (e.name.as_str(), e.size, e.compressed_size));
            }
        }
        // Round trip: repacking keeps every entry byte for byte.
        let again = pakfile::repack(lump, PakCompression::Stored, DEFAULT_MAX_ENTRY).unwrap();
        let re = Pakfile::parse(&again).unwrap();
        assert_eq!(re.entries.len(), pak.entries.len());
        for (a, b) in pak.entries.iter().zip(&re.entries) {
            assert_eq!(pak.read(a, DEFAULT_MAX_ENTRY).unwrap(), re.read(b, DEFAULT_MAX_ENTRY).unwrap());
        }
        eprintln!("{name}: pakfile {} entries, {} bytes", pak.entries.len(), lump.len());
    }
}

fn temp_dir(tag: &str) -> common::Scratch {
    common::scratch(&format!("gamelump-{tag}"))
}

/// A stored Zip written by hand, so that names the library refuses to write can be tested.
fn raw_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let crc = crc32(data);
        let fields = |v: &mut Vec<u8>| {
            v.extend_from_slice(&[10, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&[0, 0]);
        };
        let ofs = out.len() as u32;
        out.extend_from_slice(b"PK\x03\x04");
        fields(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02\x14\x00");
        fields(&mut central);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&ofs.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

fn crc32(data: &[u8]) -> u32 {
    // Bitwise CRC-32 (IEEE), independent of the library's implementation.
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn hostile_entry_names_are_refused() {
    for bad in ["../x", "/abs", "C:\\x", "ok/../../x", "\\\\host\\share\\x"] {
        let zip = raw_zip(&[("fine.txt", b"ok"), (bad, b"evil")]);
        let pak = Pakfile::parse(&zip).unwrap();
        assert_eq!(pak.entries.len(), 2);
        // The extraction folder sits in a folder of this test's own, so that "nothing outside"
        // is checked where only an escape could have put it (the shared temp dir may hold an
        // unrelated `x`).
        let parent = temp_dir("extract");
        let dir = parent.join("out");
        std::fs::create_dir(&dir).unwrap();
        let x = pak.extract(&dir, &[], DEFAULT_MAX_ENTRY).unwrap();
        // The bad name is skipped and reported; the good one is extracted; nothing lands
        // outside the directory.
        assert_eq!(x.skipped.len(), 1, "{bad}");
        assert_eq!(x.skipped[0].0, bad);
        assert!(matches!(x.skipped[0].1.kind, ErrorKind::UnsafePath(_)), "{bad}: {}", x.skipped[0].1);
        assert_eq!(x.written, vec![dir.join("fine.txt")], "{bad}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "{bad}");
        assert_eq!(std::fs::read_dir(&parent).unwrap().count(), 1, "{bad}: something beside the extraction folder");
    }
    let zip = raw_zip(&[("materials/a.vmt", b"abc"), ("maps\\b.txt", b"de")]);
    let dir = temp_dir("extract-ok");
    let x = Pakfile::parse(&zip).unwrap().extract(&dir, &[], DEFAULT_MAX_ENTRY).unwrap();
    let written = x.written;
    assert!(x.skipped.is_empty());
    assert_eq!(written.len(), 2);
    assert_eq!(std::fs::read(dir.join("maps").join("b.txt")).unwrap(), b"de");
}

#[test]
fn written_pakfiles_read_with_a_standard_zip_reader() {
    use std::io::Read;
    let dir = temp_dir("addlist");
    std::fs::write(dir.join("a.vmt"), b"\"UnlitGeneric\" {}").unwrap();
    std::fs::write(dir.join("b.bin"), vec![42u8; 10000]).unwrap();
    let mut b = PakBuilder::new();
    let n = b.add_addlist("materials/custom/a.vmt\na.vmt\n\nsound/b.wav\nb.bin\n", &dir).unwrap();
    assert_eq!(n, 2);
    let bytes = b.build(PakCompression::Stored).unwrap();
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
    assert_eq!(z.len(), 2);
    let mut f = z.by_name("sound/b.wav").unwrap();
    assert_eq!(f.compression(), zip::CompressionMethod::Stored);
    let mut data = Vec::new();
    f.read_to_end(&mut data).unwrap();
    assert_eq!(data, vec![42u8; 10000]);
    drop(f);
    // LZMA entries (APPNOTE 5.8.8): the standard reader sees method 14 and the raw bytes start
    // with the 4-byte LZMA header (SDK version, properties size 5).
    let bytes = b.build(PakCompression::Lzma).unwrap();
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
    let i = z.index_for_name("sound/b.wav").unwrap();
    let mut f = z.by_index_raw(i).unwrap();
    let (size, csize) = (f.size(), f.compressed_size());
    let mut raw = Vec::new();
    f.read_to_end(&mut raw).unwrap();
    assert_eq!((size, raw.len() as u64), (10000, csize));
    assert!(csize < 1000, "LZMA should shrink 10000 equal bytes, got {csize}");
    assert_eq!(&raw[2..4], &[5, 0]);
    let props: [u8; 5] = raw[4..9].try_into().unwrap();
    assert_eq!(bspkit::compression::decode_lzma_alone(&props, 10000, &raw[9..]).unwrap(), vec![42u8; 10000]);
}

fn source_map_with_game_lump(game_lump: Vec<u8>) -> Vec<u8> {
    BspBuilder::new(&bspkit::branches::source::SOURCE)
        .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(35, game_lump)
        .build()
}

#[test]
fn hostile_lzma_sizes_in_game_lumps() {
    let mut packed = bspkit::compression::compress_valve_lzma(&[0u8; 12], 6).unwrap();
    packed[4..8].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let gl = gamelump::build(&[(ID_STATIC_PROPS, FLAG_COMPRESSED, 6, packed.clone())], OffsetBase::Relative, 0, Endian::Little);
    let map = source_map_with_game_lump(gl);
    let bsp = Bsp::from_bytes(&map).unwrap();
    let gls = GameLumps::of(&bsp).unwrap();
    let err = gls.static_props().unwrap_err();
    assert!(matches!(err.kind, ErrorKind::LimitExceeded { .. }), "{err}");
    // Under the default cap but beyond what the stream holds: a typed decode error.
    packed[4..8].copy_from_slice(&(400u32 << 20).to_le_bytes());
    let gl = gamelump::build(&[(ID_STATIC_PROPS, FLAG_COMPRESSED, 6, packed)], OffsetBase::Relative, 0, Endian::Little);
    let map = source_map_with_game_lump(gl);
    let bsp = Bsp::from_bytes(&map).unwrap();
    let err = GameLumps::of(&bsp).unwrap().static_props().unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Decompress(_)), "{err}");
}

#[test]
fn builder_map_absolute_offsets_and_lmp_siblings() {
    // A map whose game lump uses absolute offsets: find where lump 35 lands, then rebuild.
    let kids = vec![(ID_STATIC_PROPS, 0u16, 10u16, vec![0u8; 12]), (ID_DETAIL_PROPS, 0, 4, vec![0u8; 12])];
    let probe = source_map_with_game_lump(gamelump::build(&kids, OffsetBase::Relative, 0, Endian::Little));
    let ofs = Bsp::from_bytes(&probe).unwrap().entry(35).unwrap().offset;
    let map = source_map_with_game_lump(gamelump::build(&kids, OffsetBase::Absolute, ofs, Endian::Little));
    let bsp = Bsp::from_bytes(&map).unwrap();
    let gl = GameLumps::of(&bsp).unwrap();
    assert_eq!(gl.dir.base, OffsetBase::Absolute);
    assert_eq!(gl.static_props().unwrap().unwrap().count, 0);

    // External lumps: `<map>_l_0.lmp` replaces the entity lump unless turned off.
    let dir = temp_dir("lmp");
    let map_path = dir.join("patched.bsp");
    std::fs::write(&map_path, &map).unwrap();
    let ents = b"{\n\"classname\" \"worldspawn\"\n\"message\" \"from lmp\"\n}\n\0";
    let lmp = bspkit::lmp::write_lmp(0, 0, 1, ents).unwrap();
    assert_eq!(bspkit::lmp::LmpFile::parse(&lmp).unwrap().data, ents);
    std::fs::write(bspkit::lmp::lmp_path(&map_path, 0), &lmp).unwrap();
    // A game lump in a .lmp with offsets relative to the lump.
    let kids2 = vec![(ID_STATIC_PROPS, 0u16, 6u16, {
        let mut v = 1u32.to_le_bytes().to_vec();
        let mut name = [0u8; 128];
        name[..9].copy_from_slice(b"m/lmp.mdl");
        v.extend_from_slice(&name);
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&1u32.to_le_bytes());
        v.extend_from_slice(&[0u8; 64]);
        v
    })];
    let gl2 = gamelump::build(&kids2, OffsetBase::Relative, 0, Endian::Little);
    std::fs::write(dir.join("patched_l_35.lmp"), bspkit::lmp::write_lmp(35, 0, 1, &gl2).unwrap()).unwrap();

    let bsp = Bsp::open(&map_path).unwrap();
    assert_eq!(bsp.entities().unwrap().list[0].get("message").as_deref(), Some("from lmp"));
    let sp = GameLumps::of(&bsp).unwrap().static_props().unwrap().unwrap();
    assert_eq!((sp.count, sp.layout), (1, PropLayout::V6));
    assert_eq!(sp.props().unwrap()[0].model_name.as_deref(), Some("m/lmp.mdl"));
    let siblings = bspkit::lmp::list_siblings(&map_path).unwrap();
    assert_eq!(siblings.iter().map(|s| s.number).collect::<Vec<_>>(), vec![0, 35]);

    // A sibling whose header names another lump than its file name is refused, not applied.
    std::fs::write(dir.join("patched_l_7.lmp"), bspkit::lmp::write_lmp(0, 0, 1, ents).unwrap()).unwrap();
    assert!(matches!(Bsp::open(&map_path).err().map(|e| e.kind), Some(ErrorKind::Malformed(_))));

    let off = OpenOptions { external_lumps: false, ..OpenOptions::default() };
    let bsp = Bsp::open_with(&map_path, &off).unwrap();
    assert_eq!(bsp.entities().unwrap().list[0].get("message"), None);
    assert_eq!(GameLumps::of(&bsp).unwrap().static_props().unwrap().unwrap().count, 0);
}

/// Deterministic xorshift, for the mutation test.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Damaged game lumps and pakfiles give errors, never panics or runaway allocations: bytes are
/// flipped (mostly in the directories, where sizes and counts live) and the data is truncated.
#[test]
fn mutated_game_lumps_and_pakfiles_never_panic() {
    let Some(corpus) = common::corpus("mutated_game_lumps_and_pakfiles_never_panic") else { return };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let cap = 1 << 20;
    for path in source_maps(&corpus) {
        let bsp = Bsp::open(&path).unwrap();
        let place = gamelump::LumpPlace { file_offset: bsp.entry(35).unwrap().offset, from_lmp: false };
        let gl = bsp.lump(35).unwrap().to_vec();
        let pak = bsp.lump(pakfile::LUMP_PAKFILE).unwrap().to_vec();
        for round in 0..400 {
            let mut g = gl.clone();
            let mut p = pak.clone();
            for _ in 0..1 + rng.below(4) {
                let i = if rng.below(2) == 0 { rng.below(g.len().min(96)) } else { rng.below(g.len()) };
                if let Some(b) = g.get_mut(i) {
                    *b = rng.next() as u8;
                }
                let tail = p.len().min(256);
                let j = if rng.below(2) == 0 { p.len() - 1 - rng.below(tail) } else { rng.below(p.len()) };
                if let Some(b) = p.get_mut(j) {
                    *b = rng.next() as u8;
                }
            }
            if round % 10 == 0 {
                g.truncate(rng.below(g.len() + 1));
                p.truncate(rng.below(p.len() + 1));
            }
            if let Ok(gls) = GameLumps::from_bytes(&g, place, bsp.endian(), cap) {
                for e in gls.entries() {
                    let _ = gls.bytes_of(e);
                }
                if let Ok(Some(sp)) = gls.static_props() {
                    let _ = sp.props();
                }
                let _ = gls.detail_props();
                let _ = gls.detail_lighting_count(false);
            }
            if let Ok(pk) = Pakfile::parse(&p) {
                for e in &pk.entries {
                    let _ = pk.read(e, cap);
                }
            }
        }
    }
}
