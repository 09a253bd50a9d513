//! Valve's LZMA lump compression (source.md §LZMA): a 17-byte header
//! `{ "LZMA", u32 actualSize, u32 lzmaSize, u8 properties[5] }` then raw LZMA data.

use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};

/// Default cap on one decompressed lump (512 MiB), against decompression bombs.
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 512 << 20;

/// The fields of Valve's LZMA header. The two sizes are little-endian on every platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LzmaHeader {
    pub actual_size: u32,
    pub lzma_size: u32,
    pub properties: [u8; 5],
}

pub const LZMA_HEADER_LEN: usize = 17;

pub fn parse_header(raw: &[u8]) -> Result<LzmaHeader> {
    if raw.len() < LZMA_HEADER_LEN || &raw[..4] != b"LZMA" {
        return Err(Error::malformed("lump does not start with a Valve LZMA header"));
    }
    let le = |o: usize| u32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]]);
    Ok(LzmaHeader { actual_size: le(4), lzma_size: le(8), properties: [raw[12], raw[13], raw[14], raw[15], raw[16]] })
}

/// Bytes of LZMA stream the range decoder reads before it can produce any output (its
/// initialisation: one zero byte and a 32-bit code).
const RANGE_DECODER_INIT: u32 = 5;

/// Everything about a Valve LZMA lump that can be checked without decoding it: the magic, the
/// stated output size within `max`, the stated stream size inside the lump (`raw` is the whole
/// lump, header included), enough stream for any output, and the properties byte `lc`/`lp`/`pb`
/// as the decoder accepts it (liblzma refuses `lc + lp > 4` and a byte above 224, the LZMA
/// SDK's `(pb × 5 + lp) × 9 + lc`). The dictionary size is not checked: the decoder sizes it
/// to the output ([`dictionary_for`]).
///
/// A lump that passes may still fail to decode (its stream can be damaged anywhere): only
/// decoding tells, which `bsp check --verify-lzma` does for every lump.
pub fn check_header(raw: &[u8], max: u64) -> Result<LzmaHeader> {
    let h = parse_header(raw)?;
    if h.actual_size as u64 > max {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "decompressed lump size", requested: h.actual_size as u64, limit: max }));
    }
    let stored = raw.len() - LZMA_HEADER_LEN;
    if h.lzma_size as u64 > stored as u64 {
        return Err(Error::malformed(format!(
            "LZMA header: compressed size {} is more than the {stored} bytes after the header",
            h.lzma_size
        )));
    }
    if h.actual_size > 0 && h.lzma_size < RANGE_DECODER_INIT {
        return Err(Error::malformed(format!(
            "LZMA header: {} bytes of stream cannot hold {} bytes of output",
            h.lzma_size, h.actual_size
        )));
    }
    let p = h.properties[0];
    let (lc, lp) = (p % 9, (p / 9) % 5);
    if p > 224 || lc + lp > 4 {
        return Err(Error::malformed(format!("LZMA header: properties byte {p} (lc {lc}, lp {lp}) is not one a decoder accepts")));
    }
    Ok(h)
}

/// Decompress a Valve LZMA lump, refusing output larger than `max`.
///
/// The LZMA stream is decoded as an "LZMA alone" stream by rebuilding its 13-byte header
/// (properties, then the 64-bit little-endian uncompressed size) in front of the data.
pub fn decompress_valve_lzma(raw: &[u8], _endian: Endian, max: u64) -> Result<Vec<u8>> {
    let h = parse_header(raw)?;
    if h.actual_size as u64 > max {
        return Err(Error::new(ErrorKind::LimitExceeded { what: "decompressed lump size", requested: h.actual_size as u64, limit: max }));
    }
    let body_end = (LZMA_HEADER_LEN as u64 + h.lzma_size as u64).min(raw.len() as u64) as usize;
    let body = &raw[LZMA_HEADER_LEN..body_end];
    decode_lzma_alone(&h.properties, h.actual_size as usize, body)
}

/// The dictionary a decoder of `size` bytes of output needs: the stream's own dictionary size
/// (properties bytes 1..5), but never more than the output (a stream cannot refer further back
/// than it has written) nor less than liblzma's 4 KiB minimum. Valve's compressor writes its
/// own dictionary size whatever the lump's size; liblzma would allocate all of it per lump.
pub fn dictionary_for(properties: &[u8; 5], size: usize) -> u32 {
    let stated = u32::from_le_bytes([properties[1], properties[2], properties[3], properties[4]]);
    stated.min(u32::try_from(size).unwrap_or(u32::MAX)).max(4096)
}

