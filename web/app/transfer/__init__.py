"""Notes in and out (SPEC §18): the export link and the import dialog."""
