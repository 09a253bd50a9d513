//! Entity text: the lump parser, and Respawn `.ent` partition files (header line + text).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(ents) = bspkit::lumps::entities::parse(data) {
        for e in ents.iter() {
            assert!(e.span.end <= ents.text.len());
            std::hint::black_box(e.iter().count());
        }
        // Writing the parsed entities back must parse again.
        let text = bspkit::lumps::entities::to_text(ents.iter().map(|e| e.iter().collect::<Vec<_>>()));
        std::hint::black_box(bspkit::lumps::entities::parse(text.as_bytes()).is_ok());
    }
    let _ = bspkit::branches::respawn::parse_ent_file(data);
});
