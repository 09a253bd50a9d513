//! `bspkit::decompile` on the Source corpus (`source/`, `source_x360/`): every map decompiles to
//! a `.vmf` whose brushes, textures, entities, props, cubemaps, displacements and overlays read
//! back as the map has them; the one editor source in the corpus (`srctools__rot_main.vmf`)
//! checks the plane and texture-axis conventions; srctools' own `.vmf` reader (an independent
//! parser, where `BSPKIT_PYTHON` has it) reads every output with the same counts.

use crate::common;

use bspkit::build::BspBuilder;
use bspkit::decompile::{decompile, to_map_entities, vmf, DecompileOptions, Decompiled};
use bspkit::Bsp;

fn run(path: &std::path::Path) -> (Decompiled, f64) {
    let bsp = Bsp::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = std::time::Instant::now();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (d, t.elapsed().as_secs_f64() * 1e3)
}

fn source_maps(corpus: &std::path::Path) -> Vec<common::CorpusMap> {
    let mut v = common::maps_in(corpus, "source");
    v.extend(common::maps_in(corpus, "source_x360"));
    v
}

#[test]
fn corpus_source() {
    let Some(corpus) = common::corpus("decompile_source::corpus_source") else { return };
    let maps = source_maps(&corpus);
    assert!(maps.len() >= 11, "{} Source maps", maps.len());
    for m in &maps {
        let name = m.path.file_name().unwrap().to_string_lossy().to_string();
        let (d, ms) = run(&m.path);
        let q = d.report.quality.clone().unwrap();
        let x = q.source.clone().unwrap();
        eprintln!(
            "{name:<48} cov {:>8.4}% brush {}/{} tex {}/{} ents {}/{} props {}/{} cube {}/{} disp {}/{}/{} ovl {}/{} ({}/{} faces) detail {} {ms:.1} ms",
            q.face_coverage.unwrap_or(f64::NAN),
            q.brushes_same,
            q.brushes,
            q.sides_same_texture,
            q.sides,
            q.entities_same,
            q.entities,
            x.props_same,
            x.props,
            x.cubemaps_same,
            x.cubemaps,
            x.displacements_same,
            x.displacements_written,
            x.displacements,
            x.overlays_same,
            x.overlays,
            x.overlay_faces_on_sides,
            x.overlay_faces,
            x.func_detail
        );
        for n in d.report.notes.iter().take(6) {
            eprintln!("    note: {n}");
        }
        for mm in d.report.mismatches.iter().take(5) {
            eprintln!("    {mm:?}");
        }
        assert_eq!(d.extension, "vmf");
        assert!(q.brushes > 0, "{name}");
        assert_eq!(q.brushes_same, q.brushes, "{name}: brush fidelity");
        assert_eq!(q.sides_same_texture, q.sides, "{name}: textures");
        assert!(q.entities_in_order, "{name}: entities");
        assert!(q.face_coverage.unwrap_or(100.0) >= 99.9, "{name}: coverage {:?}", q.face_coverage);
        assert_eq!(x.open_brushes, 0, "{name}");
        if name == "dotatesting__test.bsp" {
            // Dota 2 (v23): 15 brush-side records name plane 0 with only a texinfo (the lump does
            // not hold those sides); their planes come back from the brushes' leaves in the tree.
            assert_eq!(x.recovered_sides, 15, "{name}");
            // The ground (z = 0, the whole play area, 12,288 × 10,240 units) is displacement 0:
            // its Dota 2 record is read where the map proves it, and its brush rebuilt under it.
            assert_eq!((x.displacements, x.displacement_brushes_rebuilt), (1, 1), "{name}");
            assert!(q.uncovered_by_texture.is_empty(), "{name}: {:?}", q.uncovered_by_texture);
        } else {
            assert_eq!(x.recovered_sides, 0, "{name}");
        }
        assert_eq!(x.props_same, x.props, "{name}: props");
        assert_eq!(x.cubemaps_same, x.cubemaps, "{name}: cubemaps");
        assert_eq!(x.displacements_written, x.displacements, "{name}: displacements placed");
        assert_eq!(x.displacements_same, x.displacements_written, "{name}: displacements");
        assert_eq!(x.overlays_same, x.overlays, "{name}: overlays");
        assert_eq!(x.overlay_faces_on_sides, x.overlay_faces, "{name}: overlay faces");
        assert_eq!(d.report.mismatches_total, 0, "{name}");
        let named = crate::decompile_report::check_rows(&name, &d);
        // The added entities stand for what their classname says.
        let added = |class: &str| d.report.entity_list.iter().filter(|e| e.keys_original.is_none() && e.classname == class).count();
        assert_eq!((added("prop_static"), added("env_cubemap"), added("func_detail")), (x.props, x.cubemaps, x.func_detail), "{name}");
        if name == "bsp_tool__tf2_test2.bsp" {
            // Its four clip brushes stored as nodraw: the note in each one's row.
            let rows: Vec<_> = d.report.brush_list.iter().filter(|b| b.notes.iter().any(|n| n.contains("the tool its contents"))).collect();
            assert_eq!((rows.len(), named), (4, 4), "{name}");
        }
    }
}

