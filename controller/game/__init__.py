"""The game: cards' values, hands, variant rules, settlement and prompts (pure code, no I/O)."""
