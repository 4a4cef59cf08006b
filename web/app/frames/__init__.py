"""Frames: the row of frames, the Inbox editor frame, splitters, layout and pop-outs."""
