//! Disk mechanics: geometry, seek curves, rotation, transfer, overheads, presets.
