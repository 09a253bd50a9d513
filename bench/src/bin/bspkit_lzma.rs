//! The LZMA part of bspkit's decode alone: every lump stored with Valve's LZMA header is
//! decompressed (`compression::decompress_valve_lzma`) and nothing else is done. For maps with
//! compressed lumps this is the floor under `bspkit` decode time; `work` is the decompressed
//! byte count (0 for a map with no compressed lump).
use bspkit::compression::{decompress_valve_lzma, DEFAULT_MAX_DECOMPRESSED};

fn lzma_only(bytes: &[u8]) -> Result<u64, String> {
    let bsp = bspkit::Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let mut out = 0u64;
    for e in bsp.lumps() {
        let raw = bsp.raw_lump(e.index).map_err(|e| e.to_string())?;
        if raw.starts_with(b"LZMA") {
            out += decompress_valve_lzma(raw, bsp.endian(), DEFAULT_MAX_DECOMPRESSED).map_err(|e| e.to_string())?.len() as u64;
        }
    }
    Ok(out)
}

fn main() {
    bspkit_bench::main_with("bspkit_lzma", lzma_only);
}