/// The corpus's one editor source: every solid of `rot_main.vmf` comes back with the same plane
/// set and material (case aside: vbsp stores names as it found them), and the texture axes where
/// the map records them. vbsp gives nodraw sides one texinfo per material whatever their axes
/// (rot_main's 36 nodraw sides share its one texinfo), so their axes are not compared.
#[test]
fn rot_main_against_its_vmf() {
    let Some(corpus) = common::corpus("decompile_source::rot_main_against_its_vmf") else { return };
    let dir = corpus.join("source");
    let src = to_map_entities(&vmf::read(&std::fs::read(dir.join("srctools__rot_main.vmf")).unwrap()).unwrap());
    let (d, _) = run(&dir.join("srctools__rot_main.bsp"));
    let out = to_map_entities(&vmf::read(d.text.as_bytes()).unwrap());
    let brushes = |e: &[bspkit::decompile::mapfile::MapEntity]| -> Vec<Vec<bspkit::decompile::mapfile::MapSide>> {
        e.iter().flat_map(|e| e.brushes().cloned()).collect()
    };
    let (sb, ob) = (brushes(&src), brushes(&out));
    assert!(!sb.is_empty());
    let mut sides_same = 0;
    let mut sides = 0;
    let mut axes_compared = 0;
    for b in &sb {
        let planes: Vec<_> = b.iter().map(|s| s.plane().unwrap()).collect();
        let found = ob
            .iter()
            .find(|o| o.len() == b.len() && planes.iter().all(|p| o.iter().any(|s| s.plane().is_some_and(|q| q.same_as(p, 1e-6, 1e-3)))));
        let found = found.unwrap_or_else(|| panic!("source brush {planes:?} not in the output"));
        for s in b {
            sides += 1;
            let p = s.plane().unwrap();
            let o = found.iter().find(|o| o.plane().unwrap().same_as(&p, 1e-6, 1e-3)).unwrap();
            let axes = |t: &bspkit::decompile::mapfile::TexProjection| match t {
                bspkit::decompile::mapfile::TexProjection::Valve { u, v, scale, .. } => {
                    [u[0] / scale[0], u[1] / scale[0], u[2] / scale[0], u[3], v[0] / scale[1], v[1] / scale[1], v[2] / scale[1], v[3]]
                }
                _ => unreachable!(),
            };
            let nodraw = s.texture.eq_ignore_ascii_case("tools/toolsnodraw");
            let same_axes = nodraw || axes(&s.projection).iter().zip(axes(&o.projection)).all(|(a, b)| (a - b).abs() < 1e-4);
            axes_compared += usize::from(!nodraw);
            if s.texture.eq_ignore_ascii_case(&o.texture) && same_axes {
                sides_same += 1;
            } else {
                eprintln!("side differs: {} {:?} vs {} {:?}", s.texture, s.projection, o.texture, o.projection);
            }
        }
    }
    eprintln!(
        "rot_main: {} source solids back, {sides_same}/{sides} sides with the source's material ({axes_compared} with axes to compare)",
        sb.len()
    );
    assert_eq!(sides_same, sides);
}

/// srctools (MIT; the test venv's `srctools==2.7.0`) parses every decompiled `.vmf` with its own
/// reader: the same number of solids, sides, displacements and entities as ours.
#[test]
fn srctools_reads_the_vmfs() {
    let Some(corpus) = common::corpus("decompile_source::srctools_reads_the_vmfs") else { return };
    let require = std::env::var("BSPKIT_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    let python = match std::env::var("BSPKIT_PYTHON") {
        Ok(p) if std::process::Command::new(&p).args(["-c", "import srctools.vmf"]).status().is_ok_and(|s| s.success()) => p,
        _ => {
            assert!(!require, "BSPKIT_REQUIRE_ORACLES=1 but BSPKIT_PYTHON has no srctools");
            eprintln!("note: srctools_reads_the_vmfs skipped: set BSPKIT_PYTHON to a Python with srctools (scripts/test.sh does)");
            return;
        }
    };
    let dir = common::scratch("vmf-oracle");
    const SCRIPT: &str = r#"
import sys, json
from srctools.vmf import VMF
from srctools.keyvalues import Keyvalues
for path in sys.argv[1:]:
    with open(path, encoding="utf-8", errors="replace") as f:
        vmf = VMF.parse(Keyvalues.parse(f, path))
    solids = list(vmf.brushes) + [s for e in vmf.entities for s in e.solids]
    sides = sum(len(s.sides) for s in solids)
    disps = sum(1 for s in solids for f in s.sides if f.is_disp)
    outputs = sum(len(e.outputs) for e in [vmf.spawn] + list(vmf.entities))
    print(json.dumps({"entities": len(vmf.entities), "solids": len(solids), "sides": sides, "disps": disps, "outputs": outputs}))
"#;
    let mut files = Vec::new();
    let mut ours = Vec::new();
    for m in source_maps(&corpus) {
        let (d, _) = run(&m.path);
        let f = dir.join(format!("{}.vmf", m.path.file_stem().unwrap().to_string_lossy()));
        std::fs::write(&f, &d.text).unwrap();
        let blocks = vmf::read(d.text.as_bytes()).unwrap();
        let ents = to_map_entities(&blocks);
        let solids: usize = ents.iter().map(|e| e.brushes().count()).sum();
        let sides: usize = ents.iter().flat_map(|e| e.brushes()).map(|b| b.len()).sum();
        let x = d.report.quality.as_ref().unwrap().source.clone().unwrap();
        let outputs = blocks.iter().flat_map(|b| b.blocks("connections")).map(|c| c.items.len()).sum::<usize>();
        ours.push((m.path.clone(), ents.len() - 1, solids, sides, x.displacements_written, outputs));
        files.push(f);
    }
    let out = std::process::Command::new(&python).arg("-c").arg(SCRIPT).args(&files).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), ours.len());
    for (line, (path, ents, solids, sides, disps, outputs)) in lines.iter().zip(&ours) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        eprintln!("{}: srctools {line}", path.display());
        assert_eq!(v["entities"], *ents, "{}", path.display());
        assert_eq!(v["solids"], *solids, "{}", path.display());
        assert_eq!(v["sides"], *sides, "{}", path.display());
        assert_eq!(v["disps"], *disps, "{}", path.display());
        assert_eq!(v["outputs"], *outputs, "{}", path.display());
    }
}

