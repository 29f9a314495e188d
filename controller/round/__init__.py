"""One round of play: the spec (states x actions), the round's data and checks, the controller."""
