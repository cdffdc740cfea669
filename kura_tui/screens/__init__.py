"""kura's screens: the main one and the modal ones pushed over it."""