/// A builder-made Source map (v20): one brush, the box 0..64³, whose +x and −z side records name
/// plane 0 (an unrelated plane) with no texinfo, as Dota 2's lump has them. The world tree is a
/// chain of the box's six planes ending in one solid leaf; `list_brush` says whether that
/// leaf's brush list names the brush.
fn box_with_plane0_sides(list_brush: bool) -> Vec<u8> {
    box_with_plane0_sides_and(list_brush, &[])
}

/// [`box_with_plane0_sides`] with `extra` lumps (index, bytes) added.
fn box_with_plane0_sides_and(list_brush: bool, extra: &[(usize, Vec<u8>)]) -> Vec<u8> {
    let f32s = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let i32s = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // Plane 0: x = 1000 (no side of the box); 1..=6: +x, −x, +y, −y, +z, −z outward.
    let box_planes: [([f32; 3], f32); 6] = [
        ([1.0, 0.0, 0.0], 64.0),
        ([-1.0, 0.0, 0.0], 0.0),
        ([0.0, 1.0, 0.0], 64.0),
        ([0.0, -1.0, 0.0], 0.0),
        ([0.0, 0.0, 1.0], 64.0),
        ([0.0, 0.0, -1.0], 0.0),
    ];
    let mut planes = f32s(&[1.0, 0.0, 0.0, 1000.0]);
    planes.extend(i32s(&[0]));
    for (n, d) in box_planes {
        planes.extend(f32s(&[n[0], n[1], n[2], d]));
        planes.extend(i32s(&[0]));
    }
    // Sides in the order −x, +x, −y, +y, +z, −z; +x and −z name plane 0.
    let side_planes = [2u16, 0, 4, 3, 5, 0];
    let sides: Vec<u8> = side_planes
        .iter()
        .flat_map(|&p| [p.to_le_bytes(), (-1i16).to_le_bytes(), 0i16.to_le_bytes(), 0i16.to_le_bytes()].concat())
        .collect();
    // Node i splits by box plane i: in front is empty space (leaf 0), behind is node i + 1; the
    // last node's back is the solid leaf 1.
    let mut nodes = Vec::new();
    for i in 0..6i32 {
        let back = if i == 5 { -2 } else { i + 1 };
        nodes.extend(i32s(&[i + 1, -1, back]));
        nodes.extend([0u8; 20]);
    }
    let mut leaves = Vec::new();
    for (contents, brushes) in [(0i32, 0u16), (1, u16::from(list_brush))] {
        leaves.extend(i32s(&[contents]));
        leaves.extend([0u8; 16]);
        leaves.extend([0u16, 0, 0, brushes].iter().flat_map(|x| x.to_le_bytes()));
        leaves.extend([0u8; 4]);
    }
    let mut model = f32s(&[-128.0, -128.0, -128.0, 128.0, 128.0, 128.0, 0.0, 0.0, 0.0]);
    model.extend(i32s(&[0, 0, 0]));
    let mut b = BspBuilder::new(&bspkit::branches::source::SOURCE)
        .version(20)
        .lump(0, b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec())
        .lump(1, planes)
        .lump(5, nodes)
        .lump_v(10, leaves, 1)
        .lump(14, model)
        .lump(17, 0u16.to_le_bytes().to_vec())
        .lump(18, i32s(&[0, 6, 1]))
        .lump(19, sides);
    for (index, bytes) in extra {
        b = b.lump(*index, bytes.clone());
    }
    b.build()
}

/// Cubemaps (lump 42, `dcubemapsample_t`: origin as three ints, size) come back as
/// `env_cubemap` entities with their origin and size, and read back equal (session 39 audit of
/// issue 26: no corpus map has a cubemap, so only this builder map shows it).
#[test]
fn cubemaps_come_back_as_env_cubemap() {
    let samples: Vec<u8> = [[16i32, 16, 32, 0], [48, 40, -8, 6]].iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    let bytes = box_with_plane0_sides_and(true, &[(42, samples)]);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
    let x = d.report.quality.as_ref().unwrap().source.clone().unwrap();
    assert_eq!((x.cubemaps, x.cubemaps_same), (2, 2), "{}", d.text);
    let ents = vmf::read(d.text.as_bytes()).unwrap();
    let cubemaps: Vec<_> = ents.iter().filter(|b| b.get("classname") == Some("env_cubemap")).collect();
    assert_eq!(cubemaps.len(), 2, "{}", d.text);
    assert_eq!(vmf::numbers(cubemaps[0].get("origin").unwrap()), [16.0, 16.0, 32.0]);
    assert_eq!(vmf::numbers(cubemaps[1].get("origin").unwrap()), [48.0, 40.0, -8.0]);
    assert_eq!(cubemaps[1].get("cubemapsize"), Some("6"));
}

