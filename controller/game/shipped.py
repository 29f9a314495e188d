"""What ships with croupier: the configuration folder and the variants' ids.

Kept apart from :mod:`controller.game.rules` (which builds the rules' validators) so that the
command line can name the variants in its help without loading the rules' machinery.
"""

from __future__ import annotations

from pathlib import Path

# The shipped configuration: ``config/`` of the source tree, installed with the package as
# ``controller/defaults`` (a link to it in the tree, so each file exists once).
CONFIG_DIR = Path(__file__).resolve().parent.parent / "defaults"
VARIANTS_DIR = CONFIG_DIR / "variants"
VARIANT_IDS = ("nz-pontoon", "uk-pontoon", "pa-blackjack", "pontoon-blackjack")
