//! bspkit: open from bytes (detect + directory), then `scan::decode_all` (every lump,
//! decompression, record views, entities, Q2/Source/Q3 visibility rows).
fn decode(bytes: &[u8]) -> Result<u64, String> {
    let bsp = bspkit::Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let c = bspkit::scan::decode_all(&bsp);
    Ok(c.lump_bytes + c.records + c.entity_pairs as u64 + c.vis_bits + c.checksum % 7)
}
fn main() {
    bspkit_bench::main_with("bspkit", decode);
}
