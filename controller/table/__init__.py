"""The table: device events in, round actions through the controller, device commands out."""
