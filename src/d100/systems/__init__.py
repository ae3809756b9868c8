"""The registered rule systems."""

from ..system import Registry
from .brp import Brp
from .chances import Chances
from .openquest import OpenQuest

REGISTRY = Registry()
REGISTRY.register(OpenQuest())
REGISTRY.register(Brp())
REGISTRY.register(Chances())

__all__ = ["REGISTRY"]
