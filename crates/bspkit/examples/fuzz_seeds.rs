//! Writes builder-made maps of the branches the real-map corpus lacks into a directory, as
//! seeds for the `open_decode` fuzz target (`fuzz/seed.sh` runs it): a small Genesis3D level
//! (the chunk-chain header form), SiN / Soldier of Fortune / Daikatana maps next to the
//! Quake 3-family branches whose magic they share, a room of each of Ritual's and of the
//! Call of Duty 1 / 2 branches, and a map of each Source fork with its own static prop form.
//!
//! `cargo run -p bspkit --example fuzz_seeds -- fuzz/corpus/open_decode`

use bspkit::branches::{cod, genesis3d, quake2, quake3};
use bspkit::build::BspBuilder;

fn main() -> std::io::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/corpus/open_decode".into()));
    std::fs::create_dir_all(&dir)?;
    let mut seeds = vec![("seed_genesis3d_room.bsp".to_string(), genesis3d::room::small_level())];
    let ents = b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec();
    for b in [&quake2::SIN, &quake2::SOF, &quake2::DAIKATANA, &quake3::QUAKE3, &quake3::RBSP] {
        // Every record lump holds two zeroed records; the rest stays empty.
        let mut builder = BspBuilder::new(b).lump(0, ents.clone());
        for (i, def) in b.lumps.iter().enumerate().skip(1) {
            if let Some(size) = def.record_size(0) {
                builder = builder.lump(i, vec![0u8; 2 * size]);
            }
        }
        seeds.push((format!("seed_{}.bsp", b.id), builder.build()));
    }
    // Ritual's Quake 3 descendants: the builder's complete room of each.
    for b in quake3::RITUAL {
        if let Some(room) = bspkit::build::ritual_room(b) {
            seeds.push((format!("seed_{}_room.bsp", b.id), room));
        }
    }
    // Call of Duty 1 demo / 1 / 2: the builder's room of each.
    for b in [&cod::COD1_DEMO, &cod::COD1, &cod::COD2] {
        if let Some(room) = bspkit::build::cod12_room(b) {
            seeds.push((format!("seed_{}_room.bsp", b.id), room));
        }
    }
    // Source forks whose static props differ from Valve's at the same version.
    for b in bspkit::build::source_forks::FORKS {
        if let Some(map) = bspkit::build::source_fork_map(b) {
            seeds.push((format!("seed_{}_sprp.bsp", b.id), map));
        }
    }
    // Dark Messiah: split version word, 96-byte texinfo, 52-byte models, its game lump form.
    seeds.push(("seed_darkmessiah.bsp".into(), bspkit::build::dark_messiah_map()));
    // Vindictus: widened records, faces of lump versions 1 and 2, its game lump and prop forms.
    seeds.push(("seed_vindictus69.bsp".into(), bspkit::build::vindictus_map(1, bspkit::build::VindictusForm::V69)));
    seeds.push(("seed_vindictus.bsp".into(), bspkit::build::vindictus_map(2, bspkit::build::VindictusForm::Later)));
    // Counter-Strike Online 2, both layouts (the 2018 one: 242-byte dispinfo, 164-byte cubemaps).
    seeds.push(("seed_cso2.bsp".into(), bspkit::build::cso2_map(bspkit::build::Cso2Form::Y2013)));
    seeds.push(("seed_cso2_2018.bsp".into(), bspkit::build::cso2_map(bspkit::build::Cso2Form::Y2018)));
    // Quake 64: the BSP29 room with 44-byte textures and 16-bit lighting.
    seeds.push(("seed_quake64_room.bsp".into(), bspkit::build::quake64_room()));
    // James Bond 007: Nightfire (version 42): no real map found.
    seeds.push(("seed_nightfire_room.bsp".into(), bspkit::build::nightfire_room()));
    // Original-Xbox Half-Life 2: VBSP 19 with lightmap pages and their infos.
    seeds.push(("seed_source_xbox.bsp".into(), bspkit::build::source_xbox_map()));
    // Titanfall on Xbox 360 (PSBr 29): the builder's Titanfall room byte-swapped.
    seeds.push(("seed_titanfall_x360.bsp".into(), bspkit::build::titanfall_x360_map()));
    for (name, bytes) in seeds {
        std::fs::write(dir.join(&name), bytes)?;
        println!("wrote {}", dir.join(name).display());
    }
    Ok(())
}
