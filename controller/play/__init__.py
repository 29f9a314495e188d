"""Playing without a dealer: strategy, scripted and demo play, the simulator, scenarios."""
