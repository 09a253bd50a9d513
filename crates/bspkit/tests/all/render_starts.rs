//! `bsp render` frames a Respawn map on the player starts of the `_spawn.ent` partition beside
//! it (Respawn keeps spawn points there, not in the `.bsp`'s entity lump): issue 25.

use crate::common;

use bspkit::render::{render_map, RenderOptions, Starts, View};
use bspkit::Bsp;

/// The builder's Titanfall room (a 64 × 64 floor, no player start in its entity lump) written as
/// `<dir>/room.bsp`, with `spawn` (if any) as `room_spawn.ent` beside it.
fn room(dir: &std::path::Path, spawn: Option<&[u8]>) -> Bsp<'static> {
    std::fs::create_dir_all(dir).unwrap();
    let map = dir.join("room.bsp");
    std::fs::write(&map, bspkit::build::titanfall_room()).unwrap();
    if let Some(s) = spawn {
        std::fs::write(dir.join("room_spawn.ent"), s).unwrap();
    }
    Bsp::open(&map).unwrap()
}

const SPAWN_ENT: &[u8] = b"ENTITIES01\n{\n\"classname\" \"info_spawnpoint_dropship_start\"\n\"origin\" \"0 0 500\"\n}\n{\n\"classname\" \"info_spawnpoint_human_start\"\n\"origin\" \"16 48 0\"\n\"angles\" \"0 90 0\"\n\"teamnum\" \"2\"\n}\n{\n\"classname\" \"info_spawnpoint_human\"\n\"origin\" \"40 8 0\"\n}\n\0";

#[test]
fn spawn_view_uses_the_spawn_partition() {
    let dir = common::scratch("render-starts");
    let opts = RenderOptions { view: View::Spawn, size: 64, ..Default::default() };

    // Without the partition there is no start: the spawn view falls back to iso, saying why.
    let bare = room(&dir.join("bare"), None);
    let r = render_map(&bare, &opts).unwrap();
    assert_eq!(r.view, View::Iso);
    assert!(r.warnings.iter().any(|w| w.contains("no player start")), "{:?}", r.warnings);

    // With it, the spawn view stands on the first human start (not the dropship in the air).
    let bsp = room(&dir.join("spawn"), Some(SPAWN_ENT));
    let starts = Starts::of_map(&bsp, &mut Vec::new());
    // The partition's starts give the spawn view's eye, not the frame's starts.
    assert!(starts.origins.is_empty());
    assert_eq!(starts.first, Some(([16.0, 48.0, 0.0], [0.0, 90.0, 0.0])));
    let r = render_map(&bsp, &opts).unwrap();
    assert_eq!(r.view, View::Spawn, "{:?}", r.warnings);
    assert!(!r.warnings.iter().any(|w| w.contains("no player start")), "{:?}", r.warnings);
    assert_eq!(r.camera.eye, [16.0, 48.0, bspkit::render::camera::EYE_HEIGHT]);

    // A partition that does not parse is a warning, and the picture is still drawn.
    let bad = room(&dir.join("bad"), Some(b"not an ent file"));
    let r = render_map(&bad, &opts).unwrap();
    assert_eq!(r.view, View::Iso);
    assert!(r.warnings.iter().any(|w| w.starts_with("player starts:") && w.contains("room_spawn.ent")), "{:?}", r.warnings);
}

/// A non-Respawn map never reads `.ent` files beside it, whatever their names.
#[test]
fn other_families_ignore_ent_files() {
    let dir = common::scratch("render-starts-q1");
    let map = dir.join("room.bsp");
    std::fs::write(&map, bspkit::build::sample_quake1()).unwrap();
    std::fs::write(dir.join("room_spawn.ent"), SPAWN_ENT).unwrap();
    let bsp = Bsp::open(&map).unwrap();
    let ents = bsp.entities().unwrap();
    assert_eq!(Starts::of_map(&bsp, &mut Vec::new()), Starts::of(&ents));
}
