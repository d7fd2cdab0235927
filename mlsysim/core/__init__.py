"""Compatibility namespace: ``from mlsysim.core.engine import Engine`` (the seed labs' import)."""
