"""Live notes: autosave, merges of other windows' saves, events and history."""
