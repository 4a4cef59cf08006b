"""Outside agents: the Agents dialog, the active-note publisher and agents' proposals."""