/// The report's rows on a builder map (no corpus): the one brush, its notes (two sides whose
/// planes came back from the tree) in its row, and the worldspawn.
#[test]
fn report_rows_on_a_builder_map() {
    let bytes = box_with_plane0_sides(true);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
    crate::decompile_report::check_rows("builder box", &d);
    let r = &d.report;
    assert_eq!((r.brush_list.len(), r.entity_list.len()), (1, 1));
    let b = &r.brush_list[0];
    assert_eq!((b.entity, b.classname.as_str(), b.from, b.lump_index, b.sides, b.same), (0, "worldspawn", "brush_lump", Some(0), 6, true));
    assert_eq!(b.notes.iter().filter(|n| n.contains("recovered from the tree")).count(), 2, "{b:?}");
    let e = &r.entity_list[0];
    assert_eq!((e.classname.as_str(), e.keys_original, e.same, e.brushes), ("worldspawn", Some(1), true, 1));
    // The tree did not prove the sides: the brush is left out, and so is its row.
    let bytes = box_with_plane0_sides(false);
    let d = decompile(&Bsp::from_bytes(&bytes).unwrap(), &DecompileOptions::default()).unwrap();
    crate::decompile_report::check_rows("builder box, unproven", &d);
}

#[test]
fn sides_naming_plane_0_come_back_from_the_tree() {
    let bytes = box_with_plane0_sides(true);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
    let x = d.report.quality.as_ref().unwrap().source.clone().unwrap();
    assert_eq!((x.open_brushes, x.recovered_sides), (0, 2), "{:?}\n{}", d.report.notes, d.text);
    // The brush's six planes, exactly: −x, +x, −y, +y, +z, −z (Hammer's three points per side).
    let ents = vmf::read(d.text.as_bytes()).unwrap();
    let solids = to_map_entities(&ents);
    let sides: Vec<_> = solids[0].brushes().next().unwrap().iter().map(|s| s.plane().unwrap()).collect();
    let want = [
        ([-1.0, 0.0, 0.0], 0.0),
        ([1.0, 0.0, 0.0], 64.0),
        ([0.0, -1.0, 0.0], 0.0),
        ([0.0, 1.0, 0.0], 64.0),
        ([0.0, 0.0, 1.0], 64.0),
        ([0.0, 0.0, -1.0], 0.0),
    ];
    assert_eq!(sides.len(), 6, "{}", d.text);
    for (p, (n, dist)) in sides.iter().zip(want) {
        assert!(
            p.normal.iter().zip(n).all(|(a, b)| (a - b).abs() < 1e-9) && (p.dist - dist).abs() < 1e-9,
            "{p:?} != {n:?} {dist}\n{}",
            d.text
        );
    }
    assert!(d.report.notes.iter().any(|n| n.contains("recovered from the tree")), "{:?}", d.report.notes);

    // The leaf does not name the brush: nothing proves the sides, the brush stays open.
    let bytes = box_with_plane0_sides(false);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
    let x = d.report.quality.as_ref().unwrap().source.clone().unwrap();
    assert_eq!((x.open_brushes, x.recovered_sides), (1, 0), "{:?}", d.report.notes);
    assert!(d.report.notes.iter().any(|n| n.contains("not recovered")), "{:?}", d.report.notes);
}

/// The ground face of a Dota 2 map comes back as its displacement when the map proves the
/// record (its face names it, it names the face back, its start is the face's corner), with the
/// rebuilt brush under it; a record the map does not prove gives nothing (the face stays
/// uncovered, no brush is invented).
#[test]
fn a_dota_2_ground_displacement_comes_back_when_the_map_proves_it() {
    let bytes = common::fixtures::dota_ground([128.0, 128.0, 0.0], 0, 23);
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    assert_eq!(bsp.branch().id, "dota2");
    let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
    let q = d.report.quality.clone().unwrap();
    let x = q.source.clone().unwrap();
    assert_eq!(
        (x.displacements, x.displacements_written, x.displacements_same, x.displacement_brushes_rebuilt),
        (1, 1, 1, 1),
        "{:?}\n{}",
        d.report.notes,
        d.text
    );
    assert!((q.face_coverage.unwrap() - 100.0).abs() < 1e-9, "{:?}", q.face_coverage);
    assert!(d.report.notes.iter().any(|n| n.contains("proven by its face")), "{:?}", d.report.notes);
    let ents = vmf::read(d.text.as_bytes()).unwrap();
    let world = ents.iter().find(|b| b.name == "world").expect("a world block");
    let side = world
        .blocks("solid")
        .flat_map(|s| s.blocks("side"))
        .find(|s| s.blocks("dispinfo").next().is_some())
        .expect("a side with a dispinfo");
    assert_eq!(side.get("material"), Some("BLENDS/TEST"));
    let di = side.blocks("dispinfo").next().unwrap();
    assert_eq!((di.get("power"), di.get("startposition")), (Some("2"), Some("[128 128 0]")));
    assert_eq!(di.blocks("distances").next().and_then(|b| b.get("row1")), Some("5 6 7 8 9"));

    // Not proven: the start is not a corner of the face, or MapFace names no such face.
    for bytes in [common::fixtures::dota_ground([64.0, 128.0, 0.0], 0, 23), common::fixtures::dota_ground([128.0, 128.0, 0.0], 7, 23)] {
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
        let q = d.report.quality.clone().unwrap();
        let x = q.source.clone().unwrap();
        assert_eq!((x.displacements, x.displacement_brushes_rebuilt), (0, 0), "{:?}", d.report.notes);
        assert_eq!(q.face_coverage, Some(0.0), "{:?}", d.report.notes);
        assert!(!d.text.contains("dispinfo"), "{}", d.text);
        assert!(d.report.notes.iter().any(|n| n.contains("not proven by the map")), "{:?}", d.report.notes);
    }
}

