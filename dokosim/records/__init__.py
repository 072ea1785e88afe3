"""Game records (GAME_RECORD.md): parsing, checking, replay through the engine, scoring, and records made from simulated deals."""
