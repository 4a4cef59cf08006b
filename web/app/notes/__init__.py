"""Notes: the list, the note's views, links, search and the quick switcher."""