/// Tool materials restored from the brush contents (session 39 audit of issue 26). BSPSource's
/// three tool-texture maps say in their worldspawn what each brush was: `textureNames` lists
/// the materials row by row (`;` between rows), one 16-unit cube per name centred at
/// (32x + 16, 32y + 16, 16) (BSPSource's `ToolTextureMatcherTestHelper`). vbsp stores the
/// nodraw sides of several of them with another tool brush's texinfo (player clip as
/// `toolsinvisibleladder` or `toolsclip`, NPC clip as `toolsclip`, `toolsinvisible` as
/// `toolsblockbullets`, ...): every cube must come back with its own material (before: 21 of
/// 88 did not). `tf2_test2`'s four clip brushes stored as nodraw come back as the mapper's
/// source has them (bsp_tool's `tests/mapsrc/test2.vmf`: 18 `toolsclip` and 6
/// `toolsplayerclip` sides), with a note per brush.
#[test]
fn tool_materials_come_back_from_contents() {
    let Some(corpus) = common::corpus("decompile_source::tool_materials_come_back_from_contents") else { return };
    let mut cubes = 0;
    for name in ["bspsrc__csgo_tooltextures.bsp", "bspsrc__gmod_tooltextures.bsp", "bspsrc__l4d2_tooltextures.bsp"] {
        let (d, _) = run(&corpus.join("source").join(name));
        let blocks = vmf::read(d.text.as_bytes()).unwrap();
        let world = blocks.iter().find(|b| b.name == "world").unwrap();
        let grid: Vec<Vec<String>> =
            world.get("textureNames").unwrap().split(';').map(|row| row.split(' ').map(str::to_ascii_lowercase).collect()).collect();
        // Every solid of the world and of the entities (func_detail, func_ladder).
        let solids = blocks.iter().filter(|b| b.name == "world" || b.name == "entity").flat_map(|b| b.blocks("solid"));
        let mut found = std::collections::HashSet::new();
        for solid in solids {
            let mut lo = [f64::MAX; 3];
            let mut hi = [f64::MIN; 3];
            let mut materials = std::collections::BTreeSet::new();
            for side in solid.blocks("side") {
                let v = vmf::numbers(side.get("plane").unwrap());
                for p in v.chunks(3) {
                    for k in 0..3 {
                        lo[k] = lo[k].min(p[k]);
                        hi[k] = hi[k].max(p[k]);
                    }
                }
                materials.insert(side.get("material").unwrap().to_ascii_lowercase());
            }
            if hi[0] - lo[0] > 20.0 {
                continue; // the room's walls
            }
            let cell = |k: usize| ((lo[k] + hi[k]) / 2.0 - 16.0) / 32.0;
            let (x, y) = (cell(0).round() as usize, cell(1).round() as usize);
            let want = &grid[y][x];
            assert_eq!(materials.iter().collect::<Vec<_>>(), vec![want], "{name}: cube ({x}, {y})");
            found.insert((x, y));
        }
        let all: usize = grid.iter().map(Vec::len).sum();
        assert_eq!(found.len(), all, "{name}: every name has its cube");
        cubes += found.len();
        let x = d.report.quality.as_ref().unwrap().source.clone().unwrap();
        assert!(x.tool_sides_restored > 0, "{name}");
    }
    assert_eq!(cubes, 88);
    // tf2_test2: four clip brushes vbsp stored as nodraw.
    let (d, _) = run(&corpus.join("source/bsp_tool__tf2_test2.bsp"));
    let count = |m: &str| d.text.matches(&format!("\"material\" \"{m}\"")).count();
    assert_eq!((count("tools/toolsclip"), count("tools/toolsplayerclip"), count("TOOLS/TOOLSNODRAW")), (18, 6, 27));
    assert_eq!(d.report.notes.iter().filter(|n| n.contains("the tool its contents")).count(), 4);
}

