"""baccarat: an online Punto Banco baccarat system."""

__version__ = "0.1.0"
