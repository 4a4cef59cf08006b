"""People and workspaces (SPEC §17): account, members, invitations, administration."""