/// A builder-made Source map (v20) holding what vbsp writes for a water overlay, an area portal
/// and an occluder (`docs/format-notes/source_facts.md` §1–§3), for the decompile paths no
/// corpus map reaches (session 39 audit of issue 26):
/// - brush 0, the world's water (`CONTENTS_WATER`, 0..64 × 0..64 × 0..32): its top side is the
///   map's one drawn face (face 0, `liquids/water`), the other sides nodraw;
/// - brush 1, the area portal (`CONTENTS_AREAPORTAL`, 64..72 × 0..64 × 0..64, every side
///   `TOOLS/TOOLSAREAPORTAL`): vbsp moves it into the world and gives the entity (of class
///   `areaportal_class`) `portalnumber` 1, the portal key of both area portal records (one per
///   area), whose clip polygon is its x = 64 side;
/// - brush 2, a `func_door`'s (model 1, 200..208 × 0..64 × 0..64, nodraw);
/// - brush 3, the occluder (100..108 × 0..64 × 0..64, its −x side `TOOLS/TOOLSOCCLUDER`, the rest
///   nodraw): in the brush lump but in no model's tree (vbsp.cpp `EmitOccluderBrushes`), after
///   the door's brush; the `func_occluder` has `occludernumber` 0, and occluder 0 (lump 9,
///   version 1) has one polygon, that side;
/// - one water overlay (lump 50) on face 0, id 513 (`MAX_MAP_OVERLAYS + 1`), texinfo 4
///   (`overlays/shoreline`, vbsp's overlay texinfo: no axes, offsets −99999).
///
/// The world tree is one node whose back leaf lists brushes 0 and 1; the door's likewise, brush 2.
pub(crate) fn portal_occluder_water_map(areaportal_class: &str) -> Vec<u8> {
    let f32s = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let i32s = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let u16s = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let i16s = |v: &[i16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // Planes in vbsp's pairs (source.md §7.1): each plane at an even index with its flip after it,
    // the one facing the positive axis first. Then a box's six sides, outward: +x, −x, +y, −y, +z, −z.
    let mut plane_list: Vec<([f32; 3], f32)> = Vec::new();
    let mut plane = |n: [f32; 3], d: f32| -> u16 {
        let found = plane_list.iter().position(|&(pn, pd)| pn == n && pd == d);
        found.unwrap_or_else(|| {
            let positive = n.iter().sum::<f32>() > 0.0;
            let (a, b) = if positive { ((n, d), (n.map(|c| -c), -d)) } else { ((n.map(|c| -c), -d), (n, d)) };
            plane_list.push(a);
            plane_list.push(b);
            plane_list.len() - if positive { 2 } else { 1 }
        }) as u16
    };
    let node_plane = plane([1.0, 0.0, 0.0], 1000.0);
    let boxes: [([f32; 3], [f32; 3]); 4] = [
        ([0.0, 0.0, 0.0], [64.0, 64.0, 32.0]),
        ([64.0, 0.0, 0.0], [72.0, 64.0, 64.0]),
        ([200.0, 0.0, 0.0], [208.0, 64.0, 64.0]),
        ([100.0, 0.0, 0.0], [108.0, 64.0, 64.0]),
    ];
    let mut box_planes = Vec::new();
    for (lo, hi) in boxes {
        let mut sides = Vec::new();
        for axis in 0..3 {
            for (sign, d) in [(1.0f32, hi[axis]), (-1.0, -lo[axis])] {
                let mut n = [0.0f32; 3];
                n[axis] = sign;
                sides.push(plane(n, d));
            }
        }
        box_planes.push(sides);
    }
    let mut planes = Vec::new();
    for (n, d) in &plane_list {
        planes.extend(f32s(&[n[0], n[1], n[2], *d]));
        let kind = n.iter().position(|c| c.abs() == 1.0).unwrap() as i32;
        planes.extend(i32s(&[kind]));
    }
    // Texinfo: 0 water, 1 nodraw, 2 area portal, 3 occluder, 4 the overlay's.
    let names = ["liquids/water", "TOOLS/TOOLSNODRAW", "TOOLS/TOOLSAREAPORTAL", "TOOLS/TOOLSOCCLUDER", "overlays/shoreline"];
    let (surf_nodraw, surf_warp) = (0x80, 0x8);
    let mut texinfo = Vec::new();
    for (t, flags) in [(0, surf_warp), (1, surf_nodraw), (2, surf_nodraw), (3, 0), (4, 0)] {
        if t == 4 {
            texinfo.extend(f32s(&[0.0, 0.0, 0.0, -99999.0, 0.0, 0.0, 0.0, -99999.0]));
            texinfo.extend(f32s(&[0.0, 0.0, 0.0, -99999.0, 0.0, 0.0, 0.0, -99999.0]));
        } else {
            texinfo.extend(f32s(&[0.25, 0.0, 0.0, 0.0, 0.0, -0.25, 0.0, 0.0]));
            texinfo.extend(f32s(&[0.0625, 0.0, 0.0, 0.0, 0.0, -0.0625, 0.0, 0.0]));
        }
        texinfo.extend(i32s(&[flags, t]));
    }
    let (mut string_data, mut string_table, mut texdata) = (Vec::new(), Vec::new(), Vec::new());
    for (t, name) in names.iter().enumerate() {
        string_table.extend(i32s(&[string_data.len() as i32]));
        string_data.extend(name.as_bytes());
        string_data.push(0);
        texdata.extend(f32s(&[0.5, 0.5, 0.5]));
        texdata.extend(i32s(&[t as i32, 64, 64, 64, 64]));
    }
    // Brush sides in plane order; (brush, side) → texinfo.
    let mut sides = Vec::new();
    for b in 0..4u16 {
        for s in 0..6u16 {
            let texinfo: i16 = match (b, s) {
                (0, 4) => 0,
                (1, _) => 2,
                (3, 1) => 3,
                _ => 1,
            };
            sides.extend(u16s(&[box_planes[b as usize][s as usize]]));
            sides.extend(i16s(&[texinfo, -1, 0]));
        }
    }
    let brushes = i32s(&[0, 6, 0x20, 6, 6, 0x8000, 12, 6, 0x1, 18, 6, 0x1]);
    // Vertices: the water's top face (0..3), clockwise seen from above (source.md §7.5), then
    // the occluder polygon on x = 100 (4..7).
    let verts: [[f32; 3]; 8] = [
        [0.0, 0.0, 32.0],
        [0.0, 64.0, 32.0],
        [64.0, 64.0, 32.0],
        [64.0, 0.0, 32.0],
        [100.0, 0.0, 0.0],
        [100.0, 0.0, 64.0],
        [100.0, 64.0, 64.0],
        [100.0, 64.0, 0.0],
    ];
    let vertices: Vec<u8> = verts.iter().flat_map(|v| f32s(v)).collect();
    let edges = u16s(&[0, 0, 0, 1, 1, 2, 2, 3, 3, 0]);
    let surfedges = i32s(&[1, 2, 3, 4]);
    // dface_t (56 bytes): the water's top plane (z = 32, up), edges 0..4, texinfo 0, no
    // displacement.
    let mut face = u16s(&[box_planes[0][4]]);
    face.extend([0u8, 0]);
    face.extend(i32s(&[0]));
    face.extend(i16s(&[4, 0, -1, -1]));
    face.extend([0u8, 255, 255, 255]);
    face.extend(i32s(&[-1]));
    face.extend(f32s(&[4096.0]));
    face.extend(i32s(&[0, 0, 0, 0, -1]));
    face.extend(u16s(&[0, 0]));
    face.extend(i32s(&[0]));
    assert_eq!(face.len(), 56);
    // Node 0 heads the world (leaf 1 lists brushes 0 and 1), node 1 the door (leaf 3, brush 2).
    let mut nodes = Vec::new();
    for children in [[-1, -2], [-3, -4]] {
        nodes.extend(i32s(&[node_plane as i32, children[0], children[1]]));
        nodes.extend([0u8; 20]);
    }
    let mut leaves = Vec::new();
    for (contents, area, first_brush, brush_count) in [(0i32, 1i16, 0u16, 0u16), (0x20 | 0x8000, 1, 0, 2), (0, 1, 0, 0), (1, 1, 2, 1)] {
        leaves.extend(i32s(&[contents]));
        leaves.extend(i16s(&[-1, area]));
        leaves.extend([0u8; 12]);
        leaves.extend(u16s(&[0, 0, first_brush, brush_count]));
        leaves.extend(i16s(&[-1, 0]));
    }
    let mut model = f32s(&[0.0, 0.0, 0.0, 108.0, 64.0, 64.0, 0.0, 0.0, 0.0]);
    model.extend(i32s(&[0, 0, 1]));
    model.extend(f32s(&[200.0, 0.0, 0.0, 208.0, 64.0, 64.0, 0.0, 0.0, 0.0]));
    model.extend(i32s(&[1, 1, 0]));
    // Areas 0 (unused), 1 and 2, each with one area portal record after vbsp's empty record 0
    // (portals.cpp `EmitAreaPortals`): key 1, the other area, the four clip portal vertices
    // (the x = 64 square) and the portal's plane, flipped (the pair's other index) for area 2.
    let areas = i32s(&[0, 0, 1, 1, 1, 2]);
    let mut portals = u16s(&[0, 0, 0, 0]);
    portals.extend(i32s(&[0]));
    let portal_plane = box_planes[1][1] as i32;
    for (other, planenum) in [(2u16, portal_plane), (1, portal_plane ^ 1)] {
        portals.extend(u16s(&[1, other, 0, 4]));
        portals.extend(i32s(&[planenum]));
    }
    let clip_verts = f32s(&[64.0, 0.0, 0.0, 64.0, 64.0, 0.0, 64.0, 64.0, 64.0, 64.0, 0.0, 64.0]);
    // Lump 9 at version 1: one occluder (40 bytes), one polygon, four vertex indices.
    let mut occlusion = i32s(&[1, 0, 0, 1]);
    occlusion.extend(f32s(&[100.0, 0.0, 0.0, 100.0, 64.0, 64.0]));
    occlusion.extend(i32s(&[-1, 1, 0, 4, box_planes[3][1] as i32, 4, 4, 5, 6, 7]));
    // dwateroverlay_t (1120 bytes): the U basis (1 0 0) in the z of uv0..uv2, uv3's z 0 (V not
    // flipped), origin at the water's centre, normal up.
    let mut water = i32s(&[513]);
    water.extend(i16s(&[4]));
    water.extend(u16s(&[1]));
    let mut faces = vec![0i32; 256];
    faces[0] = 0;
    water.extend(i32s(&faces));
    water.extend(f32s(&[0.0, 1.0, 0.25, 0.75]));
    water.extend(f32s(&[-16.0, -8.0, 1.0, -16.0, 8.0, 0.0, 16.0, 8.0, 0.0, 16.0, -8.0, 0.0]));
    water.extend(f32s(&[32.0, 32.0, 32.0, 0.0, 0.0, 1.0]));
    assert_eq!(water.len(), 1120);
    let entities = format!(
        "{{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"7\"\n}}\n\
         {{\n\"targetname\" \"door_portal\"\n\"StartOpen\" \"1\"\n\"portalnumber\" \"1\"\n\"classname\" \"{areaportal_class}\"\n}}\n\
         {{\n\"model\" \"*1\"\n\"classname\" \"func_door\"\n}}\n\
         {{\n\"StartActive\" \"1\"\n\"occludernumber\" \"0\"\n\"classname\" \"func_occluder\"\n}}\n\0"
    );
    BspBuilder::new(&bspkit::branches::source::SOURCE)
        .version(20)
        .lump(0, entities.into_bytes())
        .lump(1, planes)
        .lump(2, texdata)
        .lump(3, vertices)
        .lump(5, nodes)
        .lump(6, texinfo)
        .lump(7, face)
        .lump_v(9, occlusion, 1)
        .lump_v(10, leaves, 1)
        .lump(12, edges)
        .lump(13, surfedges)
        .lump(14, model)
        .lump(17, u16s(&[0, 1, 2]))
        .lump(18, brushes)
        .lump(19, sides)
        .lump(20, areas)
        .lump(21, portals)
        .lump(41, clip_verts)
        .lump(43, string_data)
        .lump(44, string_table)
        .lump(50, water)
        .build()
}

/// A water overlay (lump 50) comes back as an `info_overlay_transition` holding one
/// `overlaydata` block with the keys vbsp reads (its `sides` the written water side), an area
/// portal brush goes into its `func_areaportal` / `func_areaportalwindow` (by `portalnumber`),
/// and the occluder brush no tree reaches into its `func_occluder` (by `occludernumber`), each
/// with its stored tool materials.
#[test]
fn water_overlays_areaportals_and_occluders_come_back() {
    for class in ["func_areaportal", "func_areaportalwindow"] {
        let bytes = portal_occluder_water_map(class);
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let d = decompile(&bsp, &DecompileOptions::default()).unwrap();
        let q = d.report.quality.as_ref().unwrap();
        let x = q.source.clone().unwrap();
        let why = format!("{:?}\n{}", d.report.notes, d.text);
        assert_eq!((x.water_overlays, x.water_overlay_faces, x.water_overlay_faces_on_sides, x.water_overlays_same), (1, 1, 1, 1), "{why}");
        assert_eq!((x.areaportal_brushes_tied, x.occluder_brushes_tied), (1, 1), "{why}");
        assert_eq!((q.brushes, q.brushes_same), (4, 4), "{why}");
        assert_eq!(q.entities, q.entities_same, "{why}");

        let read = vmf::read(d.text.as_bytes()).unwrap();
        let ents = to_map_entities(&read);
        let class_of = |e: &bspkit::decompile::mapfile::MapEntity| e.pairs.iter().find(|(k, _)| k == "classname").map(|(_, v)| v.clone());
        let materials = |e: &bspkit::decompile::mapfile::MapEntity| -> Vec<Vec<String>> {
            e.brushes().map(|b| b.iter().map(|s| s.texture.clone()).collect()).collect()
        };
        // The world keeps the water brush alone.
        assert_eq!(materials(&ents[0]).len(), 1, "{why}");
        assert!(materials(&ents[0])[0].contains(&"liquids/water".to_string()), "{why}");
        let portal = ents.iter().find(|e| class_of(e).as_deref() == Some(class)).unwrap();
        assert_eq!(materials(portal), vec![vec!["TOOLS/TOOLSAREAPORTAL".to_string(); 6]], "{why}");
        // The occluder's brush follows the door's in the lump but is not the door's.
        let door = ents.iter().find(|e| class_of(e).as_deref() == Some("func_door")).unwrap();
        assert_eq!(materials(door), vec![vec!["TOOLS/TOOLSNODRAW".to_string(); 6]], "{why}");
        let occluder = ents.iter().find(|e| class_of(e).as_deref() == Some("func_occluder")).unwrap();
        let occ = &materials(occluder)[..];
        assert_eq!(occ.len(), 1, "{why}");
        assert_eq!(occ[0].iter().filter(|m| *m == "TOOLS/TOOLSOCCLUDER").count(), 1, "{why}");
        assert_eq!(occ[0].iter().filter(|m| *m == "TOOLS/TOOLSNODRAW").count(), 5, "{why}");

        // The water overlay: its keys, and `sides` naming the water brush's top side.
        let transition = read.iter().find(|b| b.get("classname") == Some("info_overlay_transition")).expect("info_overlay_transition");
        let data = transition.blocks("overlaytransition").next().and_then(|t| t.blocks("overlaydata").next()).expect("overlaydata");
        assert_eq!(data.get("material"), Some("overlays/shoreline"));
        assert_eq!(vmf::numbers(data.get("BasisOrigin").unwrap()), [32.0, 32.0, 32.0]);
        assert_eq!(vmf::numbers(data.get("BasisU").unwrap()), [1.0, 0.0, 0.0]);
        assert_eq!(vmf::numbers(data.get("BasisV").unwrap()), [0.0, 1.0, 0.0]);
        assert_eq!(vmf::numbers(data.get("uv0").unwrap()), [-16.0, -8.0, 0.0]);
        assert_eq!((data.get("StartV"), data.get("EndV")), (Some("0.25"), Some("0.75")));
        let world = read.iter().find(|b| b.name == "world").unwrap();
        let top = world
            .blocks("solid")
            .flat_map(|s| s.blocks("side"))
            .find(|s| s.get("material") == Some("liquids/water"))
            .and_then(|s| s.get("id"))
            .unwrap();
        assert_eq!(data.get("sides"), Some(top), "{why}");
    }
}
