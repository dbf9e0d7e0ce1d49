import pytest

from bot.index.fusion import fuse


def test_an_item_high_in_both_rankings_wins():
    fused = fuse([["a", "b", "c"], ["b", "d", "a"]], k=1)
    assert [item for item, _ in fused] == ["b", "a", "d", "c"]


def test_scores_are_reciprocal_ranks():
    fused = dict(fuse([["a", "b"], ["b"]], k=10))
    assert fused["a"] == pytest.approx(1 / 11)
    assert fused["b"] == pytest.approx(1 / 12 + 1 / 11)


def test_weights_scale_each_ranking():
    fused = fuse([["a"], ["b"]], weights=[1.0, 2.0], k=1)
    assert fused == [("b", 1.0), ("a", 0.5)]


def test_ties_keep_the_order_items_were_first_met():
    assert [i for i, _ in fuse([["x", "y"], ["y", "x"]])] == ["x", "y"]


def test_a_small_k_lets_first_places_dominate():
    # "top" leads one ranking; "both" is fifth in two. With k = 60 two middling places beat
    # one first place; with k = 3 the first place holds.
    lexical = ["top", "l2", "l3", "l4", "both"]
    vector = ["v1", "v2", "v3", "v4", "both"]
    assert fuse([lexical, vector], k=60)[0][0] == "both"
    assert fuse([lexical, vector], k=3)[0][0] == "top"


def test_one_weight_per_ranking():
    with pytest.raises(ValueError, match="one weight per ranking"):
        fuse([["a"], ["b"]], weights=[1.0])


def test_nothing_to_fuse():
    assert fuse([[], []]) == []