/// Decode raw LZMA data with the given 5 property bytes into exactly `size` bytes.
pub fn decode_lzma_alone(properties: &[u8; 5], size: usize, body: &[u8]) -> Result<Vec<u8>> {
    use liblzma::stream::{Action, Status, Stream};
    let mut input = Vec::with_capacity(13 + body.len());
    input.push(properties[0]);
    input.extend_from_slice(&dictionary_for(properties, size).to_le_bytes());
    input.extend_from_slice(&(size as u64).to_le_bytes());
    input.extend_from_slice(body);
    // 256 MiB of dictionary memory at most, whatever the properties ask for.
    let mut stream = Stream::new_lzma_decoder(256 << 20).map_err(|e| Error::new(ErrorKind::Decompress(e.to_string())))?;
    // One buffer of exactly `size` bytes, reserved once (fallibly): callers have checked
    // `size` against their limits and charged it to the map's budget first, the pages are
    // only touched as the stream writes them (a 17-byte header claiming 400 MiB touches a few),
    // and no reallocation ever holds an old and a new copy at once (issue 23).
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(size).map_err(|_| Error::new(ErrorKind::OutOfMemory { what: "a decompressed LZMA lump", bytes: size as u64 }))?;
    let mut status = Status::Ok;
    loop {
        if out.len() == out.capacity() {
            if out.len() >= size {
                break;
            }
            out.reserve_exact(out.capacity().max(4096).min(size - out.len()));
        }
        let (consumed, produced) = (stream.total_in() as usize, out.len());
        let rest = input.get(consumed..).unwrap_or(&[]);
        status = stream.process_vec(rest, &mut out, Action::Finish).map_err(|e| Error::new(ErrorKind::Decompress(e.to_string())))?;
        if matches!(status, Status::StreamEnd) || (stream.total_in() as usize == consumed && out.len() == produced) {
            break;
        }
    }
    if out.len() != size || !matches!(status, Status::StreamEnd | Status::Ok) {
        return Err(Error::new(ErrorKind::Decompress(format!("expected {size} bytes, decoded {}", out.len()))));
    }
    Ok(out)
}

