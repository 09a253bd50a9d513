//! quake1 geometry for the scene model ([`crate::mesh`]).
//!
//! Not built yet: the family's helper replaces this file.

use crate::bsp::Bsp;
use crate::error::{Error, Result};
use crate::mesh::scene::{MeshOptions, Scene};

/// The scene of a quake1 map.
pub fn build(_bsp: &Bsp, _opts: &MeshOptions) -> Result<Scene> {
    Err(Error::malformed("quake1 geometry is not built yet"))
}
