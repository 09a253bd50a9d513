//! The game lump of an opened map. The game lump parser ([`crate::lumps::gamelump`]) works on
//! bytes and sits below `Bsp` (detection reads the static-prop version with it); this module,
//! above `Bsp`, finds the lump in a map.

use crate::branch::Family;
use crate::bsp::Bsp;
use crate::directory::LumpOrigin;
use crate::error::{Error, ErrorKind, Result};
use crate::lumps::gamelump::{parse_directory_in, DirForm, GameLumps, LumpPlace, LUMP_GAME_LUMP};

impl<'a> GameLumps<'a> {
    /// Parse the game lump of an opened Source or Respawn map (both keep it in slot 35 with the
    /// same directory; a Respawn `.bsp_lump` copy keeps offsets into the `.bsp`, facts §1.3).
    /// Maps of other families give an error.
    pub fn of(bsp: &'a Bsp) -> Result<Self> {
        if !matches!(bsp.family(), Family::Source | Family::Respawn) {
            return Err(Error::new(ErrorKind::NoSuchLump("35 (GAME_LUMP): not a Source or Respawn map".into())));
        }
        let bytes = bsp.lump(LUMP_GAME_LUMP)?;
        let entry = bsp.entry(LUMP_GAME_LUMP);
        let place = LumpPlace {
            file_offset: entry.map(|e| e.offset).unwrap_or(0),
            from_lmp: matches!(entry.map(|e| &e.origin), Some(LumpOrigin::Lmp(_))),
        };
        let form = DirForm::of_branch(bsp.branch().id);
        let dir = parse_directory_in(bytes, place, bsp.endian(), form).map_err(|e| bsp.lump_error(LUMP_GAME_LUMP, e))?;
        let mut g = GameLumps::from_parts(bytes, dir, bsp.endian(), bsp.options().max_decompressed);
        g.prop_game = crate::lumps::staticprops::PropGame::of_branch(bsp.branch().id);
        Ok(g)
    }
}