/// Compress `data` into a Valve LZMA lump (17-byte header + raw LZMA), preset 6 unless given.
pub fn compress_valve_lzma(data: &[u8], preset: u32) -> Result<Vec<u8>> {
    use liblzma::stream::{Action, LzmaOptions, Stream};
    let opts = LzmaOptions::new_preset(preset).map_err(|e| Error::new(ErrorKind::Decompress(e.to_string())))?;
    let mut stream = Stream::new_lzma_encoder(&opts).map_err(|e| Error::new(ErrorKind::Decompress(e.to_string())))?;
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    loop {
        let before = stream.total_in() as usize;
        out.reserve(data.len() / 2 + 4096);
        let status =
            stream.process_vec(&data[before..], &mut out, Action::Finish).map_err(|e| Error::new(ErrorKind::Decompress(e.to_string())))?;
        if matches!(status, liblzma::stream::Status::StreamEnd) {
            break;
        }
    }
    // LZMA-alone output: 5 property bytes, u64 size, then the raw stream.
    if out.len() < 13 {
        return Err(Error::new(ErrorKind::Decompress("encoder produced no header".into())));
    }
    let body = &out[13..];
    let mut lump = Vec::with_capacity(LZMA_HEADER_LEN + body.len());
    lump.extend_from_slice(b"LZMA");
    lump.extend_from_slice(&(data.len() as u32).to_le_bytes());
    lump.extend_from_slice(&(body.len() as u32).to_le_bytes());
    lump.extend_from_slice(&out[..5]);
    lump.extend_from_slice(body);
    Ok(lump)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lzma_round_trip_compresses() {
        let data: Vec<u8> = (0..20000u32).flat_map(|i| (i % 97).to_le_bytes()).collect();
        let lump = compress_valve_lzma(&data, 6).unwrap();
        assert!(lump.len() < data.len() / 4, "real compression expected, got {} of {}", lump.len(), data.len());
        let back = decompress_valve_lzma(&lump, Endian::Little, DEFAULT_MAX_DECOMPRESSED).unwrap();
        assert_eq!(back, data);
    }

    #[test]
    fn hostile_sizes_are_refused() {
        let mut lump = compress_valve_lzma(b"hello hello hello", 6).unwrap();
        lump[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decompress_valve_lzma(&lump, Endian::Little, 1 << 20).unwrap_err().kind, ErrorKind::LimitExceeded { .. }));
        let mut lump = compress_valve_lzma(b"hello hello hello", 6).unwrap();
        lump[4..8].copy_from_slice(&1000u32.to_le_bytes());
        assert!(decompress_valve_lzma(&lump, Endian::Little, 1 << 20).is_err());
        assert!(decompress_valve_lzma(b"LZMA", Endian::Little, 1 << 20).is_err());
    }

    #[test]
    fn dictionary_is_sized_to_the_output() {
        let props = |dict: u32| {
            let mut p = [93u8; 5];
            p[1..].copy_from_slice(&dict.to_le_bytes());
            p
        };
        assert_eq!(dictionary_for(&props(1 << 26), 48), 4096);
        assert_eq!(dictionary_for(&props(1 << 26), 245_736), 245_736);
        assert_eq!(dictionary_for(&props(1 << 18), 1 << 20), 1 << 18);
        // A stream whose header asks for more dictionary than the memory limit still decodes
        // (the dictionary it really needs is its output).
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut lump = compress_valve_lzma(&data, 6).unwrap();
        lump[13..17].copy_from_slice(&(1u32 << 31).to_le_bytes());
        assert_eq!(decompress_valve_lzma(&lump, Endian::Little, DEFAULT_MAX_DECOMPRESSED).unwrap(), data);
    }

    #[test]
    fn header_check_refuses_only_what_cannot_decode() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 13 % 241) as u8).collect();
        let lump = compress_valve_lzma(&data, 6).unwrap();
        let h = check_header(&lump, DEFAULT_MAX_DECOMPRESSED).unwrap();
        assert_eq!((h.actual_size, h.lzma_size as usize), (3000, lump.len() - LZMA_HEADER_LEN));
        let body = &lump[LZMA_HEADER_LEN..];
        // Every properties byte the check refuses, the decoder refuses too (liblzma's own rule).
        let mut refused = 0;
        for p in 0..=255u8 {
            let mut l = lump.clone();
            l[12] = p;
            if check_header(&l, DEFAULT_MAX_DECOMPRESSED).is_err() {
                refused += 1;
                let props = [p, l[13], l[14], l[15], l[16]];
                assert!(decode_lzma_alone(&props, data.len(), body).is_err(), "properties byte {p} decodes");
            }
        }
        // 225..=255, and below that lc + lp > 4: 30 of the 45 (lc, lp) pairs for each pb 0..=4.
        assert_eq!(refused, 31 + 5 * 30);
        // Fewer than 5 bytes of stream produce nothing.
        assert!(decode_lzma_alone(&h.properties, data.len(), &body[..4]).is_err());
        let mut l = lump.clone();
        l[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(check_header(&l, DEFAULT_MAX_DECOMPRESSED).is_err());
        // A stated stream longer than the lump, an output over the limit, no magic.
        let mut l = lump.clone();
        l[8..12].copy_from_slice(&(body.len() as u32 + 1).to_le_bytes());
        assert!(check_header(&l, DEFAULT_MAX_DECOMPRESSED).is_err());
        assert!(matches!(check_header(&lump, 2999).unwrap_err().kind, ErrorKind::LimitExceeded { .. }));
        assert!(check_header(&lump[1..], DEFAULT_MAX_DECOMPRESSED).is_err());
    }

    #[test]
    fn output_grows_with_the_stream_not_the_header() {
        // Output far larger than the compressed body: the buffer must grow in steps.
        let data = vec![7u8; 3 << 20];
        let lump = compress_valve_lzma(&data, 6).unwrap();
        assert!(lump.len() < 4096);
        assert_eq!(decompress_valve_lzma(&lump, Endian::Little, DEFAULT_MAX_DECOMPRESSED).unwrap(), data);
        // A header claiming 400 MiB over a few bytes of stream fails without reserving it.
        let mut lump = compress_valve_lzma(b"abc", 6).unwrap();
        lump[4..8].copy_from_slice(&(400u32 << 20).to_le_bytes());
        let err = decompress_valve_lzma(&lump, Endian::Little, DEFAULT_MAX_DECOMPRESSED).unwrap_err();
        assert!(matches!(err.kind, ErrorKind::Decompress(_)), "{err}");
    }
}
