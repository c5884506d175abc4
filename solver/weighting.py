"""How much each leaf constraint weighs in G_all, and what follows from that alone.

A leaf's weight in G_all is its own, times its ``AnyOf``'s where it has one
(:func:`.chains.leaf_weights`). The smallest positive one scales the descents
(:func:`solver.methods.base.weight_scale`); with the chains' lengths it gives the G_all
below which every goal is met to a fraction of its chain (:meth:`Weighting.tolerance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ._checks import BoolArray, FloatArray
from .chains import Term, leaf_weights

__all__ = ["Weighting"]


class Weighting(NamedTuple):
    """The leaves' weights in G_all, made once per problem's weights and terms.

    Attributes:
        leaves: Each leaf's weight in G_all, shape (m,).
        positive: Whether each leaf's weight is > 0, shape (m,).
        smallest: The smallest positive one; 1 where none is positive.
        relative: The leaves' weights summed, over ``smallest``: G_all / w where every
            leaf's potential is 1 (each goal off by one unit).
    """

    leaves: FloatArray
    positive: BoolArray
    smallest: float
    relative: float

    @classmethod
    def of(cls, terms: Sequence[Term], weights: FloatArray) -> Weighting:
        """The weighting of ``terms`` over leaves of own ``weights`` (shape (m,))."""
        leaves = leaf_weights(terms, weights)
        positive = leaves > 0.0
        smallest = float(leaves[positive].min()) if positive.any() else 1.0
        return cls(leaves, positive, smallest, float(np.sum(leaves)) / smallest)

    def tolerance(self, fraction: float, lengths: FloatArray) -> float:
        """``min_i c_i (fraction · L_i)²`` over the leaves of positive weight c_i, else 0.

        Args:
            fraction: The share of each chain's length, ≥ 0.
            lengths: Each leaf's chain length L_i, shape (m,).
        """
        positive = self.positive
        sizes = self.leaves[positive] * (fraction * lengths[positive]) ** 2
        return float(sizes.min()) if sizes.size else 0.0
