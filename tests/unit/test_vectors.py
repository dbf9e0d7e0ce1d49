import numpy as np
import pytest

from bot.index.vectors import embed_text, nearest, normalised, pack, stack, unpack


def test_pack_is_little_endian_float32_and_round_trips():
    blob = pack([1.0, -2.5, 0.0])
    assert len(blob) == 12
    assert blob[:4] == bytes.fromhex("0000803f")  # 1.0 as little-endian IEEE 754 single
    assert unpack(blob, 3).tolist() == [1.0, -2.5, 0.0]


def test_a_blob_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError, match="not 4 floats"):
        unpack(pack([1.0, 2.0]), 4)
    with pytest.raises(ValueError, match="not all 2 floats wide"):
        stack([pack([1.0, 2.0]), pack([1.0])], 2)


def test_stack_normalises_rows_and_leaves_zero_rows_zero():
    matrix = stack([pack([3.0, 4.0]), pack([0.0, 0.0])], 2)
    assert matrix.dtype == np.float32
    assert np.allclose(matrix, [[0.6, 0.8], [0.0, 0.0]])
    assert stack([], 5).shape == (0, 5)


def test_nearest_orders_by_cosine_then_row():
    matrix = normalised([[1, 0], [0, 1], [1, 1], [1, 0]])
    assert nearest(matrix, np.array([[1.0, 0.1]], dtype=np.float32), 3) == [0, 3, 2]


def test_nearest_keeps_only_masked_rows():
    matrix = normalised([[1, 0], [0, 1], [1, 1]])
    mask = np.array([False, True, True])
    assert nearest(matrix, np.array([[1.0, 0.0]], dtype=np.float32), 5, mask) == [2, 1]
    assert nearest(matrix, np.array([[1.0, 0.0]], dtype=np.float32), 5, ~mask | True) == [0, 2, 1]
    assert nearest(matrix, np.array([[1.0, 0.0]], dtype=np.float32), 5, mask & False) == []


def test_nearest_with_many_ties_is_stable():
    matrix = normalised(np.ones((50, 3)))
    assert nearest(matrix, np.ones((1, 3), dtype=np.float32), 4) == [0, 1, 2, 3]


def test_embed_text_leads_with_the_heading_path():
    assert embed_text(("Guide", "", "Flags"), "body") == "Guide › Flags\nbody"
    assert embed_text((), "x" * 5000).endswith("x" * 10)
    assert len(embed_text((), "x" * 5000)) < 2100
